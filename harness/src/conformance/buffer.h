// Typed buffers with guard bytes for the conformance checks. A buffer holds
// `elements` elements of a datatype (Layout) between two guard zones; every
// byte starts with a value that depends on the buffer's seed (so holes and
// guards differ between ranks and buffers), and a check afterwards compares
// every byte the call must not write with what it held before the call.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nbcguard::conformance {

// A datatype as the checks see it: one element holds offsets.size() int32
// values at those byte offsets within `extent` bytes; the other bytes of
// the extent are holes a library must leave alone.
struct Layout {
  std::string name;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::size_t extent = 4;
  std::vector<std::size_t> offsets{0};
  bool derived = false;  // committed by MakeLayout, freed by FreeLayout
  std::size_t slots() const { return offsets.size(); }
};

// "int": MPI_INT32_T. "vector": MPI_Type_vector(2, 1, 3, MPI_INT32_T)
// resized to 16 bytes (values at 0 and 12). "struct": two int32 at 0 and 8
// (MPI_Type_create_struct), resized to 16 bytes. "pair": two contiguous
// int32, the operand of the non-commutative operation.
Layout MakeLayout(const std::string& name);
void FreeLayout(Layout& layout);
const std::vector<std::string>& DatatypeNames();  // int, vector, struct

// What one value must hold after the call.
struct Want {
  enum Kind { kValue, kUntouched, kAny } kind = kUntouched;
  std::int32_t value = 0;
  static Want Value(std::int32_t v) { return {kValue, v}; }
};

class Buffer {
 public:
  static constexpr std::size_t kGuard = 64;
  // Allocates and fills every byte from `seed`; values are set afterwards.
  void Reset(const Layout& layout, std::size_t elements, unsigned seed);
  void* data() { return bytes_.data() + kGuard; }
  std::size_t elements() const { return elements_; }
  void Set(std::size_t slot, std::int32_t value);  // slot = element * slots + j
  std::int32_t Get(std::size_t slot) const;
  void Snapshot() { before_ = bytes_; }  // what "untouched" compares with
  // "" when every value is as `want` says and every other byte (holes,
  // guards, untouched values) holds what it held at Snapshot(); else the
  // first difference: "<what> element E value J: expected V, got W" or
  // "<what> byte B (hole of element E | guard before | guard after):
  // changed from 0xAA to 0xBB".
  std::string Check(const char* what, const std::function<Want(std::size_t slot)>& want) const;

 private:
  std::size_t extent_ = 4, elements_ = 0;
  std::vector<std::size_t> offsets_;
  std::vector<unsigned char> bytes_, before_;
};

}  // namespace nbcguard::conformance
