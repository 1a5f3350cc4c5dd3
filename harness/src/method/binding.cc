#include "nbcguard/binding.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <set>
#include <utility>

namespace nbcguard {

using json = nlohmann::json;

namespace {

constexpr std::array<std::pair<BindingPolicy, const char*>, 2> kBindings = {{
    {BindingPolicy::kCores, "cores"},
    {BindingPolicy::kNone, "none"},
}};
constexpr std::array<std::pair<OversubscribePolicy, const char*>, 2> kOversubscribe = {{
    {OversubscribePolicy::kRefuse, "refuse"},
    {OversubscribePolicy::kAllow, "allow"},
}};

template <class E, std::size_t N>
const char* NameOf(const std::array<std::pair<E, const char*>, N>& table, E value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "unknown";
}

template <class E, std::size_t N>
std::optional<E> ValueOf(const std::array<std::pair<E, const char*>, N>& table, const std::string& name) {
  for (const auto& [v, text] : table)
    if (name == text) return v;
  return std::nullopt;
}

template <class E, std::size_t N>
std::vector<std::string> NamesOf(const std::array<std::pair<E, const char*>, N>& table) {
  std::vector<std::string> out;
  out.reserve(N);
  for (const auto& entry : table) out.emplace_back(entry.second);
  return out;
}

}  // namespace

const char* ToString(BindingPolicy b) { return NameOf(kBindings, b); }
std::optional<BindingPolicy> ParseBindingPolicy(const std::string& name) { return ValueOf(kBindings, name); }
const std::vector<std::string>& BindingPolicyNames() {
  static const std::vector<std::string> names = NamesOf(kBindings);
  return names;
}

const char* ToString(OversubscribePolicy o) { return NameOf(kOversubscribe, o); }
std::optional<OversubscribePolicy> ParseOversubscribePolicy(const std::string& name) {
  return ValueOf(kOversubscribe, name);
}
const std::vector<std::string>& OversubscribePolicyNames() {
  static const std::vector<std::string> names = NamesOf(kOversubscribe);
  return names;
}

std::vector<NodeSlot> NodeSlots(const std::vector<std::string>& keys) {
  std::map<std::string, int> count;
  for (const std::string& k : keys) ++count[k];
  std::map<std::string, int> next;
  std::vector<NodeSlot> out;
  out.reserve(keys.size());
  for (const std::string& k : keys) out.push_back({next[k]++, count[k]});
  return out;
}

int AutoCoresPerRank(int usable_cores, int local_ranks, int launcher_cores) {
  int share = usable_cores / std::max(1, local_ranks);
  if (launcher_cores > 0) share = std::min(share, launcher_cores);
  return std::max(1, share);
}

RankBlock BlockOf(const NodeTopology& topo, int local_rank, int threads, int reserve) {
  const std::vector<int> all = topo.AllCores();
  RankBlock b;
  if (all.empty()) return b;
  const int size = std::max(1, threads) + std::max(0, reserve);
  const std::size_t first = static_cast<std::size_t>(local_rank) * static_cast<std::size_t>(size);
  for (int i = 0; i < size; ++i) {
    const int core = all[(first + static_cast<std::size_t>(i)) % all.size()];
    if (i < threads) b.compute.push_back(core);
    if (std::find(b.cores.begin(), b.cores.end(), core) == b.cores.end()) b.cores.push_back(core);
  }
  return b;
}

std::vector<int> MaskCores(const NodeTopology& topo, const std::vector<int>& cpus) {
  std::set<int> cores;
  for (int cpu : cpus)
    if (const int core = topo.CoreOf(cpu); core >= 0) cores.insert(core);
  return {cores.begin(), cores.end()};
}

int DistinctCores(const std::vector<std::vector<int>>& masks, int need) {
  // Kuhn's augmenting paths: slot s (rank s / need) takes a core of its
  // rank's mask, or one whose holder can move to another of its own.
  std::map<int, int> holder;  // core -> slot
  const int slots = static_cast<int>(masks.size()) * need;
  int matched = 0;
  for (int s = 0; s < slots; ++s) {
    std::set<int> seen;
    std::function<bool(int)> place = [&](int slot) {
      for (int core : masks[static_cast<std::size_t>(slot / need)]) {
        if (!seen.insert(core).second) continue;
        const auto it = holder.find(core);
        if (it == holder.end() || place(it->second)) {
          holder[core] = slot;
          return true;
        }
      }
      return false;
    };
    if (place(s)) ++matched;
  }
  return matched;
}

namespace {

// "4 ranks x 1 thread(s)", "2 ranks x (1 thread(s) + 1 core kept free)".
std::string Need(const NodeDemand& d) {
  const std::string threads = std::to_string(d.threads) + " thread(s)";
  return std::to_string(d.ranks) + " ranks x " +
         (d.reserve > 0 ? "(" + threads + " + " + std::to_string(d.reserve) + " core(s) kept free)"
                        : threads);
}

}  // namespace

std::string Oversubscription(const NodeDemand& d) {
  const int per_rank = d.threads + d.reserve;
  const std::string where = " (" + d.host + ": " + d.topology + ")";
  if (d.ranks * per_rank > d.usable_cores)
    return "oversubscribed: " + Need(d) + " on this node's " + std::to_string(d.usable_cores) + " cores" +
           where;
  if (d.launcher_cores.empty()) return "";
  const int given = DistinctCores(d.launcher_cores, per_rank);
  if (given >= d.ranks * per_rank) return "";
  std::string masks;
  for (std::size_t r = 0; r < d.launcher_cores.size(); ++r)
    masks += (masks.empty() ? "" : ", ") + std::string("rank ") + std::to_string(r) + ": " +
             FormatCpuList(d.launcher_cores[r]);
  return "oversubscribed: binding none keeps the launcher's masks, which give " + Need(d) + " only " +
         std::to_string(given) + " core(s) of their own of the " + std::to_string(d.ranks * per_rank) +
         " needed on this node" + where + ", node-local " + masks;
}

std::string OversubscribedSkipReason(const std::string& oversubscription) {
  return oversubscription +
         ": ranks sharing cores slow each other's computation down, and the ratios would compare processes "
         "that share cores; 'oversubscribe: allow' in the case measures it anyway, every point INVALID";
}

std::string OversubscribedPointReason(const std::string& oversubscription) {
  return "the ratios compare processes that share cores (" + oversubscription + ", oversubscribe: allow)";
}

std::string RankCpusArg(const std::vector<std::vector<int>>& per_rank) {
  std::string out;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    if (r > 0) out += "/";
    for (std::size_t i = 0; i < per_rank[r].size(); ++i)
      out += (i > 0 ? "," : "") + std::to_string(per_rank[r][i]);
  }
  return out;
}

