// libFuzzer target: any bytes as a threshold file. ParseThresholdSpec must
// return thresholds or errors, never crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "nbcguard/threshold_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto parsed = nbcguard::ParseThresholdSpec(text, "fuzz.yaml");
  if (!parsed.ok()) (void)parsed.ErrorText();
  return 0;
}
