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

std::string NoRuleHint(const TestContext& test, const std::string& threshold_file) {
  const bool partitioned = test.kind == CaseKind::kPartitioned;
  std::string labels;
  for (const std::string& l : test.labels) labels += (labels.empty() ? "" : ", ") + l;
  std::string match = partitioned
                          ? "{kind: partitioned, nodes: " + std::to_string(test.nodes) + "}"
                          : "{collective: " + test.collective + ", deployment: " + ToString(test.deployment) +
                                ", nodes: " + std::to_string(test.nodes) + "}";
  std::string hint =
      "hint: no rule of " + threshold_file + " matches this test (" +
      (partitioned ? std::string("partitioned")
                   : "collective " + test.collective + ", deployment " + ToString(test.deployment)) +
      ", " + std::to_string(test.nodes) + " ranks, labels: " + labels +
      "). Add one to that file, its limits above the envelope measured on this machine:\n";
  hint += "  - name: <a name of your own>\n";
  hint +=
      "    source: >-\n      measured <date>, <machine>: nbcguard envelope --per-point <results dirs of a few runs>\n";
  hint += "    match: " + match + "\n";
  hint += partitioned ? "    limits: {r_partitioned: {min: <below the smallest CI upper bound>}}\n"
                      : "    limits: {r_overhead: {max: <above the largest CI lower bound>}}\n";
  hint += "  (docs/thresholds.md, \"Setting limits for a machine\")\n";
  return hint;
}

}  // namespace nbcguard
