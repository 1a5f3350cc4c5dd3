#include "collectives.h"

#include <cmath>
#include <functional>
#include <numeric>

#include "comm.h"
#include "nbcguard/pattern.h"
#include "nbcguard/raw_records.h"
#include "nbcguard/stats.h"
#include "persistent.h"

// Start, Blocking and Init of one collective from its one argument list:
// MPI_<NB>(args..., request), MPI_<B>(args...) and the persistent
// MPI_<B>_init(args..., MPI_INFO_NULL, request) (persistent.h).
// Start and Blocking may write the delivered buffer: what Fill knew of its
// content no longer holds (Delivering).
#define NBCGUARD_CALLS(NB, B, ...)     \
  int Start(MPI_Request* q) override { \
    Delivering();                      \
    return MPI_##NB(__VA_ARGS__, q);   \
  }                                    \
  int Blocking() override {            \
    Delivering();                      \
    return MPI_##B(__VA_ARGS__);       \
  }                                    \
  int Init(MPI_Request* q) override { NBCGUARD_INIT_CALL(B, __VA_ARGS__); }

namespace nbcguard {

double Collective::InitSeconds() const { return std::nan(""); }

namespace {

// Shared plumbing: communicator facts and the two buffers. Each collective
// says how big they are, what to send, how to start, and what to expect.
class Base : public Collective {
 public:
  // root: the rooted collectives' root (-1: the last rank).
  explicit Base(MPI_Comm comm, int root = 0) : comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    root_ = root < 0 ? size_ - 1 : root;
  }
  void Resize(std::uint64_t count) override {
    count_ = count;
    send_.assign(SendElems(count), 0);
    recv_.assign(RecvElems(count), 0);
    content_ = Content::kUnknown;
  }
  std::uint64_t BytesPerRank(std::uint64_t count) const override { return 4 * SendElems(count); }
  std::uint64_t MaxCount(std::uint64_t budget) const override {
    const std::uint64_t per = SendElems(1) + RecvElems(1);
    return per == 0 ? 1 : budget / (4 * per);
  }
  // The send data of `rep`, and -1 in the buffer the call delivers into
  // unless what it holds already differs from everything `rep` must deliver
  // there (StaleDiffers): an element the call fails to write is then caught
  // by Verify all the same, and a pass over the buffer is saved.
  void Fill(int rep) override {
    FillSend(rep);
    if (StaleDiffers(rep)) return;
    ResetDelivered();
    content_ = Content::kReset;
  }
  // Check's verdict; a buffer found right holds `rep`'s values.
  std::string Verify(int rep) const final {
    std::string wrong = Check(rep);
    content_ = wrong.empty() ? Content::kChecked : Content::kUnknown;
    content_rep_ = rep;
    return wrong;
  }
  void Delivering() override { content_ = Content::kUnknown; }
  void Corrupt() override {
    std::vector<std::int32_t>& delivered = recv_.empty() ? send_ : recv_;  // ibcast delivers in place
    if (!delivered.empty()) delivered[0] ^= 0x40;
  }

 protected:
  virtual std::uint64_t SendElems(std::uint64_t count) const = 0;
  virtual std::uint64_t RecvElems(std::uint64_t count) const = 0;
  // Empty when what `rep` delivered is right; else what is wrong.
  virtual std::string Check(int rep) const = 0;
  // -1 in every element of the buffer the call delivers into: a value no
  // pattern, nor sum of patterns, takes.
  virtual void ResetDelivered() { std::fill(recv_.begin(), recv_.end(), -1); }
  // Default: element i of the send buffer carries Pattern(rank, rep, i).
  virtual void FillSend(int rep) {
    FillBlocks(send_, 0, [&](std::uint64_t, std::uint64_t e) { return Pattern(rank_, rep, e); });
  }
  // Checks that the receive buffer holds, in each block of block_len
  // elements (0: one block), expected(block, offset) (pattern.h).
  std::string Expect(std::uint64_t block_len, const BlockValue& expected) const {
    return CheckBlocks("receive buffer", recv_, block_len, expected);
  }
  std::int32_t SumOverRanks(int upto, int rep, std::uint64_t i) const {
    std::int32_t s = 0;
    for (int r = 0; r < upto; ++r) s += Pattern(r, rep, i);
    return s;
  }
  int Count() const { return static_cast<int>(count_); }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, root_ = 0;
  std::uint64_t count_ = 0;
  std::vector<std::int32_t> send_, recv_;

