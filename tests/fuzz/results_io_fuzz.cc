// libFuzzer target: any bytes as a results.json. ParseResults validates the
// document against the schema and never throws; a document it accepts must
// be one the readers can walk (IsPartitioned reads "kind").
#include <cstddef>
#include <cstdint>
#include <string>

#include "nbcguard/results_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto read = nbcguard::ParseResults(text, "fuzz.json");
  if (read.ok()) (void)read.doc->IsPartitioned();
  return 0;
}
