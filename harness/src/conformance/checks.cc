#include "checks.h"

#include <numeric>
#include <stdexcept>

#include "buffer.h"
#include "nbcguard/pattern.h"

namespace nbcguard::conformance {

namespace {

// Element counts and displacements (in elements) of a buffer's blocks.
struct Blocks {
  std::vector<int> counts, displs;
  std::size_t total = 0;  // elements in the buffer
};

Blocks Contiguous(int blocks, int count) {
  Blocks b;
  for (int i = 0; i < blocks; ++i) {
    b.counts.push_back(count);
    b.displs.push_back(i * count);
  }
  b.total = static_cast<std::size_t>(blocks) * count;
  return b;
}

// One untouched element after every block: a displacement that is off by
// one writes into it or leaves a block's last element unwritten.
Blocks Gapped(const std::vector<int>& counts) {
  Blocks b;
  b.counts = counts;
  int at = 0;
  for (int c : counts) {
    b.displs.push_back(at);
    at += c + 1;
  }
  b.total = static_cast<std::size_t>(at);
  return b;
}

// An element of some rank's send data.
struct Source {
  int rank;
  std::size_t element;
};

// The value rank r sends at value slot s in repetition rep: odd, so the
// non-commutative operation's products never collapse to 0.
std::int32_t Value(int r, int rep, std::size_t slot) { return 2 * Pattern(r, rep, slot) + 1; }

// x o y for x -> a x + b composed with y: (a1 a2, a1 b2 + b1), modulo 2^32.
// Associative, not commutative: applying it in the wrong rank order
// changes the result.
void Compose(const std::uint32_t* in, std::uint32_t* inout) {
  const std::uint32_t a = in[0] * inout[0], b = in[0] * inout[1] + in[1];
  inout[0] = a;
  inout[1] = b;
}

void ComposeOp(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* x = static_cast<std::uint32_t*>(in);
  auto* y = static_cast<std::uint32_t*>(inout);
  for (std::ptrdiff_t i = 0; i < *len; ++i) Compose(x + 2 * i, y + 2 * i);
}

MPI_Op OpOf(const std::string& name) {
  if (name == "max") return MPI_MAX;
  if (name == "noncomm") {
    static MPI_Op op = [] {
      MPI_Op o;
      MPI_Op_create(ComposeOp, 0, &o);
      return o;
    }();
    return op;
  }
  return MPI_SUM;
}

int VCount(int c, int r) { return c == 0 ? 0 : r % 3 == 2 ? 0 : c + r % 3; }

// {count(0), ..., count(n - 1)}.
template <class F>
std::vector<int> CountsOf(int n, F count) {
  std::vector<int> c(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) c[static_cast<std::size_t>(i)] = count(i);
  return c;
}

// The shared machinery: each collective says how its buffers are laid out,
// where each received element comes from, and how to call it.
class Model : public Check {
 public:
  Model(const Variant& v, MPI_Comm comm, bool reduces)
      : v_(v), comm_(comm), reduces_(reduces), c_(static_cast<int>(v.count)), root_(v.root) {
    MPI_Comm_rank(comm, &me_);
    MPI_Comm_size(comm, &n_);
    layout_ = MakeLayout(reduces ? (v.op == "noncomm" ? "pair" : "int") : v.datatype);
    op_ = OpOf(v.op);
  }
  ~Model() override { FreeLayout(layout_); }

  void Fill(int rep) override {
    if (!allocated_) Allocate();
    const std::size_t k = layout_.slots();
    send_.Reset(layout_, send_.elements(), 2 * me_ + 1);
    recv_.Reset(layout_, recv_.elements(), 2 * me_ + 2);
    const Blocks s = SendBlocks(me_);
    for (std::size_t b = 0; b < s.counts.size(); ++b)
      for (int i = 0; i < s.counts[b]; ++i) {
        const std::size_t e = static_cast<std::size_t>(s.displs[b]) + static_cast<std::size_t>(i);
        for (std::size_t j = 0; j < k; ++j) {
          if (InPlaceHere()) recv_.Set(InPlaceElement(e) * k + j, Value(me_, rep, e * k + j));
          else send_.Set(e * k + j, Value(me_, rep, e * k + j));
        }
      }
    send_.Snapshot();
    recv_.Snapshot();
  }

  std::string Verify(int rep) const override {
    std::string e = send_.Check("send buffer", [](std::size_t) { return Want{}; });
    if (!e.empty()) return e;
    const std::size_t k = layout_.slots();
    const Blocks r = RecvBlocks(me_);
    std::vector<std::pair<int, int>> where(recv_.elements(), {-1, 0});  // (block, index) per element
    for (std::size_t b = 0; b < r.counts.size(); ++b)
      for (int i = 0; i < r.counts[b]; ++i) where[r.displs[b] + i] = {static_cast<int>(b), i};
    std::vector<Source> sources;
    return recv_.Check("receive buffer", [&](std::size_t slot) {
      if (Undefined()) return Want{Want::kAny};
      const auto [block, i] = where[slot / k];
      sources.clear();
      if (block >= 0) Sources(block, static_cast<std::size_t>(i), &sources);
      if (sources.empty()) return Want{InPlaceHere() ? Want::kAny : Want::kUntouched};
      return Want::Value(Expected(sources, rep, slot % k));
    });
  }

