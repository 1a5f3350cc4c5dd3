#include "collectives.h"

#include "nbcguard/pattern.h"

namespace nbcguard {

namespace {

// Shared plumbing: communicator facts and the two buffers. Each collective
// says how big they are, what to send, how to start, and what to expect.
class Base : public Collective {
 public:
  explicit Base(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
  }
  void Resize(std::uint64_t count) override {
    count_ = count;
    send_.assign(SendElems(count), 0);
    recv_.assign(RecvElems(count), 0);
  }
  std::uint64_t BytesPerRank(std::uint64_t count) const override { return 4 * SendElems(count); }
  std::uint64_t MaxCount(std::uint64_t budget) const override {
    const std::uint64_t per = SendElems(1) + RecvElems(1);
    return per == 0 ? 1 : budget / (4 * per);
  }
  void Fill(int rep) override {
    FillSend(rep);
    std::fill(recv_.begin(), recv_.end(), -1);
  }
  void Corrupt() override {
    std::vector<std::int32_t>& delivered = recv_.empty() ? send_ : recv_;  // ibcast delivers in place
    if (!delivered.empty()) delivered[0] ^= 0x40;
  }

 protected:
  virtual std::uint64_t SendElems(std::uint64_t count) const = 0;
  virtual std::uint64_t RecvElems(std::uint64_t count) const = 0;
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
  int rank_ = 0, size_ = 1;
  std::uint64_t count_ = 0;
  std::vector<std::int32_t> send_, recv_;
};

class Ibcast : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t) const override { return 0; }
  void FillSend(int rep) override {  // the root's data; others get overwritten
    if (rank_ != 0) {
      std::fill(send_.begin(), send_.end(), -1);
      return;
    }
    Base::FillSend(rep);
  }
  int Start(MPI_Request* q) override { return MPI_Ibcast(send_.data(), Count(), MPI_INT32_T, 0, comm_, q); }
  int Blocking() override { return MPI_Bcast(send_.data(), Count(), MPI_INT32_T, 0, comm_); }
  std::string Verify(int rep) const override {
    return CheckBlocks("broadcast buffer", send_, 0,
                       [&](std::uint64_t, std::uint64_t e) { return Pattern(0, rep, e); });
  }
};

class Ireduce : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }  // root only uses it
  int Start(MPI_Request* q) override {
    return MPI_Ireduce(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, 0, comm_, q);
  }
  int Blocking() override {
    return MPI_Reduce(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, 0, comm_);
  }
  std::string Verify(int rep) const override {
    if (rank_ != 0) return {};
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(size_, rep, e); });
  }
};

class Iallreduce : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  int Start(MPI_Request* q) override {
    return MPI_Iallreduce(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_, q);
  }
  int Blocking() override {
    return MPI_Allreduce(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_);
  }
  std::string Verify(int rep) const override {
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(size_, rep, e); });
  }
};

class Iallgather : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c * size_; }
  int Start(MPI_Request* q) override {
    return MPI_Iallgather(send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T, comm_, q);
  }
  int Blocking() override {
    return MPI_Allgather(send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T, comm_);
  }
  std::string Verify(int rep) const override {
    return Expect(count_,
                  [&](std::uint64_t b, std::uint64_t e) { return Pattern(static_cast<int>(b), rep, e); });
  }
};

class Ialltoall : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c * size_; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c * size_; }
  int Start(MPI_Request* q) override {
    return MPI_Ialltoall(send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T, comm_, q);
  }
  int Blocking() override {
    return MPI_Alltoall(send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T, comm_);
  }
  // Block j of rank r's send buffer goes to rank j, so rank k receives in
  // block r the elements r sent at offsets k*count + e.
  std::string Verify(int rep) const override {
    return Expect(count_, [&](std::uint64_t src, std::uint64_t e) {
      return Pattern(static_cast<int>(src), rep, rank_ * count_ + e);
    });
  }
};

class Igather : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c * size_; }
  int Start(MPI_Request* q) override {
    return MPI_Igather(send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T, 0, comm_, q);
  }
  int Blocking() override {
    return MPI_Gather(send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T, 0, comm_);
  }
  std::string Verify(int rep) const override {
    if (rank_ != 0) return {};
    return Expect(count_,
                  [&](std::uint64_t b, std::uint64_t e) { return Pattern(static_cast<int>(b), rep, e); });
  }
};

class Iscatter : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c * size_; }  // root only uses it
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  int Start(MPI_Request* q) override {
    return MPI_Iscatter(send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T, 0, comm_, q);
  }
  int Blocking() override {
    return MPI_Scatter(send_.data(), Count(), MPI_INT32_T, recv_.data(), Count(), MPI_INT32_T, 0, comm_);
  }
  std::string Verify(int rep) const override {
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return Pattern(0, rep, rank_ * count_ + e); });
  }
};

class IreduceScatterBlock : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c * size_; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  int Start(MPI_Request* q) override {
    return MPI_Ireduce_scatter_block(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_, q);
  }
  int Blocking() override {
    return MPI_Reduce_scatter_block(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_);
  }
  std::string Verify(int rep) const override {
    return Expect(
        0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(size_, rep, rank_ * count_ + e); });
  }
};

class Iscan : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  int Start(MPI_Request* q) override {
    return MPI_Iscan(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_, q);
  }
  int Blocking() override {
    return MPI_Scan(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_);
  }
  std::string Verify(int rep) const override {
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(rank_ + 1, rep, e); });
  }
};

class Iexscan : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t c) const override { return c; }
  std::uint64_t RecvElems(std::uint64_t c) const override { return c; }
  int Start(MPI_Request* q) override {
    return MPI_Iexscan(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_, q);
  }
  int Blocking() override {
    return MPI_Exscan(send_.data(), recv_.data(), Count(), MPI_INT32_T, MPI_SUM, comm_);
  }
  std::string Verify(int rep) const override {
    if (rank_ == 0) return {};  // undefined on rank 0 by the standard
    return Expect(0, [&](std::uint64_t, std::uint64_t e) { return SumOverRanks(rank_, rep, e); });
  }
};

class Ibarrier : public Base {
  using Base::Base;
  std::uint64_t SendElems(std::uint64_t) const override { return 0; }
  std::uint64_t RecvElems(std::uint64_t) const override { return 0; }
  int Start(MPI_Request* q) override { return MPI_Ibarrier(comm_, q); }
  int Blocking() override { return MPI_Barrier(comm_); }
  std::string Verify(int) const override { return {}; }
  std::uint64_t MaxCount(std::uint64_t) const override { return 1; }
  bool HasSize() const override { return false; }
};

template <class T>
std::unique_ptr<Collective> Make(MPI_Comm comm) {
  return std::make_unique<T>(comm);
}

}  // namespace

std::unique_ptr<Collective> MakeCollective(const std::string& name, MPI_Comm comm) {
  using Factory = std::unique_ptr<Collective> (*)(MPI_Comm);
  static const std::pair<const char*, Factory> kRegistry[] = {
      {"ibcast", Make<Ibcast>},         {"ireduce", Make<Ireduce>},
      {"iallreduce", Make<Iallreduce>}, {"iallgather", Make<Iallgather>},
      {"ialltoall", Make<Ialltoall>},   {"igather", Make<Igather>},
      {"iscatter", Make<Iscatter>},     {"ireduce_scatter_block", Make<IreduceScatterBlock>},
      {"iscan", Make<Iscan>},           {"iexscan", Make<Iexscan>},
      {"ibarrier", Make<Ibarrier>},
  };
  for (const auto& [n, make] : kRegistry)
    if (name == n) return make(comm);
  return nullptr;
}

}  // namespace nbcguard