 private:
  // What the delivered buffer holds: unknown (after Resize, and from a
  // call's start until Verify finds it right), -1 everywhere (kReset), or
  // what repetition content_rep_ had to deliver, checked (kChecked). In the
  // last two a gap, or a block from MPI_PROC_NULL, holds -1.
  enum class Content { kUnknown, kReset, kChecked };
  bool StaleDiffers(int rep) const {
    return content_ == Content::kReset ||
           (content_ == Content::kChecked && RepetitionsDifferEverywhere(content_rep_, rep, size_));
  }
  mutable Content content_ = Content::kUnknown;
  mutable int content_rep_ = 0;
};

class Ibcast : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t) const override { return 0; }
  // The root's data; the others' buffer is the one delivered into.
  void FillSend(int rep) override {
    if (rank_ == root_) Base::FillSend(rep);
  }
  void ResetDelivered() override {
    if (rank_ != root_) std::fill(send_.begin(), send_.end(), -1);
  }
  NBCGUARD_CALLS(Ibcast, Bcast, send_.data(), Count(), MPI_INT32_T, root_, comm_)
  std::string Check(int rep) const override {
    return CheckBlocks("broadcast buffer", send_, 0,
                       [&](std::uint64_t, std::uint64_t e) { return Pattern(root_, rep, e); });
  }
};

class Ireduce : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }  // root only uses it
  NBCGUARD_CALLS(Ireduce, Reduce, send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, root_, comm_)
  std::string Check(int rep) const override {
    if (rank_ != root_) return {};
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(size_, rep, e); });
  }
};

class Iallreduce : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  NBCGUARD_CALLS(Iallreduce, Allreduce, send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_)
  std::string Check(int rep) const override {
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(size_, rep, e); });
  }
};

class Iallgather : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c * size_; }
  NBCGUARD_CALLS(Iallgather, Allgather, send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(),
                 MPI_INT32_T, comm_)
  std::string Check(int rep) const override {
    return Expect(count_,
                  [&](std::uint64_t b, std::uint64_t e) { return Pattern(static_cast<int>(b), rep, e); });
  }
};

class Ialltoall : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c * size_; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c * size_; }
  NBCGUARD_CALLS(Ialltoall, Alltoall, send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T,
                 comm_)
  // Block j of rank r's send buffer goes to rank j, so rank k receives in
  // block r the elements r sent at offsets k*count + e.
  std::string Check(int rep) const override {
    return Expect(count_, [&](std::uint64_t src, std::uint64_t e) {
      return Pattern(static_cast<int>(src), rep, rank_ * count_ + e);
    });
  }
};

class Igather : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c * size_; }
  NBCGUARD_CALLS(Igather, Gather, send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T,
                 root_, comm_)
  std::string Check(int rep) const override {
    if (rank_ != root_) return {};
    return Expect(count_,
                  [&](std::uint64_t b, std::uint64_t e) { return Pattern(static_cast<int>(b), rep, e); });
  }
};

class Iscatter : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c * size_; }  // root only uses it
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  NBCGUARD_CALLS(Iscatter, Scatter, send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T,
                 root_, comm_)
  std::string Check(int rep) const override {
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return Pattern(root_, rep, rank_ * count_ + e); });
  }
};

class IreduceScatterBlock : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c * size_; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  NBCGUARD_CALLS(Ireduce_scatter_block, Reduce_scatter_block, send_.data(), recv_.data(), Count(),
                 MPI_INT32_T, MPI_SUM, comm_)
  std::string Check(int rep) const override {
    return Expect(
        0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(size_, rep, rank_ * count_ + e); });
  }
};

class Iscan : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  NBCGUARD_CALLS(Iscan, Scan, send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_)
  std::string Check(int rep) const override {
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(rank_ + 1, rep, e); });
  }
};