 protected:
  // The send data of rank r, and the receive buffer of rank r.
  virtual Blocks SendBlocks(int r) const = 0;
  virtual Blocks RecvBlocks(int r) const = 0;
  // Where element i of receive block j of this rank comes from (several
  // sources: reduced in this order).
  virtual void Sources(int j, std::size_t i, std::vector<Source>* out) const = 0;
  // This rank passes MPI_IN_PLACE and keeps its send data in the receive
  // buffer, at InPlaceElement(send element).
  virtual bool InPlaceHere() const { return v_.in_place; }
  virtual std::size_t InPlaceElement(std::size_t e) const { return e; }
  // The receive buffer's content is undefined on this rank (MPI_Exscan on rank 0).
  virtual bool Undefined() const { return false; }

  const void* SendPtr() { return InPlaceHere() ? MPI_IN_PLACE : send_.data(); }
  void* RecvPtr() { return recv_.data(); }
  MPI_Datatype T() const { return layout_.type; }

  const Variant v_;
  MPI_Comm comm_;
  bool reduces_;
  int c_, root_, me_ = 0, n_ = 1;
  Layout layout_;
  MPI_Op op_ = MPI_SUM;
  Buffer send_, recv_;

 private:
  // Sizes are fixed for the check's life: a persistent request keeps the
  // pointers given at its init.
  void Allocate() {
    send_.Reset(layout_, InPlaceHere() ? 0 : SendBlocks(me_).total, 0);
    recv_.Reset(layout_, RecvBlocks(me_).total, 0);
    allocated_ = true;
  }
  std::int32_t Expected(const std::vector<Source>& from, int rep, std::size_t j) const {
    const std::size_t k = layout_.slots();
    auto value = [&](const Source& s, std::size_t slot) {
      return static_cast<std::uint32_t>(Value(s.rank, rep, s.element * k + slot));
    };
    if (!reduces_) return static_cast<std::int32_t>(value(from[0], j));
    if (v_.op == "noncomm") {
      std::uint32_t acc[2] = {value(from.back(), 0), value(from.back(), 1)};
      for (std::size_t i = from.size() - 1; i-- > 0;) {  // x0 o (x1 o (... o xn))
        const std::uint32_t x[2] = {value(from[i], 0), value(from[i], 1)};
        Compose(x, acc);
      }
      return static_cast<std::int32_t>(acc[j]);
    }
    std::uint32_t acc = value(from[0], j);
    for (std::size_t i = 1; i < from.size(); ++i) {
      const std::uint32_t x = value(from[i], j);
      acc = v_.op == "max" ? static_cast<std::uint32_t>(
                                 std::max(static_cast<std::int32_t>(acc), static_cast<std::int32_t>(x)))
                           : acc + x;
    }
    return static_cast<std::int32_t>(acc);
  }

  bool allocated_ = false;
};

// Every rank's element i, in rank order, from ranks [0, upto).
void AllRanks(int upto, std::size_t i, std::vector<Source>* out) {
  for (int r = 0; r < upto; ++r) out->push_back({r, i});
}

// Declares Call(): "MPI_I<name>" / "MPI_<Name>_init".
#define NAMES(Name) \
  std::string Call(bool p) const override { return p ? "MPI_" #Name "_init" : "MPI_I" + Lower(#Name); }

std::string Lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

class Bcast : public Model {
 public:
  Bcast(const Variant& v, MPI_Comm comm) : Model(v, comm, false) {}
  NAMES(Bcast)
  int Start(MPI_Request* q) override { return MPI_Ibcast(RecvPtr(), c_, T(), root_, comm_, q); }
  int Init(MPI_Request* q) override { NBCGUARD_INIT_CALL(Bcast, RecvPtr(), c_, T(), root_, comm_); }

 protected:
  // The root's data is the buffer itself.
  Blocks SendBlocks(int r) const override { return Contiguous(r == root_ ? 1 : 0, c_); }
  Blocks RecvBlocks(int) const override { return Contiguous(1, c_); }
  void Sources(int, std::size_t i, std::vector<Source>* out) const override { out->push_back({root_, i}); }
  bool InPlaceHere() const override { return me_ == root_; }
};

class Reduce : public Model {
 public:
  Reduce(const Variant& v, MPI_Comm comm) : Model(v, comm, true) {}
  NAMES(Reduce)
  int Start(MPI_Request* q) override {
    return MPI_Ireduce(SendPtr(), RecvPtr(), c_, T(), op_, root_, comm_, q);
  }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Reduce, SendPtr(), RecvPtr(), c_, T(), op_, root_, comm_);
  }

