#include "nbcguard/spec_error.h"

namespace nbcguard {

std::string SpecError::ToString() const {
  std::string out = where.file;
  if (where.line > 0) {
    out += ':' + std::to_string(where.line);
    if (where.column > 0) out += ':' + std::to_string(where.column);
  }
  return out + ": " + message;
}

}  // namespace nbcguard