class Iexscan : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  NBCGUARD_CALLS(Iexscan, Exscan, send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_)
  std::string Check(int rep) const override {
    if (rank_ == 0) return {};  // undefined on rank 0 by the standard
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(rank_, rep, e); });
  }
};

class Ibarrier : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t) const override { return 0; }
  std::uint64_t RecvElems(std::uint64_t) const override { return 0; }
  NBCGUARD_CALLS(Ibarrier, Barrier, comm_)
  std::string Check(int) const override { return {}; }
  std::uint64_t MaxCount(std::uint64_t) const override { return 1; }
  bool HasSize() const override { return false; }
};

// Where a v-collective's blocks lie in a buffer, in elements: block j is
// counts[j] elements from displs[j] (the arrays MPI takes).
struct Layout {
  std::vector<int> counts, displs;
  std::uint64_t size = 0;  // elements, gaps included

  std::uint64_t DataElems() const { return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}); }
  std::vector<PlacedBlock> Blocks() const {
    std::vector<PlacedBlock> blocks;
    for (std::size_t j = 0; j < counts.size(); ++j)
      blocks.push_back({static_cast<std::uint64_t>(displs[j]), static_cast<std::uint64_t>(counts[j])});
    return blocks;
  }
  // For the -w collectives, which take displacements in bytes.
  template <class Disp>
  std::vector<Disp> ByteDispls() const {
    std::vector<Disp> bytes;
    for (int d : displs) bytes.push_back(static_cast<Disp>(d) * 4);
    return bytes;
  }
};

// n blocks of len(j) elements, one after the other, each followed by `gap`
// elements that the call must leave alone.
Layout Lay(int n, std::uint64_t gap, const std::function<std::uint64_t(int)>& len) {
  Layout l;
  for (int j = 0; j < n; ++j) {
    l.counts.push_back(static_cast<int>(len(j)));
    l.displs.push_back(static_cast<int>(l.size));
    l.size += len(j) + gap;
  }
  return l;
}

// The v-collectives' block lengths: the block `rank` sends as its block
// `block` is one element longer when rank + block is odd, so the ranks'
// blocks, and a rank's neighbouring blocks, differ in length, while the
// bytes stay within half an element per block of the equal-block twin
// (whose calibrated sizes and speeds they are compared with).
std::uint64_t Len(std::uint64_t count, int rank, int block = 0) { return count + (rank + block) % 2; }

// Shared plumbing of the collectives with per-block counts: their buffers
// follow a Layout, with one gap element after each receive block and each
// send block that has a displacement, so a wrong count or displacement
// shows up as a -1 delivered or a gap overwritten. Send block j element e
// carries Pattern(rank, rep, j * count + e), as in the equal-block twin.
class Placed : public Base {
 public:
  using Base::Base;
  void Resize(std::uint64_t count) override {
    send_layout_ = SendLayout(count);
    recv_layout_ = RecvLayout(count);
    Base::Resize(count);
  }
  std::uint64_t BytesPerRank(std::uint64_t count) const override { return 4 * SendLayout(count).DataElems(); }
  // The same on every rank, whose layouts differ (all ranks must calibrate
  // over the same counts): a block has at most count + 1 elements and a gap.
  std::uint64_t MaxCount(std::uint64_t budget) const override {
    const std::uint64_t blocks = SendLayout(0).counts.size() + RecvLayout(0).counts.size();
    const std::uint64_t m = budget / (4 * blocks);
    return m > 2 ? m - 2 : 1;
  }