 protected:
  Blocks SendBlocks(int) const override { return Contiguous(1, c_); }
  Blocks RecvBlocks(int r) const override { return Contiguous(r == root_ ? 1 : 0, c_); }
  void Sources(int, std::size_t i, std::vector<Source>* out) const override { AllRanks(n_, i, out); }
  bool InPlaceHere() const override { return v_.in_place && me_ == root_; }
};

class Allreduce : public Model {
 public:
  Allreduce(const Variant& v, MPI_Comm comm) : Model(v, comm, true) {}
  NAMES(Allreduce)
  int Start(MPI_Request* q) override { return MPI_Iallreduce(SendPtr(), RecvPtr(), c_, T(), op_, comm_, q); }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Allreduce, SendPtr(), RecvPtr(), c_, T(), op_, comm_);
  }

 protected:
  Blocks SendBlocks(int) const override { return Contiguous(1, c_); }
  Blocks RecvBlocks(int) const override { return Contiguous(1, c_); }
  void Sources(int, std::size_t i, std::vector<Source>* out) const override { AllRanks(n_, i, out); }
};

// MPI_Iscan (inclusive) and MPI_Iexscan (exclusive; undefined on rank 0).
template <bool kExclusive>
class Scan : public Model {
 public:
  Scan(const Variant& v, MPI_Comm comm) : Model(v, comm, true) {}
  std::string Call(bool p) const override {
    return std::string(p ? (kExclusive ? "MPI_Exscan_init" : "MPI_Scan_init")
                         : (kExclusive ? "MPI_Iexscan" : "MPI_Iscan"));
  }
  int Start(MPI_Request* q) override {
    return (kExclusive ? MPI_Iexscan : MPI_Iscan)(SendPtr(), RecvPtr(), c_, T(), op_, comm_, q);
  }
  int Init(MPI_Request* q) override {
#ifdef NBCGUARD_INIT
    return (kExclusive ? NBCGUARD_INIT(Exscan) : NBCGUARD_INIT(Scan))(SendPtr(), RecvPtr(), c_, T(), op_,
                                                                      comm_, MPI_INFO_NULL, q);
#else
    (void)q;
    return MPI_ERR_OTHER;
#endif
  }

 protected:
  Blocks SendBlocks(int) const override { return Contiguous(1, c_); }
  Blocks RecvBlocks(int) const override { return Contiguous(1, c_); }
  void Sources(int, std::size_t i, std::vector<Source>* out) const override {
    AllRanks(kExclusive ? me_ : me_ + 1, i, out);
  }
  bool Undefined() const override { return kExclusive && me_ == 0; }
};

class Allgather : public Model {
 public:
  Allgather(const Variant& v, MPI_Comm comm) : Model(v, comm, false) {}
  NAMES(Allgather)
  int Start(MPI_Request* q) override {
    return MPI_Iallgather(SendPtr(), c_, T(), RecvPtr(), c_, T(), comm_, q);
  }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Allgather, SendPtr(), c_, T(), RecvPtr(), c_, T(), comm_);
  }

 protected:
  Blocks SendBlocks(int) const override { return Contiguous(1, c_); }
  Blocks RecvBlocks(int) const override { return Contiguous(n_, c_); }
  void Sources(int j, std::size_t i, std::vector<Source>* out) const override { out->push_back({j, i}); }
  std::size_t InPlaceElement(std::size_t e) const override { return static_cast<std::size_t>(me_) * c_ + e; }
};

// Per-rank counts (one rank in three sends none), one-element gaps.
class Allgatherv : public Model {
 public:
  Allgatherv(const Variant& v, MPI_Comm comm) : Model(v, comm, false), recv_blocks_(Gapped(Counts())) {}
  NAMES(Allgatherv)
  int Start(MPI_Request* q) override {
    return MPI_Iallgatherv(SendPtr(), VCount(c_, me_), T(), RecvPtr(), recv_blocks_.counts.data(),
                           recv_blocks_.displs.data(), T(), comm_, q);
  }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Allgatherv, SendPtr(), VCount(c_, me_), T(), RecvPtr(), recv_blocks_.counts.data(),
                       recv_blocks_.displs.data(), T(), comm_);
  }

 protected:
  std::vector<int> Counts() const {
    return CountsOf(n_, [&](int r) { return VCount(c_, r); });
  }
  Blocks SendBlocks(int r) const override { return Contiguous(1, VCount(c_, r)); }
  Blocks RecvBlocks(int) const override { return recv_blocks_; }
  void Sources(int j, std::size_t i, std::vector<Source>* out) const override { out->push_back({j, i}); }
  std::size_t InPlaceElement(std::size_t e) const override { return recv_blocks_.displs[me_] + e; }

  Blocks recv_blocks_;
};

