// Where a rank's computation threads and its progress thread run (Denis et al., IJHPCA 2019,
// "progress threads placement"), as a pure function of the node's topology,
// so every policy is testable on topologies this machine does not have.
//
// The paper's model: ranks are placed by block on the cores of their NUMA
// node and some cores are left free for progress threads.
//   bind      no free core; the progress thread shares the rank's first core.
//   numa      the last core of every NUMA node is free; the progress threads
//             of all ranks of a NUMA node are gathered on it (Denis et al., IJHPCA 2019
//             eq. 1 with one free core per NUMA node).
//   odd-even  two free cores per node, the last core of each half of the
//             node; progress threads of even local ranks on the first,
//             odd on the second, so neighbours in a chain never share one
//             (Denis et al., IJHPCA 2019 eq. 2 with p - n = 2).
// Computation gets the other cores, the same number per rank, in topology
// order.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nbcguard {

enum class PlacementPolicy { kBind, kNuma, kOddEven };
const char* ToString(PlacementPolicy p);  // "bind", "numa", "odd-even"

// One node: per NUMA node, its cores, each named by the OS index of its
// first processing unit (what sched_setaffinity takes), in topology order.
struct NodeTopology {
  std::vector<std::vector<int>> numa_cores;
  // Every processing unit's core (the core's first one); empty: one unit per core.
  std::map<int, int> pu_core;
  int cores() const;
  std::vector<int> AllCores() const;  // in topology order
  int CoreOf(int pu) const;           // -1: not a unit of these cores
  std::string Describe() const;       // "2 NUMA nodes x 4 cores (0-3 | 4-7)"
};

// The topology of the machine this runs on (hwloc), or of an hwloc
// synthetic description such as "numa:2 core:4 pu:2" (tests). Cores
// without a NUMA ancestor form one NUMA node. Empty with *error set on failure.
std::optional<NodeTopology> TopologyFromHwloc(const std::string& synthetic, std::string* error);

struct RankPlacement {
  std::vector<int> compute_cores;  // one per computation thread
  int progress_core = -1;
};

struct Placement {
  std::vector<int> free_cores;       // kept free of computation
  std::vector<RankPlacement> ranks;  // per local rank
  std::string error;                 // non-empty: this policy does not fit (why)
};

// "0-3" for more than two consecutive cpus, "0,2,4" otherwise, "none" when empty.
std::string FormatCpuList(const std::vector<int>& cpus);

// `threads`: computation threads per rank, 0 = as many as fit.
Placement PlaceRanks(const NodeTopology& topo, int local_ranks, PlacementPolicy policy, int threads);

}  // namespace nbcguard
