// libFuzzer target: any bytes as a case file. ParseCaseSpec must return a
// case or errors, never crash, hang or read out of bounds (AddressSanitizer
// and UndefinedBehaviorSanitizer watch it).
#include <cstddef>
#include <cstdint>
#include <string>

#include "nbcguard/case_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto parsed = nbcguard::ParseCaseSpec(text, "fuzz.yaml");
  if (!parsed.ok()) (void)parsed.ErrorText();
  return 0;
}
