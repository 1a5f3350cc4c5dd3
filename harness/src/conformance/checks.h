// The conformance checks of one nonblocking (or persistent) collective with
// one variant. A check owns its buffers and argument arrays (they live until
// the call completes), fills the send data of a repetition, starts the call
// and verifies afterwards that every rank's receive buffer holds what the
// MPI standard says (computed from every rank's data, in rank order for
// reductions), that values outside the result, holes of derived datatypes
// and guard bytes around every buffer are untouched, and that the send
// buffer did not change.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "persistent.h"  // PersistentSource(): where this library's persistent collectives come from

namespace nbcguard::conformance {

// The variant dimensions a collective takes.
enum Dimension : unsigned {
  kRootDim = 1,      // any rank as root
  kInPlaceDim = 2,   // MPI_IN_PLACE
  kDatatypeDim = 4,  // a basic type, a vector, a struct with holes
  kOpDim = 8,        // sum, max, a non-commutative user operation
  kTopologyDim = 16  // neighbourhood collectives: Cartesian or distributed graph
};

struct Variant {
  int root = 0;
  bool in_place = false;
  std::string datatype = "int";  // DatatypeNames()
  std::string op = "sum";        // sum, max, noncomm
  std::string comm = "world";    // world, reversed (a split with reversed ranks), dup
  std::string topology = "cart";
  std::uint64_t count = 7;  // elements per block (v-variants: per-rank counts around it)
  bool persistent = false;
  // The dimensions that apply, e.g. "root=3 in_place op=noncomm comm=reversed count=7".
  std::string Label(unsigned dims) const;
};

class Check {
 public:
  virtual ~Check() = default;
  virtual void Fill(int rep) = 0;  // the send data of repetition rep
  virtual int Start(MPI_Request* request) = 0;
  virtual int Init(MPI_Request* request) = 0;  // persistent: MPI_<Coll>_init
  virtual std::string Verify(int rep) const = 0;
  // "MPI_Ibcast" or "MPI_Bcast_init": what the messages name.
  virtual std::string Call(bool persistent) const = 0;
};

struct CollectiveInfo {
  const char* name;
  unsigned dims;
};
const std::vector<CollectiveInfo>& Collectives();
const CollectiveInfo* FindCollective(const std::string& name);

// `comm` is the variant's communicator; neighbourhood collectives build
// their topology on it. nullptr with *skip set when the library lacks the
// call.
std::unique_ptr<Check> MakeCheck(const std::string& collective, const Variant& v, MPI_Comm comm,
                                 std::string* skip);

}  // namespace nbcguard::conformance
