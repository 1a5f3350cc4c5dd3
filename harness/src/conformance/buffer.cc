#include "buffer.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace nbcguard::conformance {

namespace {

MPI_Datatype Commit(MPI_Datatype t, std::size_t extent) {
  MPI_Datatype resized;
  MPI_Type_create_resized(t, 0, static_cast<MPI_Aint>(extent), &resized);
  MPI_Type_free(&t);
  MPI_Type_commit(&resized);
  return resized;
}

}  // namespace

Layout MakeLayout(const std::string& name) {
  Layout l;
  l.name = name;
  if (name == "int") {
    l.type = MPI_INT32_T;
    return l;
  }
  l.derived = true;
  MPI_Datatype t;
  if (name == "vector") {
    MPI_Type_vector(2, 1, 3, MPI_INT32_T, &t);
    l.offsets = {0, 12};
    l.extent = 16;
  } else if (name == "struct") {
    const int lengths[] = {1, 1};
    const MPI_Aint displs[] = {0, 8};
    const MPI_Datatype types[] = {MPI_INT32_T, MPI_INT32_T};
    MPI_Type_create_struct(2, lengths, displs, types, &t);
    l.offsets = {0, 8};
    l.extent = 16;
  } else if (name == "pair") {
    MPI_Type_contiguous(2, MPI_INT32_T, &t);
    l.offsets = {0, 4};
    l.extent = 8;
  } else {
    throw std::invalid_argument("unknown datatype " + name);
  }
  l.type = Commit(t, l.extent);
  return l;
}

void FreeLayout(Layout& layout) {
  if (layout.derived) MPI_Type_free(&layout.type);
  layout.derived = false;
}

const std::vector<std::string>& DatatypeNames() {
  static const std::vector<std::string> names = {"int", "vector", "struct"};
  return names;
}

void Buffer::Reset(const Layout& layout, std::size_t elements, unsigned seed) {
  extent_ = layout.extent;
  offsets_ = layout.offsets;
  elements_ = elements;
  bytes_.resize(2 * kGuard + elements * extent_);
  for (std::size_t i = 0; i < bytes_.size(); ++i)
    bytes_[i] = static_cast<unsigned char>(0xA5 ^ (std::size_t{seed} * 29 + i * 7));
  before_.clear();
}

void Buffer::Set(std::size_t slot, std::int32_t value) {
  const std::size_t n = offsets_.size();
  std::memcpy(bytes_.data() + kGuard + slot / n * extent_ + offsets_[slot % n], &value, sizeof value);
}

std::int32_t Buffer::Get(std::size_t slot) const {
  const std::size_t n = offsets_.size();
  std::int32_t v;
  std::memcpy(&v, bytes_.data() + kGuard + slot / n * extent_ + offsets_[slot % n], sizeof v);
  return v;
}

std::string Buffer::Check(const char* what, const std::function<Want(std::size_t slot)>& want) const {
  char msg[256];
  const std::size_t n = offsets_.size();
  // Bytes that hold a value the call may write: every other byte must be
  // as before.
  std::vector<bool> value_byte(bytes_.size(), false);
  for (std::size_t slot = 0; slot < elements_ * n; ++slot) {
    const std::size_t at = kGuard + slot / n * extent_ + offsets_[slot % n];
    const Want w = want(slot);
    if (w.kind == Want::kUntouched) continue;
    for (std::size_t b = 0; b < 4; ++b) value_byte[at + b] = true;
    const std::int32_t got = Get(slot);
    if (w.kind == Want::kValue && got != w.value) {
      std::snprintf(msg, sizeof msg, "%s element %zu value %zu: expected %d, got %d", what, slot / n,
                    slot % n, w.value, got);
      return msg;
    }
  }
  for (std::size_t i = 0; i < bytes_.size(); ++i) {
    if (value_byte[i] || bytes_[i] == before_[i]) continue;
    const std::size_t area = elements_ * extent_;
    if (i < kGuard)
      std::snprintf(msg, sizeof msg, "%s guard before the buffer, byte %zu: changed from 0x%02x to 0x%02x",
                    what, kGuard - i, before_[i], bytes_[i]);
    else if (i >= kGuard + area)
      std::snprintf(msg, sizeof msg, "%s guard after the buffer, byte %zu: changed from 0x%02x to 0x%02x",
                    what, i - kGuard - area, before_[i], bytes_[i]);
    else {
      const std::size_t e = (i - kGuard) / extent_, off = (i - kGuard) % extent_;
      bool in_value = false;
      for (std::size_t o : offsets_) in_value = in_value || (off >= o && off < o + 4);
      std::snprintf(msg, sizeof msg, "%s element %zu byte %zu (%s): changed from 0x%02x to 0x%02x", what, e,
                    off, in_value ? "a value outside the result" : "a hole of the datatype", before_[i],
                    bytes_[i]);
    }
    return msg;
  }
  return {};
}

}  // namespace nbcguard::conformance
