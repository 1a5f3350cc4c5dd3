#include "rank_binding.h"

#include <fstream>
#include <functional>
#include <map>

#include "nbcguard/raw_records.h"

namespace nbcguard {
namespace {

using json = nlohmann::json;

std::string KernelId() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (std::getline(f, id) && !id.empty()) return "boot " + id;
  return "host " + Hostname();
}

// rank 0's answer, broadcast; `decide` runs on rank 0 over every rank's `mine`.
std::string DecideOnRoot(const Comm& comm, const json& mine,
                         const std::function<std::string(const std::vector<json>&)>& decide) {
  std::vector<json> all;
  for (const std::string& s : comm.GatherStrings(mine.dump())) all.push_back(json::parse(s));
  return comm.BcastString(comm.rank() == 0 ? decide(all) : std::string());
}

}  // namespace

std::optional<NodeView> ViewNode(const ModeContext& c, std::string* error) {
  const std::string slots = DecideOnRoot(c.comm, KernelId(), [](const std::vector<json>& keys) {
    std::vector<std::string> k;
    k.reserve(keys.size());
    for (const json& key : keys) k.push_back(key.get<std::string>());
    json out = json::array();
    for (const NodeSlot& s : NodeSlots(k)) out.push_back({s.local_rank, s.local_ranks});
    return out.dump();
  });
  const json mine = json::parse(slots)[c.comm.rank()];
  NodeView v;
  v.slot = {mine[0].get<int>(), mine[1].get<int>()};
  v.host = Hostname();
  std::string own;
  std::optional<NodeTopology> topo = TopologyFromHwloc("", &own);
  if (topo) v.topo = *topo;
  *error = c.comm.FirstError(own);
  if (!error->empty()) return std::nullopt;
  return v;
}

int CoresPerRank(const ModeContext& c, const NodeView& node, BindingPolicy policy) {
  if (c.o.threads > 0) return c.o.threads;
  const int launcher =
      policy == BindingPolicy::kNone ? static_cast<int>(MaskCores(node.topo, c.o.launch_cpus).size()) : 0;
  const int mine = AutoCoresPerRank(node.topo.cores(), node.slot.local_ranks, launcher);
  return static_cast<int>(-c.comm.Max(-mine));
}

std::string AgreedOversubscription(const ModeContext& c, const NodeView& node, int threads,
                                   BindingPolicy policy) {
  const json mine = {{"key", KernelId()},
                     {"host", node.host},
                     {"topology", node.topo.Describe()},
                     {"usable", node.topo.cores()},
                     {"launcher_cores", MaskCores(node.topo, c.o.launch_cpus)}};
  return DecideOnRoot(c.comm, mine, [&](const std::vector<json>& ranks) {
    std::map<std::string, NodeDemand> nodes;
    for (const json& r : ranks) {
      NodeDemand& d = nodes[r["key"].get<std::string>()];
      d.host = r["host"];
      d.topology = r["topology"];
      d.usable_cores = r["usable"];
      d.threads = threads;
      d.reserve = c.o.reserve;
      ++d.ranks;
      if (policy == BindingPolicy::kNone)
        d.launcher_cores.push_back(r["launcher_cores"].get<std::vector<int>>());
    }
    for (const auto& [key, d] : nodes)
      if (std::string why = Oversubscription(d); !why.empty()) return why;
    return std::string();
  });
}

bool BindToBlock(const ModeContext& c, const NodeView& node, BindingPolicy policy, ComputeTeam& team,
                 std::vector<int>* process_cpus, std::string* error) {
  std::string own;
  if (policy == BindingPolicy::kCores) {
    const RankBlock block = BlockOf(node.topo, node.slot.local_rank, team.threads(), c.o.reserve);
    // The process first (the library's threads get the whole block), then
    // each computation thread on its core of it.
    if (BindProcess(block.cores, &own) && team.Bind(block.compute, &own)) *process_cpus = block.cores;
  } else {
    *process_cpus = c.o.launch_cpus;
  }
  *error = c.comm.FirstError(own);
  return error->empty();
}

void RecordBinding(ModeContext& c, const NodeView& node, const ComputeTeam& team, const BindingFacts& facts) {
  const json mine = {{"rank", c.comm.rank()},
                     {"host", node.host},
                     {"node_rank", node.slot.local_rank},
                     {"node_ranks", node.slot.local_ranks},
                     {"launcher_cpus", c.o.launch_cpus},
                     {"process_cpus", facts.process_cpus},
                     {"thread_cpus", TeamThreadCpus(team)}};
  json ranks = json::array();
  for (const std::string& r : c.comm.GatherStrings(mine.dump())) ranks.push_back(json::parse(r));
  json record = {{"policy", facts.policy},
                 {"oversubscribe", c.o.oversubscribe},
                 {"oversubscribed", !facts.oversubscription.empty()},
                 {"oversubscription", facts.oversubscription},
                 {"topology", node.topo.Describe()},
                 {"ranks", ranks}};
  if (!facts.placement.empty()) record["placement"] = facts.placement;
  c.raw.Write(record::kBinding, record);
}

}  // namespace nbcguard
