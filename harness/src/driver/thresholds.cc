#include "thresholds.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "nbcguard/driver_common.h"

namespace nbcguard {

bool LoadThresholds(const Config& cfg, std::vector<ThresholdSpec>* specs) {
  bool ok = true;
  int layer = 0;
  for (const std::string& dir : cfg.thresholds_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      std::cerr << "error: threshold directory " << dir << " (" << cfg.path
                << ") is not a readable directory\n";
      ok = false;
    }
    for (const std::filesystem::path& f : YamlFiles(dir)) {
      Parsed<ThresholdSpec> p = LoadThresholdSpec(f.string());
      if (!p.ok()) {
        std::cerr << p.ErrorText() << "\n";
        ok = false;
      } else {
        specs->push_back(*p.value);
        specs->back().layer = layer;
      }
    }
    ++layer;
  }
  return ok;
}

std::string ApplySystem(const std::string& option, Config* cfg) {
  std::string from = cfg->path + " (system)";
  if (!option.empty()) {
    cfg->system = option;
    from = "--system";
  } else if (const char* env = std::getenv("NBCGUARD_SYSTEM"); env && *env) {
    cfg->system = env;
    from = "NBCGUARD_SYSTEM";
  }
  return SystemNameError(cfg->system, from);
}

std::string SystemNameError(const std::string& name, const std::string& from) {
  if (name.empty() || IsSystemName(name)) return "";
  return from + " is '" + name +
         "'; a system name is 1-64 letters, digits, '.', '_' and '-', starting with a letter or digit (as "
         "rules' match.system), or empty for none";
}

TestContext JudgedContext(const Config& cfg, const TestInstance& test) {
  TestContext c = test.Context();
  c.system = cfg.system;
  return c;
}

LibraryThresholds ThresholdsFor(const RawRun& raw, const std::vector<ThresholdSpec>& specs) {
  LibraryThresholds t;
  const std::string version = raw.context.value("library_version", "");
  t.version_line = FirstLine(version);
  t.lib = IdentifyLibrary(version, specs);
  t.spec = SelectThresholds(specs, t.lib, &t.ambiguous);
  return t;
}

std::string NoThresholdsMessage(const std::vector<std::string>& thresholds_dirs, const LibraryThresholds& t) {
  if (!t.ambiguous.empty()) return t.ambiguous;
  const LibraryId& lib = t.lib;
  std::string dirs;
  for (const std::string& d : thresholds_dirs) dirs += (dirs.empty() ? "" : ", ") + d;
  std::string message = "no threshold file in " + dirs + " matches the running library (" +
                        (lib.implementation.empty() ? "unknown" : lib.implementation) +
                        (lib.version.empty() ? "" : " " + lib.version) + ", from: " + t.version_line + "); ";
  if (lib.implementation == "unknown")
    return message +
           "add one with 'implementation: <a name of yours>' and 'identified_by: <a text of that line>' "
           "(docs/site-thresholds.md)";
  return message + "add one with 'implementation: " + lib.implementation +
         "' and a 'versions:' range containing " + lib.version;
}

std::string NoRuleHint(const TestContext& test, const std::string& threshold_file) {
  const bool partitioned = test.kind == CaseKind::kPartitioned;
  std::string labels;
  for (const std::string& l : test.labels) labels += (labels.empty() ? "" : ", ") + l;
  const std::string system = test.system.empty() ? "" : ", system: " + test.system;
  std::string match = partitioned
                          ? "{kind: partitioned, nodes: " + std::to_string(test.nodes) + system + "}"
                          : "{collective: " + test.collective + ", deployment: " + ToString(test.deployment) +
                                ", nodes: " + std::to_string(test.nodes) + system + "}";
  std::string hint =
      "hint: no rule of " + threshold_file + " matches this test (" +
      (partitioned ? std::string("partitioned")
                   : "collective " + test.collective + ", deployment " + ToString(test.deployment)) +
      ", " + std::to_string(test.nodes) + " ranks, labels: " + labels +
      (test.system.empty() ? std::string() : ", system " + test.system) +
      "). Add one to that file, its limits above the envelope measured on this machine "
      "(nbcguard envelope --write-thresholds writes a starting file from a few runs):\n";
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