 protected:
  virtual Layout SendLayout(std::uint64_t count) const = 0;
  virtual Layout RecvLayout(std::uint64_t count) const = 0;
  std::uint64_t SendElems(std::uint64_t c) const override { return SendLayout(c).size; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return RecvLayout(c).size; }
  void FillSend(int rep) override {  // gaps -1: no receive block expects one
    FillBlocks(send_, send_layout_.Blocks(), -1,
               [&](std::uint64_t b, std::uint64_t e) { return Pattern(rank_, rep, b * count_ + e); });
  }
  // This rank's one block; one block per rank, for rank r.
  Layout Mine(std::uint64_t c, std::uint64_t gap) const {
    return Lay(1, gap, [&](int) { return Len(c, rank_); });
  }
  Layout PerRank(std::uint64_t c, std::uint64_t gap) const {
    return Lay(size_, gap, [&](int r) { return Len(c, r); });
  }
  // Receive block b holds expected(b, e), every gap still -1 (Fill).
  std::string ExpectPlaced(const BlockValue& expected) const {
    return CheckBlocks("receive buffer", recv_, recv_layout_.Blocks(), -1, expected);
  }

  Layout send_layout_, recv_layout_;
};

class Igatherv : public Placed {
  using Placed::Placed;
  Layout SendLayout(std::uint64_t c) const override { return Mine(c, 0); }
  Layout RecvLayout(std::uint64_t c) const override { return PerRank(c, 1); }  // root only uses it
  NBCGUARD_CALLS(Igatherv, Gatherv, send_.data(), send_layout_.counts[0], MPI_INT32_T, recv_.data(),
                 recv_layout_.counts.data(), recv_layout_.displs.data(), MPI_INT32_T, root_, comm_)
  std::string Check(int rep) const override {
    if (rank_ != root_) return {};
    return ExpectPlaced(
        [&](std::uint64_t b, std::uint64_t e) { return Pattern(static_cast<int>(b), rep, e); });
  }
};

class Iscatterv : public Placed {
  using Placed::Placed;
  Layout SendLayout(std::uint64_t c) const override { return PerRank(c, 1); }  // root only uses it
  Layout RecvLayout(std::uint64_t c) const override { return Mine(c, 1); }
  NBCGUARD_CALLS(Iscatterv, Scatterv, send_.data(), send_layout_.counts.data(), send_layout_.displs.data(),
                 MPI_INT32_T, recv_.data(), recv_layout_.counts[0], MPI_INT32_T, root_, comm_)
  std::string Check(int rep) const override {
    return ExpectPlaced(
        [&](std::uint64_t, std::uint64_t e) { return Pattern(root_, rep, rank_ * count_ + e); });
  }
};

class Iallgatherv : public Placed {
  using Placed::Placed;
  Layout SendLayout(std::uint64_t c) const override { return Mine(c, 0); }
  Layout RecvLayout(std::uint64_t c) const override { return PerRank(c, 1); }
  NBCGUARD_CALLS(Iallgatherv, Allgatherv, send_.data(), send_layout_.counts[0], MPI_INT32_T, recv_.data(),
                 recv_layout_.counts.data(), recv_layout_.displs.data(), MPI_INT32_T, comm_)
  std::string Check(int rep) const override {
    return ExpectPlaced(
        [&](std::uint64_t b, std::uint64_t e) { return Pattern(static_cast<int>(b), rep, e); });
  }
};

// Rank s sends Len(count, s, d) elements to rank d.
class Ialltoallv : public Placed {
  using Placed::Placed;
  Layout SendLayout(std::uint64_t c) const override {
    return Lay(size_, 1, [&](int d) { return Len(c, rank_, d); });
  }
  Layout RecvLayout(std::uint64_t c) const override {
    return Lay(size_, 1, [&](int s) { return Len(c, s, rank_); });
  }
  NBCGUARD_CALLS(Ialltoallv, Alltoallv, send_.data(), send_layout_.counts.data(), send_layout_.displs.data(),
                 MPI_INT32_T, recv_.data(), recv_layout_.counts.data(), recv_layout_.displs.data(),
                 MPI_INT32_T, comm_)
  // Block s is what rank s sent as its block `rank`.
  std::string Check(int rep) const override {
    return ExpectPlaced([&](std::uint64_t s, std::uint64_t e) {
      return Pattern(static_cast<int>(s), rep, rank_ * count_ + e);
    });
  }
};