namespace {

std::vector<int> Ints(const json& j) {
  std::vector<int> out;
  if (j.is_array())
    for (const json& v : j)
      if (v.is_number_integer()) out.push_back(v.get<int>());
  return out;
}

// A rank's computation cpus: "cpu 0", "cpus 0,1" (the union of its threads' masks).
std::string ThreadCpus(const json& rank) {
  std::set<int> cpus;
  for (const json& t : rank.value("thread_cpus", json::array()))
    for (int c : Ints(t)) cpus.insert(c);
  const std::vector<int> list(cpus.begin(), cpus.end());
  std::string s = (list.size() == 1 ? "cpu " : "cpus ") + FormatCpuList(list);
  const std::vector<int> block = Ints(rank.value("process_cpus", json::array()));
  if (!block.empty() && block != list) s += " (process " + FormatCpuList(block) + ")";
  return s;
}

std::string Who(const json& b) {
  const std::string policy = b.value("policy", "?");
  if (policy == "cores") return "cores (by nbcguard)";
  if (policy == "none") return "none (the launcher's)";
  return policy + " " + b.value("placement", "?") + " (by nbcguard, thread-" + b.value("placement", "?") +
         ")";
}

}  // namespace

std::string BindingLine(const json& b) {
  const json ranks = b.value("ranks", json::array());
  std::set<std::string> hosts;
  for (const json& r : ranks) hosts.insert(r.value("host", ""));
  std::string line = "binding: " + Who(b) + ":";
  std::string each, launcher;
  for (const json& r : ranks) {
    each += std::string(each.empty() ? " " : ", ") + "rank " + std::to_string(r.value("rank", -1)) + " " +
            ThreadCpus(r) + (hosts.size() > 1 ? " on " + r.value("host", "") : "");
    launcher += (launcher.empty() ? "" : " / ") + FormatCpuList(Ints(r.value("launcher_cpus", json())));
  }
  line += each;
  return line + "; launcher gave " + launcher;
}

}  // namespace nbcguard