class Alltoall : public Model {
 public:
  Alltoall(const Variant& v, MPI_Comm comm) : Model(v, comm, false) {}
  NAMES(Alltoall)
  int Start(MPI_Request* q) override {
    return MPI_Ialltoall(SendPtr(), c_, T(), RecvPtr(), c_, T(), comm_, q);
  }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Alltoall, SendPtr(), c_, T(), RecvPtr(), c_, T(), comm_);
  }

 protected:
  Blocks SendBlocks(int) const override { return Contiguous(n_, c_); }
  Blocks RecvBlocks(int) const override { return Contiguous(n_, c_); }
  void Sources(int j, std::size_t i, std::vector<Source>* out) const override {
    out->push_back({j, static_cast<std::size_t>(me_) * c_ + i});
  }
};

// MPI_Ialltoallv and, with byte displacements and a type per peer,
// MPI_Ialltoallw. Rank s sends VCount(c, s + d) elements to rank d:
// symmetric, as MPI_IN_PLACE requires.
template <bool kW>
class Alltoallv : public Model {
 public:
  Alltoallv(const Variant& v, MPI_Comm comm) : Model(v, comm, false), send_blocks_(Of(me_)) {
    for (int d = 0; d < n_; ++d) {
      sbytes_.push_back(send_blocks_.displs[d] * static_cast<int>(layout_.extent));
      types_.push_back(T());
    }
  }
  std::string Call(bool p) const override {
    return std::string(p ? (kW ? "MPI_Alltoallw_init" : "MPI_Alltoallv_init")
                         : (kW ? "MPI_Ialltoallw" : "MPI_Ialltoallv"));
  }
  int Start(MPI_Request* q) override {
    const Blocks& b = send_blocks_;  // the receive layout is the same
    if (kW)
      return MPI_Ialltoallw(SendPtr(), b.counts.data(), sbytes_.data(), types_.data(), RecvPtr(),
                            b.counts.data(), sbytes_.data(), types_.data(), comm_, q);
    return MPI_Ialltoallv(SendPtr(), b.counts.data(), b.displs.data(), T(), RecvPtr(), b.counts.data(),
                          b.displs.data(), T(), comm_, q);
  }
  int Init(MPI_Request* q) override {
    const Blocks& b = send_blocks_;
#ifdef NBCGUARD_INIT
    if (kW)
      return NBCGUARD_INIT(Alltoallw)(SendPtr(), b.counts.data(), sbytes_.data(), types_.data(), RecvPtr(),
                                      b.counts.data(), sbytes_.data(), types_.data(), comm_, MPI_INFO_NULL,
                                      q);
    return NBCGUARD_INIT(Alltoallv)(SendPtr(), b.counts.data(), b.displs.data(), T(), RecvPtr(),
                                    b.counts.data(), b.displs.data(), T(), comm_, MPI_INFO_NULL, q);
#else
    (void)b;
    (void)q;
    return MPI_ERR_OTHER;
#endif
  }

 protected:
  Blocks Of(int r) const {
    return Gapped(CountsOf(n_, [&](int d) { return VCount(c_, r + d); }));
  }
  Blocks SendBlocks(int r) const override { return Of(r); }
  Blocks RecvBlocks(int r) const override { return Of(r); }
  void Sources(int j, std::size_t i, std::vector<Source>* out) const override {
    out->push_back({j, static_cast<std::size_t>(Of(j).displs[me_]) + i});
  }

  Blocks send_blocks_;
  std::vector<int> sbytes_;
  std::vector<MPI_Datatype> types_;
};

class Gather : public Model {
 public:
  Gather(const Variant& v, MPI_Comm comm) : Model(v, comm, false) {}
  NAMES(Gather)
  int Start(MPI_Request* q) override {
    return MPI_Igather(SendPtr(), c_, T(), RecvPtr(), c_, T(), root_, comm_, q);
  }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Gather, SendPtr(), c_, T(), RecvPtr(), c_, T(), root_, comm_);
  }

 protected:
  Blocks SendBlocks(int) const override { return Contiguous(1, c_); }
  Blocks RecvBlocks(int r) const override { return Contiguous(r == root_ ? n_ : 0, c_); }
  void Sources(int j, std::size_t i, std::vector<Source>* out) const override { out->push_back({j, i}); }
  bool InPlaceHere() const override { return v_.in_place && me_ == root_; }
  std::size_t InPlaceElement(std::size_t e) const override {
    return static_cast<std::size_t>(root_) * c_ + e;
  }
};