// ialltoallv's blocks and data, described as -w takes them: a datatype per
// peer (all MPI_INT32_T) and displacements in bytes.
class Ialltoallw : public Ialltoallv {
  using Ialltoallv::Ialltoallv;
  void Resize(std::uint64_t count) override {
    Ialltoallv::Resize(count);
    types_.assign(size_, MPI_INT32_T);
    send_bytes_ = send_layout_.ByteDispls<int>();
    recv_bytes_ = recv_layout_.ByteDispls<int>();
  }
  NBCGUARD_CALLS(Ialltoallw, Alltoallw, send_.data(), send_layout_.counts.data(), send_bytes_.data(),
                 types_.data(), recv_.data(), recv_layout_.counts.data(), recv_bytes_.data(), types_.data(),
                 comm_)
  std::vector<MPI_Datatype> types_;
  std::vector<int> send_bytes_, recv_bytes_;
};

// Rank r receives the sum of every rank's block r, of Len(count, r)
// elements. MPI takes no displacements here: the send blocks are adjacent.
class IreduceScatter : public Placed {
  using Placed::Placed;
  Layout SendLayout(std::uint64_t c) const override { return PerRank(c, 0); }
  Layout RecvLayout(std::uint64_t c) const override { return Mine(c, 1); }
  NBCGUARD_CALLS(Ireduce_scatter, Reduce_scatter, send_.data(), recv_.data(), send_layout_.counts.data(),
                 MPI_INT32_T, MPI_SUM, comm_)
  std::string Check(int rep) const override {
    return ExpectPlaced(
        [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(size_, rep, rank_ * count_ + e); });
  }
};

// The neighbourhood collectives' topology: a ring over comm's ranks (no
// reordering, so the same ranks), periodic from 3 ranks on. Its neighbours
// are in the standard's order, per dimension the source (negative
// direction) then the destination: left, right. With 2 ranks it is not
// periodic: a periodic ring of 2 makes the other rank both neighbours, a
// corner where Debian 12's MPICH 4.0.2 (ineighbor_alltoallv, -w) and Open
// MPI 4.1.4 (ineighbor_alltoall) pair the blocks against the standard
// (docs/conformance.md tests it); measuring overlap on it would end every
// 2-rank case as a conformance failure. The missing neighbour is
// MPI_PROC_NULL: nothing is sent to it, its receive block stays -1.
// MPI_Cart_create is collective: every rank makes the collective.
class Ring {
 public:
  explicit Ring(MPI_Comm comm) {
    int dims = 0;
    MPI_Comm_size(comm, &dims);
    const int periods = dims >= 3 ? 1 : 0;
    CheckMpi(MPI_Cart_create(comm, 1, &dims, &periods, 0, &cart_), "MPI_Cart_create");
    CheckMpi(MPI_Cart_shift(cart_, 0, 1, &neighbour_[0], &neighbour_[1]), "MPI_Cart_shift");
  }
  ~Ring() {
    if (cart_ != MPI_COMM_NULL) MPI_Comm_free(&cart_);
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  MPI_Comm comm() const { return cart_; }
  // What neighbour b (0: left, 1: right) sent at element i, or the -1 a
  // receive block from MPI_PROC_NULL keeps.
  std::int32_t From(std::uint64_t b, int rep, std::uint64_t i) const {
    return neighbour_[b] == MPI_PROC_NULL ? -1 : Pattern(neighbour_[b], rep, i);
  }
  // Neighbour b's rank, or `self` for MPI_PROC_NULL (a block length only).
  int Peer(std::uint64_t b, int self) const { return neighbour_[b] == MPI_PROC_NULL ? self : neighbour_[b]; }

 private:
  MPI_Comm cart_ = MPI_COMM_NULL;
  int neighbour_[2] = {MPI_PROC_NULL, MPI_PROC_NULL};
};

class IneighborAllgather : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return 2 * c; }
  NBCGUARD_CALLS(Ineighbor_allgather, Neighbor_allgather, send_.data(), Count(), MPI_INT32_T, recv_.data(),
                 Count(), MPI_INT32_T, ring_.comm())
  std::string Check(int rep) const override {
    return Expect(count_, [&](std::uint64_t b, std::uint64_t e) { return ring_.From(b, rep, e); });
  }
  Ring ring_{comm_};
};

