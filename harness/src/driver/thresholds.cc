#include "thresholds.h"

#include <iostream>

#include "nbcguard/driver_common.h"

namespace nbcguard {

bool LoadThresholds(const Config& cfg, std::vector<ThresholdSpec>* specs) {
  bool ok = true;
  for (const std::filesystem::path& f : YamlFiles(cfg.thresholds_dir)) {
    Parsed<ThresholdSpec> p = LoadThresholdSpec(f.string());
    if (!p.ok()) {
      std::cerr << p.ErrorText() << "\n";
      ok = false;
    } else {
      specs->push_back(*p.value);
    }
  }
  return ok;
}

LibraryThresholds ThresholdsFor(const RawRun& raw, const std::vector<ThresholdSpec>& specs) {
  LibraryThresholds t;
  const std::string version = raw.context.value("library_version", "");
  t.version_line = FirstLine(version);
  t.lib = IdentifyLibrary(version);
  t.spec = SelectThresholds(specs, t.lib, &t.ambiguous);
  return t;
}

std::string NoThresholdsMessage(const std::string& thresholds_dir, const LibraryThresholds& t) {
  if (!t.ambiguous.empty()) return t.ambiguous;
  const LibraryId& lib = t.lib;
  return "no threshold file in " + thresholds_dir + " matches the running library (" +
         (lib.implementation.empty() ? "unknown" : lib.implementation) + " " + lib.version +
         ", from: " + t.version_line + "); add one with 'implementation: " + lib.implementation +
         "' and a 'versions:' range containing " + lib.version;
}

}  // namespace nbcguard