class Gatherv : public Allgatherv {
 public:
  Gatherv(const Variant& v, MPI_Comm comm) : Allgatherv(v, comm) {}
  NAMES(Gatherv)
  int Start(MPI_Request* q) override {
    return MPI_Igatherv(SendPtr(), VCount(c_, me_), T(), RecvPtr(), recv_blocks_.counts.data(),
                        recv_blocks_.displs.data(), T(), root_, comm_, q);
  }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Gatherv, SendPtr(), VCount(c_, me_), T(), RecvPtr(), recv_blocks_.counts.data(),
                       recv_blocks_.displs.data(), T(), root_, comm_);
  }

 protected:
  Blocks RecvBlocks(int r) const override { return r == root_ ? recv_blocks_ : Blocks{}; }
  bool InPlaceHere() const override { return v_.in_place && me_ == root_; }
  std::size_t InPlaceElement(std::size_t e) const override { return recv_blocks_.displs[root_] + e; }
};

// In place, the root passes MPI_IN_PLACE as the receive buffer: its own
// block stays in the send buffer, and it receives nothing.
class Scatter : public Model {
 public:
  Scatter(const Variant& v, MPI_Comm comm)
      : Model(v, comm, false), recv_in_place_(v.in_place && me_ == root_) {}
  NAMES(Scatter)
  int Start(MPI_Request* q) override {
    return MPI_Iscatter(send_.data(), c_, T(), R(), c_, T(), root_, comm_, q);
  }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Scatter, send_.data(), c_, T(), R(), c_, T(), root_, comm_);
  }

 protected:
  void* R() { return recv_in_place_ ? MPI_IN_PLACE : RecvPtr(); }
  Blocks SendBlocks(int r) const override { return Contiguous(r == root_ ? n_ : 0, c_); }
  Blocks RecvBlocks(int) const override { return Contiguous(recv_in_place_ ? 0 : 1, c_); }
  void Sources(int, std::size_t i, std::vector<Source>* out) const override {
    out->push_back({root_, static_cast<std::size_t>(me_) * c_ + i});
  }
  bool InPlaceHere() const override { return false; }

  bool recv_in_place_;
};

class Scatterv : public Scatter {
 public:
  Scatterv(const Variant& v, MPI_Comm comm)
      : Scatter(v, comm), root_blocks_(Gapped(CountsOf(n_, [&](int r) { return VCount(c_, r); }))) {}
  NAMES(Scatterv)
  int Start(MPI_Request* q) override {
    return MPI_Iscatterv(send_.data(), root_blocks_.counts.data(), root_blocks_.displs.data(), T(), R(),
                         VCount(c_, me_), T(), root_, comm_, q);
  }
  int Init(MPI_Request* q) override {
    NBCGUARD_INIT_CALL(Scatterv, send_.data(), root_blocks_.counts.data(), root_blocks_.displs.data(), T(),
                       R(), VCount(c_, me_), T(), root_, comm_);
  }

 protected:
  Blocks SendBlocks(int r) const override { return r == root_ ? root_blocks_ : Blocks{}; }
  Blocks RecvBlocks(int) const override { return Contiguous(recv_in_place_ ? 0 : 1, VCount(c_, me_)); }
  void Sources(int, std::size_t i, std::vector<Source>* out) const override {
    out->push_back({root_, static_cast<std::size_t>(root_blocks_.displs[me_]) + i});
  }

  Blocks root_blocks_;
};

// MPI_Ireduce_scatter_block (every rank c elements) and MPI_Ireduce_scatter
// (per-rank counts). In place, the receive buffer holds the whole input and
// only this rank's part is defined afterwards.
template <bool kBlock>
class ReduceScatter : public Model {
 public:
  ReduceScatter(const Variant& v, MPI_Comm comm) : Model(v, comm, true) {
    int at = 0;
    for (int r = 0; r < n_; ++r) {
      counts_.push_back(kBlock ? c_ : VCount(c_, r));
      offsets_.push_back(at);
      at += counts_.back();
    }
    total_ = at;
  }
  std::string Call(bool p) const override {
    return std::string(p ? (kBlock ? "MPI_Reduce_scatter_block_init" : "MPI_Reduce_scatter_init")
                         : (kBlock ? "MPI_Ireduce_scatter_block" : "MPI_Ireduce_scatter"));
  }
  int Start(MPI_Request* q) override {
    if (kBlock) return MPI_Ireduce_scatter_block(SendPtr(), RecvPtr(), c_, T(), op_, comm_, q);
    return MPI_Ireduce_scatter(SendPtr(), RecvPtr(), counts_.data(), T(), op_, comm_, q);
  }
  int Init(MPI_Request* q) override {
#ifdef NBCGUARD_INIT
    if (kBlock)
      return NBCGUARD_INIT(Reduce_scatter_block)(SendPtr(), RecvPtr(), c_, T(), op_, comm_, MPI_INFO_NULL, q);
    return NBCGUARD_INIT(Reduce_scatter)(SendPtr(), RecvPtr(), counts_.data(), T(), op_, comm_, MPI_INFO_NULL,
                                         q);
#else
    (void)q;
    return MPI_ERR_OTHER;
#endif
  }