// Block b of a rank's send buffer goes to its neighbour b, and arrives
// there as block 1 - b (MPI-4.1 8.6: what is sent to the right comes in
// from the left), also when both neighbours are the same rank.
class IneighborAlltoall : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return 2 * c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return 2 * c; }
  NBCGUARD_CALLS(Ineighbor_alltoall, Neighbor_alltoall, send_.data(), Count(), MPI_INT32_T, recv_.data(),
                 Count(), MPI_INT32_T, ring_.comm())
  std::string Check(int rep) const override {
    return Expect(count_,
                  [&](std::uint64_t b, std::uint64_t e) { return ring_.From(b, rep, (1 - b) * count_ + e); });
  }
  Ring ring_{comm_};
};

class IneighborAllgatherv : public Placed {
  using Placed::Placed;
  Layout SendLayout(std::uint64_t c) const override { return Mine(c, 0); }
  Layout RecvLayout(std::uint64_t c) const override {
    return Lay(2, 1, [&](int b) { return Len(c, ring_.Peer(b, rank_)); });
  }
  NBCGUARD_CALLS(Ineighbor_allgatherv, Neighbor_allgatherv, send_.data(), send_layout_.counts[0], MPI_INT32_T,
                 recv_.data(), recv_layout_.counts.data(), recv_layout_.displs.data(), MPI_INT32_T,
                 ring_.comm())
  std::string Check(int rep) const override {
    return ExpectPlaced([&](std::uint64_t b, std::uint64_t e) { return ring_.From(b, rep, e); });
  }
  Ring ring_{comm_};
};

// As ineighbor_alltoall, with a rank's block b of Len(count, rank, b)
// elements: block b arrives from neighbour b, which sent it as its 1 - b.
class IneighborAlltoallv : public Placed {
 protected:
  using Placed::Placed;
  Layout SendLayout(std::uint64_t c) const override {
    return Lay(2, 1, [&](int b) { return Len(c, rank_, b); });
  }
  Layout RecvLayout(std::uint64_t c) const override {
    return Lay(2, 1, [&](int b) { return Len(c, ring_.Peer(b, rank_), 1 - b); });
  }
  NBCGUARD_CALLS(Ineighbor_alltoallv, Neighbor_alltoallv, send_.data(), send_layout_.counts.data(),
                 send_layout_.displs.data(), MPI_INT32_T, recv_.data(), recv_layout_.counts.data(),
                 recv_layout_.displs.data(), MPI_INT32_T, ring_.comm())
  std::string Check(int rep) const override {
    return ExpectPlaced(
        [&](std::uint64_t b, std::uint64_t e) { return ring_.From(b, rep, (1 - b) * count_ + e); });
  }
  Ring ring_{comm_};
};

// ineighbor_alltoallv's blocks and data, as -w takes them: a datatype per
// neighbour (all MPI_INT32_T) and displacements in bytes (MPI_Aint here).
class IneighborAlltoallw : public IneighborAlltoallv {
  using IneighborAlltoallv::IneighborAlltoallv;
  void Resize(std::uint64_t count) override {
    IneighborAlltoallv::Resize(count);
    send_bytes_ = send_layout_.ByteDispls<MPI_Aint>();
    recv_bytes_ = recv_layout_.ByteDispls<MPI_Aint>();
  }
  NBCGUARD_CALLS(Ineighbor_alltoallw, Neighbor_alltoallw, send_.data(), send_layout_.counts.data(),
                 send_bytes_.data(), types_, recv_.data(), recv_layout_.counts.data(), recv_bytes_.data(),
                 types_, ring_.comm())
  const MPI_Datatype types_[2] = {MPI_INT32_T, MPI_INT32_T};
  std::vector<MPI_Aint> send_bytes_, recv_bytes_;
};

template <class T>
std::unique_ptr<Collective> Make(MPI_Comm comm, int root) {
  return std::make_unique<T>(comm, root);
}

