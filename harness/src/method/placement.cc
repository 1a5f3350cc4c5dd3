#include "nbcguard/placement.h"

#include <hwloc.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <set>

namespace nbcguard {

const char* ToString(PlacementPolicy p) {
  switch (p) {
    case PlacementPolicy::kBind:
      return "bind";
    case PlacementPolicy::kNuma:
      return "numa";
    case PlacementPolicy::kOddEven:
      return "odd-even";
  }
  return "unknown";
}

int NodeTopology::cores() const {
  int n = 0;
  for (const auto& numa : numa_cores) n += static_cast<int>(numa.size());
  return n;
}

std::vector<int> NodeTopology::AllCores() const {
  std::vector<int> all;
  for (const auto& numa : numa_cores) all.insert(all.end(), numa.begin(), numa.end());
  return all;
}

int NodeTopology::CoreOf(int pu) const {
  if (!pu_core.empty()) {
    const auto it = pu_core.find(pu);
    return it == pu_core.end() ? -1 : it->second;
  }
  const std::vector<int> all = AllCores();
  return std::find(all.begin(), all.end(), pu) == all.end() ? -1 : pu;
}

std::string FormatCpuList(const std::vector<int>& cores) {
  if (cores.empty()) return "none";
  bool consecutive = true;
  for (std::size_t i = 1; i < cores.size(); ++i) consecutive = consecutive && cores[i] == cores[i - 1] + 1;
  if (consecutive && cores.size() > 2)
    return std::to_string(cores.front()) + "-" + std::to_string(cores.back());
  std::string s;
  for (int c : cores) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

std::string NodeTopology::Describe() const {
  std::string per;
  for (const auto& numa : numa_cores) per += (per.empty() ? "" : " | ") + FormatCpuList(numa);
  const std::size_t n = numa_cores.size();
  return std::to_string(n) + " NUMA node" + (n == 1 ? "" : "s") + ", " + std::to_string(cores()) +
         " cores (" + per + ")";
}

std::optional<NodeTopology> TopologyFromHwloc(const std::string& synthetic, std::string* error) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    *error = "hwloc_topology_init failed";
    return std::nullopt;
  }
  std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> topo(raw, hwloc_topology_destroy);
  if (!synthetic.empty() && hwloc_topology_set_synthetic(raw, synthetic.c_str()) != 0) {
    *error = "hwloc does not accept the synthetic topology '" + synthetic + "'";
    return std::nullopt;
  }
  if (hwloc_topology_load(raw) != 0) {
    *error = "hwloc_topology_load failed";
    return std::nullopt;
  }
  NodeTopology out;
  const int numa = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_NUMANODE);
  const int cores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
  out.numa_cores.resize(std::max(1, numa));
  for (int i = 0; i < cores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(raw, HWLOC_OBJ_CORE, i);
    const int pu = hwloc_bitmap_first(core->cpuset);
    if (pu < 0) continue;
    int which = 0;  // the NUMA node whose cpuset holds the core
    for (int j = 0; j < numa; ++j)
      if (hwloc_bitmap_isincluded(core->cpuset, hwloc_get_obj_by_type(raw, HWLOC_OBJ_NUMANODE, j)->cpuset))
        which = j;
    out.numa_cores[which].push_back(pu);
    for (int unit = hwloc_bitmap_first(core->cpuset); unit >= 0; unit = hwloc_bitmap_next(core->cpuset, unit))
      out.pu_core[unit] = pu;
  }
  out.numa_cores.erase(std::remove_if(out.numa_cores.begin(), out.numa_cores.end(),
                                      [](const std::vector<int>& v) { return v.empty(); }),
                       out.numa_cores.end());
  if (out.cores() == 0) {
    *error = "hwloc found no cores";
    return std::nullopt;
  }
  return out;
}

Placement PlaceRanks(const NodeTopology& topo, int local_ranks, PlacementPolicy policy, int threads) {
  Placement p;
  const std::vector<int> all = topo.AllCores();
  if (policy == PlacementPolicy::kNuma) {
    for (const auto& numa : topo.numa_cores) p.free_cores.push_back(numa.back());
  } else if (policy == PlacementPolicy::kOddEven) {
    if (all.size() >= 2) p.free_cores = {all[all.size() / 2 - 1], all.back()};
    else p.free_cores = all;
  }
  const std::set<int> free(p.free_cores.begin(), p.free_cores.end());
  std::vector<int> compute;
  for (int c : all)
    if (!free.count(c)) compute.push_back(c);
  const int fit = local_ranks > 0 ? static_cast<int>(compute.size()) / local_ranks : 0;
  const int per_rank = threads > 0 ? threads : fit;
  if (per_rank < 1 || per_rank > fit) {
    const std::string kept = p.free_cores.empty()
                                 ? std::string()
                                 : " keeps " + std::to_string(p.free_cores.size()) + " of the " +
                                       std::to_string(all.size()) + " cores free for progress threads and";
    p.error = std::string("placement ") + ToString(policy) + kept + " leaves " +
              std::to_string(compute.size()) + " core(s) for the computation of " +
              std::to_string(local_ranks) + " rank(s) on this node (" + topo.Describe() + "), " +
              (threads > 0 ? std::to_string(threads) + " thread(s) each asked" : "at least one each needed");
    return p;
  }
  // The NUMA node of a core, for the numa policy.
  auto numa_of = [&](int core) {
    for (std::size_t j = 0; j < topo.numa_cores.size(); ++j)
      if (std::find(topo.numa_cores[j].begin(), topo.numa_cores[j].end(), core) != topo.numa_cores[j].end())
        return j;
    return std::size_t{0};
  };
  for (int r = 0; r < local_ranks; ++r) {
    RankPlacement rp;
    const std::ptrdiff_t first = static_cast<std::ptrdiff_t>(r) * per_rank;
    rp.compute_cores.assign(compute.begin() + first, compute.begin() + first + per_rank);
    switch (policy) {
      case PlacementPolicy::kBind:
        rp.progress_core = rp.compute_cores.front();
        break;
      case PlacementPolicy::kNuma:
        rp.progress_core = topo.numa_cores[numa_of(rp.compute_cores.front())].back();
        break;
      case PlacementPolicy::kOddEven:
        rp.progress_core = p.free_cores[r % p.free_cores.size()];
        break;
    }
    p.ranks.push_back(rp);
  }
  return p;
}

}  // namespace nbcguard