 protected:
  Blocks SendBlocks(int) const override { return Contiguous(1, total_); }
  Blocks RecvBlocks(int) const override { return Contiguous(1, v_.in_place ? total_ : counts_[me_]); }
  void Sources(int, std::size_t i, std::vector<Source>* out) const override {
    if (i < static_cast<std::size_t>(counts_[me_])) AllRanks(n_, offsets_[me_] + i, out);
  }

  std::vector<int> counts_, offsets_;
  int total_ = 0;
};

class Barrier : public Model {
 public:
  Barrier(const Variant& v, MPI_Comm comm) : Model(v, comm, false) {}
  NAMES(Barrier)
  int Start(MPI_Request* q) override { return MPI_Ibarrier(comm_, q); }
  int Init(MPI_Request* q) override {
#ifdef NBCGUARD_INIT
    return NBCGUARD_INIT(Barrier)(comm_, MPI_INFO_NULL, q);
#else
    (void)q;
    return MPI_ERR_OTHER;
#endif
  }

 protected:
  Blocks SendBlocks(int) const override { return {}; }
  Blocks RecvBlocks(int) const override { return {}; }
  void Sources(int, std::size_t, std::vector<Source>*) const override {}
  bool InPlaceHere() const override { return false; }
};

// The neighbourhood of this rank in a topology built on the variant's
// communicator: a periodic Cartesian grid (2-D for 4, 6, ... ranks, else
// 1-D), or a distributed graph where rank r sends to r+1 and r+2 and
// receives from r-2 and r-1 (with 2 ranks a self-loop).
struct Neighbourhood {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<int> sources;       // receive block j comes from sources[j] ...
  std::vector<int> source_block;  // ... which sent it as its send block source_block[j]
  int destinations = 0;
};

Neighbourhood MakeNeighbourhood(MPI_Comm parent, const std::string& topology) {
  Neighbourhood nb;
  int me, n;
  MPI_Comm_rank(parent, &me);
  MPI_Comm_size(parent, &n);
  if (topology == "graph") {
    const int src[] = {(me - 2 + 2 * n) % n, (me - 1 + n) % n}, dst[] = {(me + 1) % n, (me + 2) % n};
    MPI_Dist_graph_create_adjacent(parent, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &nb.comm);
    nb.sources = {src[0], src[1]};
    nb.source_block = {1, 0};  // r-2 sends to r as its second destination, r-1 as its first
    nb.destinations = 2;
    return nb;
  }
  // "cart": 2-D when both dimensions have 3 ranks or more, else 1-D;
  // periodic from 3 ranks on, so no rank is its own neighbour or a
  // neighbour twice; with 2 ranks not periodic: the missing neighbours are
  // MPI_PROC_NULL, whose blocks stay untouched. "cart-repeated": a periodic
  // dimension of 2 ranks (n/2 x 2, or a ring of 2), where the other rank is
  // both neighbours of that dimension: MPI-4.0's erratum (mpi-forum
  // mpi-issues 153) keeps the rule below for it, the corner libraries get
  // wrong.
  int dims[2] = {0, 0};
  int ndims = 1;
  if (topology == "cart-repeated") {
    ndims = n >= 4 && n % 2 == 0 ? 2 : 1;
    dims[0] = ndims == 2 ? n / 2 : n;
    dims[1] = 2;
  } else {
    MPI_Dims_create(n, 2, dims);
    ndims = dims[1] >= 3 ? 2 : 1;
    if (ndims == 1) dims[0] = n;
  }
  const int periodic = n >= 3 || topology == "cart-repeated";
  int periods[2] = {periodic, periodic};
  MPI_Cart_create(parent, ndims, dims, periods, 0, &nb.comm);
  // Per dimension d: block 2d goes to / comes from the negative neighbour,
  // block 2d+1 the positive one; what arrives from the negative neighbour
  // is what it sent in the positive direction.
  for (int d = 0; d < ndims; ++d) {
    int negative, positive;
    MPI_Cart_shift(nb.comm, d, 1, &negative, &positive);
    nb.sources.insert(nb.sources.end(), {negative, positive});
    nb.source_block.insert(nb.source_block.end(), {2 * d + 1, 2 * d});
  }
  nb.destinations = 2 * ndims;
  return nb;
}

