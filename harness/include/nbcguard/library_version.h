// Which MPI library is running, from MPI_Get_library_version's string, and
// version ranges (">=4.0 <5") used to select a threshold file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

struct LibraryId {
  std::string implementation;  // "openmpi", "mpich", or "unknown"
  std::string version;         // "4.1.4"; empty when not found
};

// "Open MPI v4.1.4, package: ..." -> {openmpi, 4.1.4};
// "MPICH Version:\t4.0.2\n..." -> {mpich, 4.0.2}.
LibraryId IdentifyLibrary(const std::string& version_string);

// The library named `implementation`, its version the token after the
// first occurrence of `marker` in the string (empty when none).
LibraryId IdentifyLibrary(const std::string& version_string, const std::string& marker,
                          const std::string& implementation);

// Compares dotted versions numerically component by component ("4.10" >
// "4.9"; missing components are 0). Returns -1, 0, 1.
int CompareVersions(const std::string& a, const std::string& b);

// A conjunction of comparisons separated by spaces: ">=4.0 <5", "==4.1.4",
// "*" (any). Operators: >= > <= < ==.
class VersionRange {
 public:
  static std::optional<VersionRange> Parse(const std::string& text, std::string* error);
  bool Contains(const std::string& version) const;
  const std::string& text() const { return text_; }

 private:
  struct Term {
    std::string op;
    std::string version;
  };
  std::string text_;
  std::vector<Term> terms_;
};

}  // namespace nbcguard