// A collective made persistent: after each Resize, MPI_<Coll>_init on the
// new buffers (timed record::kInitTimings times; all but the last request freed at
// once); each Start is MPI_Start on that request. MPI_Wait on a started
// persistent request leaves the handle allocated and inactive, so the
// caller's copy in *request is waited on as a nonblocking one would be.
// Init calls are collective: every rank resizes to the same counts.
class Persistent : public Collective {
 public:
  explicit Persistent(std::unique_ptr<Collective> inner) : inner_(std::move(inner)) {}
  ~Persistent() override { Free(); }
  Persistent(const Persistent&) = delete;
  Persistent& operator=(const Persistent&) = delete;

  void Resize(std::uint64_t count) override {
    Free();
    inner_->Resize(count);
    std::vector<double> seconds;
    for (int i = 0; i < record::kInitTimings; ++i) {
      MPI_Request q = MPI_REQUEST_NULL;
      const double t0 = MPI_Wtime();
      CheckMpi(inner_->Init(&q), "persistent collective init (MPI_<Coll>_init)");
      seconds.push_back(MPI_Wtime() - t0);
      if (i + 1 < record::kInitTimings) {
        CheckMpi(MPI_Request_free(&q), "MPI_Request_free (persistent collective)");
      } else {
        request_ = q;
      }
    }
    init_seconds_ = Median(seconds);
  }
  void Fill(int rep) override { inner_->Fill(rep); }
  int Start(MPI_Request* request) override {
    inner_->Delivering();
    const int rc = MPI_Start(&request_);
    *request = request_;
    return rc;
  }
  int Init(MPI_Request* request) override { return inner_->Init(request); }
  void Delivering() override { inner_->Delivering(); }
  double InitSeconds() const override { return init_seconds_; }
  int Blocking() override { return inner_->Blocking(); }
  std::string Verify(int rep) const override { return inner_->Verify(rep); }
  std::uint64_t BytesPerRank(std::uint64_t count) const override { return inner_->BytesPerRank(count); }
  std::uint64_t MaxCount(std::uint64_t budget) const override { return inner_->MaxCount(budget); }
  void Corrupt() override { inner_->Corrupt(); }
  bool HasSize() const override { return inner_->HasSize(); }

 private:
  void Free() {
    if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
  }
  std::unique_ptr<Collective> inner_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  double init_seconds_ = std::nan("");
};

}  // namespace

std::unique_ptr<Collective> MakeCollective(const std::string& name, MPI_Comm comm, bool persistent,
                                           int root) {
  if (persistent) {
    std::unique_ptr<Collective> inner = MakeCollective(name, comm, false, root);
    return inner ? std::make_unique<Persistent>(std::move(inner)) : nullptr;
  }
  using Factory = std::unique_ptr<Collective> (*)(MPI_Comm, int);
  static const std::pair<const char*, Factory> kRegistry[] = {
      {"ibcast", Make<Ibcast>},
      {"ireduce", Make<Ireduce>},
      {"iallreduce", Make<Iallreduce>},
      {"iallgather", Make<Iallgather>},
      {"ialltoall", Make<Ialltoall>},
      {"igather", Make<Igather>},
      {"iscatter", Make<Iscatter>},
      {"ireduce_scatter_block", Make<IreduceScatterBlock>},
      {"iscan", Make<Iscan>},
      {"iexscan", Make<Iexscan>},
      {"ibarrier", Make<Ibarrier>},
      {"igatherv", Make<Igatherv>},
      {"iscatterv", Make<Iscatterv>},
      {"iallgatherv", Make<Iallgatherv>},
      {"ialltoallv", Make<Ialltoallv>},
      {"ialltoallw", Make<Ialltoallw>},
      {"ireduce_scatter", Make<IreduceScatter>},
      {"ineighbor_allgather", Make<IneighborAllgather>},
      {"ineighbor_allgatherv", Make<IneighborAllgatherv>},
      {"ineighbor_alltoall", Make<IneighborAlltoall>},
      {"ineighbor_alltoallv", Make<IneighborAlltoallv>},
      {"ineighbor_alltoallw", Make<IneighborAlltoallw>},
  };
  for (const auto& [n, make] : kRegistry)
    if (name == n) return make(comm, root);
  return nullptr;
}

}  // namespace nbcguard