// The five neighbourhood collectives; kind: allgather, allgatherv,
// alltoall, alltoallv, alltoallw. Count of send block k (v and w):
// c + k % 2.
class Neighbor : public Model {
 public:
  enum Kind { kAllgather, kAllgatherv, kAlltoall, kAlltoallv, kAlltoallw };
  Neighbor(const Variant& v, MPI_Comm comm, Kind kind)
      : Model(v, comm, false), kind_(kind), nb_(MakeNeighbourhood(comm, v.topology)) {
    send_blocks_ = SendBlocks(me_);
    recv_blocks_ = RecvBlocks(me_);
    for (int d : send_blocks_.displs) sbytes_.push_back(static_cast<MPI_Aint>(d * layout_.extent));
    for (int d : recv_blocks_.displs) rbytes_.push_back(static_cast<MPI_Aint>(d * layout_.extent));
    types_.assign(std::max(send_blocks_.counts.size(), recv_blocks_.counts.size()), T());
  }
  ~Neighbor() override { MPI_Comm_free(&nb_.comm); }
  std::string Call(bool p) const override {
    static const char* kNames[] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
    return p ? std::string("MPI_Neighbor_") + kNames[kind_] + "_init"
             : std::string("MPI_Ineighbor_") + kNames[kind_];
  }
  int Start(MPI_Request* q) override {
    void* s = send_.data();
    const Blocks &sb = send_blocks_, &rb = recv_blocks_;
    switch (kind_) {
      case kAllgather:
        return MPI_Ineighbor_allgather(s, c_, T(), RecvPtr(), c_, T(), nb_.comm, q);
      case kAllgatherv:
        return MPI_Ineighbor_allgatherv(s, sb.counts[0], T(), RecvPtr(), rb.counts.data(), rb.displs.data(),
                                        T(), nb_.comm, q);
      case kAlltoall:
        return MPI_Ineighbor_alltoall(s, c_, T(), RecvPtr(), c_, T(), nb_.comm, q);
      case kAlltoallv:
        return MPI_Ineighbor_alltoallv(s, sb.counts.data(), sb.displs.data(), T(), RecvPtr(),
                                       rb.counts.data(), rb.displs.data(), T(), nb_.comm, q);
      case kAlltoallw:
        return MPI_Ineighbor_alltoallw(s, sb.counts.data(), sbytes_.data(), types_.data(), RecvPtr(),
                                       rb.counts.data(), rbytes_.data(), types_.data(), nb_.comm, q);
    }
    return MPI_ERR_OTHER;
  }
  int Init(MPI_Request* q) override {
#ifdef NBCGUARD_INIT
    void* s = send_.data();
    const Blocks &sb = send_blocks_, &rb = recv_blocks_;
    const MPI_Info i = MPI_INFO_NULL;
    switch (kind_) {
      case kAllgather:
        return NBCGUARD_INIT(Neighbor_allgather)(s, c_, T(), RecvPtr(), c_, T(), nb_.comm, i, q);
      case kAllgatherv:
        return NBCGUARD_INIT(Neighbor_allgatherv)(s, sb.counts[0], T(), RecvPtr(), rb.counts.data(),
                                                  rb.displs.data(), T(), nb_.comm, i, q);
      case kAlltoall:
        return NBCGUARD_INIT(Neighbor_alltoall)(s, c_, T(), RecvPtr(), c_, T(), nb_.comm, i, q);
      case kAlltoallv:
        return NBCGUARD_INIT(Neighbor_alltoallv)(s, sb.counts.data(), sb.displs.data(), T(), RecvPtr(),
                                                 rb.counts.data(), rb.displs.data(), T(), nb_.comm, i, q);
      case kAlltoallw:
        return NBCGUARD_INIT(Neighbor_alltoallw)(s, sb.counts.data(), sbytes_.data(), types_.data(),
                                                 RecvPtr(), rb.counts.data(), rbytes_.data(), types_.data(),
                                                 nb_.comm, i, q);
    }
#endif
    (void)q;
    return MPI_ERR_OTHER;
  }

 protected:
  bool V() const { return kind_ == kAllgatherv || kind_ == kAlltoallv || kind_ == kAlltoallw; }
  bool ToAll() const { return kind_ == kAllgather || kind_ == kAllgatherv; }
  int BlockCount(int k) const { return !V() || c_ == 0 ? c_ : c_ + k % 2; }
  // allgatherv: one send block whose count depends on the sender's rank.
  int AllgathervCount(int r) const { return VCount(c_, r); }
  Blocks SendBlocks(int r) const override {
    if (kind_ == kAllgatherv) return Contiguous(1, AllgathervCount(r));
    if (ToAll()) return Contiguous(1, c_);
    const std::vector<int> c = CountsOf(nb_.destinations, [&](int k) { return BlockCount(k); });
    return V() ? Gapped(c) : Contiguous(nb_.destinations, c_);
  }
  Blocks RecvBlocks(int) const override {
    std::vector<int> c;
    for (std::size_t j = 0; j < nb_.sources.size(); ++j)
      c.push_back(kind_ == kAllgatherv ? AllgathervCount(nb_.sources[j]) : BlockCount(nb_.source_block[j]));
    return V() ? Gapped(c) : Contiguous(static_cast<int>(c.size()), c_);
  }
  void Sources(int j, std::size_t i, std::vector<Source>* out) const override {
    const int src = nb_.sources[j];
    if (src == MPI_PROC_NULL) return;
    const std::size_t at =
        ToAll() ? 0 : static_cast<std::size_t>(SendBlocks(src).displs[nb_.source_block[j]]);
    out->push_back({src, at + i});
  }
  bool InPlaceHere() const override { return false; }

  Kind kind_;
  Neighbourhood nb_;
  Blocks send_blocks_, recv_blocks_;
  std::vector<MPI_Aint> sbytes_, rbytes_;
  std::vector<MPI_Datatype> types_;
};

template <class T>
std::unique_ptr<Check> Make(const Variant& v, MPI_Comm c) {
  return std::make_unique<T>(v, c);
}
template <Neighbor::Kind K>
std::unique_ptr<Check> MakeNeighbor(const Variant& v, MPI_Comm c) {
  return std::make_unique<Neighbor>(v, c, K);
}

using Factory = std::unique_ptr<Check> (*)(const Variant&, MPI_Comm);
struct Entry {
  CollectiveInfo info;
  Factory make;
};

constexpr unsigned kMove = kDatatypeDim;  // data movement: any datatype
constexpr unsigned kReduction = kOpDim;

const std::vector<Entry>& Registry() {
  static const std::vector<Entry> entries = {
      {{"ibcast", kRootDim | kMove}, Make<Bcast>},
      {{"ireduce", kRootDim | kInPlaceDim | kReduction}, Make<Reduce>},
      {{"iallreduce", kInPlaceDim | kReduction}, Make<Allreduce>},
      {{"iallgather", kInPlaceDim | kMove}, Make<Allgather>},
      {{"iallgatherv", kInPlaceDim | kMove}, Make<Allgatherv>},
      {{"ialltoall", kInPlaceDim | kMove}, Make<Alltoall>},
      {{"ialltoallv", kInPlaceDim | kMove}, Make<Alltoallv<false>>},
      {{"ialltoallw", kInPlaceDim | kMove}, Make<Alltoallv<true>>},
      {{"igather", kRootDim | kInPlaceDim | kMove}, Make<Gather>},
      {{"igatherv", kRootDim | kInPlaceDim | kMove}, Make<Gatherv>},
      {{"iscatter", kRootDim | kInPlaceDim | kMove}, Make<Scatter>},
      {{"iscatterv", kRootDim | kInPlaceDim | kMove}, Make<Scatterv>},
      {{"ireduce_scatter_block", kInPlaceDim | kReduction}, Make<ReduceScatter<true>>},
      {{"ireduce_scatter", kInPlaceDim | kReduction}, Make<ReduceScatter<false>>},
      {{"iscan", kInPlaceDim | kReduction}, Make<Scan<false>>},
      {{"iexscan", kInPlaceDim | kReduction}, Make<Scan<true>>},
      {{"ibarrier", 0}, Make<Barrier>},
      {{"ineighbor_allgather", kTopologyDim | kMove}, MakeNeighbor<Neighbor::kAllgather>},
      {{"ineighbor_allgatherv", kTopologyDim | kMove}, MakeNeighbor<Neighbor::kAllgatherv>},
      {{"ineighbor_alltoall", kTopologyDim | kMove}, MakeNeighbor<Neighbor::kAlltoall>},
      {{"ineighbor_alltoallv", kTopologyDim | kMove}, MakeNeighbor<Neighbor::kAlltoallv>},
      {{"ineighbor_alltoallw", kTopologyDim | kMove}, MakeNeighbor<Neighbor::kAlltoallw>},
  };
  return entries;
}

}  // namespace

std::string Variant::Label(unsigned dims) const {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : " ") + part; };
  if (dims & kTopologyDim) add("topology=" + topology);
  if (dims & kRootDim) add("root=" + std::to_string(root));
  if ((dims & kInPlaceDim) && in_place) add("in_place");
  if (dims & kDatatypeDim) add("datatype=" + datatype);
  if (dims & kOpDim) add("op=" + op);
  add("comm=" + comm);
  add("count=" + std::to_string(count));
  if (persistent) add("persistent");
  return s;
}

const std::vector<CollectiveInfo>& Collectives() {
  static const std::vector<CollectiveInfo> infos = [] {
    std::vector<CollectiveInfo> v;
    for (const Entry& e : Registry()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

const CollectiveInfo* FindCollective(const std::string& name) {
  for (const CollectiveInfo& c : Collectives())
    if (name == c.name) return &c;
  return nullptr;
}

std::unique_ptr<Check> MakeCheck(const std::string& collective, const Variant& v, MPI_Comm comm,
                                 std::string* skip) {
  if (v.persistent && PersistentSource().empty()) {
    *skip = NoPersistentReason();
    return nullptr;
  }
  for (const Entry& e : Registry())
    if (collective == e.info.name) return e.make(v, comm);
  throw std::invalid_argument("unknown collective " + collective);
}

}  // namespace nbcguard::conformance
