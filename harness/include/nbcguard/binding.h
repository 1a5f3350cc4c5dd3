// Where each rank's computation runs when the tool, not the launcher, binds
// it (docs/cases.md, "Binding"), and whether the ranks of a node fit on its
// cores at all. Pure functions of the node's topology and the ranks' masks,
// so every decision is testable on topologies this machine does not have.
//
// Launchers bind differently by default (MPICH's Hydra not at all, Open MPI
// 4.1 to a core for at most 2 ranks, to nothing when oversubscribed, srun as
// told), and unbound ranks on a small node can share a core for a while:
// one rank's computation then takes longer than the other's, which the
// ratios read as a property of the library. So by default each rank binds
// itself:
//   cores  node-local rank r gets its own block of threads + reserve cores
//          of the node's usable cores (hwloc's allowed set: the cgroup or
//          Slurm cpuset), in topology order: block r is cores [r*k, (r+1)*k)
//          with k = threads + reserve. Computation thread t runs on the
//          block's core t; the reserved cores (the 'dedicated' deployment
//          keeps one for the library's progress thread) are the block's last
//          ones. Every thread the process has when it binds (the library's
//          own, started in MPI_Init) gets the whole block.
//   none   the launcher's masks are left as they are (to measure unbound).
// A core is named by the OS index of its first hardware thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nbcguard/placement.h"

namespace nbcguard {

enum class BindingPolicy { kCores, kNone };
const char* ToString(BindingPolicy b);  // "cores", "none"
std::optional<BindingPolicy> ParseBindingPolicy(const std::string& name);
const std::vector<std::string>& BindingPolicyNames();

// What to do when the ranks of a node need more cores than it has.
enum class OversubscribePolicy { kRefuse, kAllow };
const char* ToString(OversubscribePolicy o);  // "refuse", "allow"
std::optional<OversubscribePolicy> ParseOversubscribePolicy(const std::string& name);
const std::vector<std::string>& OversubscribePolicyNames();

// A rank's place among the ranks that share its node.
struct NodeSlot {
  int local_rank = 0;
  int local_ranks = 1;
};

// One key per rank (equal keys: the same node, the same cores), in rank
// order; node-local ranks are numbered in rank order.
std::vector<NodeSlot> NodeSlots(const std::vector<std::string>& keys);

// Cores of one rank for `threads: auto`: the node's usable cores shared by
// its ranks, at least 1; capped by the launcher's mask (`launcher_cores`,
// in cores) when it is given (> 0), as the launcher's binding is kept.
int AutoCoresPerRank(int usable_cores, int local_ranks, int launcher_cores = 0);

struct RankBlock {
  std::vector<int> cores;    // the block, computation's first: the process's mask
  std::vector<int> compute;  // one per computation thread
};

// Block of node-local rank `local_rank` (see above). When the node has too
// few cores (oversubscribe: allow) the blocks wrap round and overlap.
RankBlock BlockOf(const NodeTopology& topo, int local_rank, int threads, int reserve);

// The launcher's mask of a rank as the node's cores that hold one of its
// cpus (a cpu the topology does not have is dropped), sorted, unique.
std::vector<int> MaskCores(const NodeTopology& topo, const std::vector<int>& cpus);

// How many of `masks.size()` x `need` core slots can be given cores of
// their rank's own mask with no core given twice (a bipartite matching).
int DistinctCores(const std::vector<std::vector<int>>& masks, int need);

// The ranks of one node and what they need.
struct NodeDemand {
  std::string host;
  std::string topology;  // NodeTopology::Describe()
  int usable_cores = 0;  // hwloc's allowed cores
  int ranks = 0, threads = 0, reserve = 0;
  // binding none: each rank's launcher mask in cores (MaskCores); empty
  // with binding cores (the ranks are bound to blocks of their own).
  std::vector<std::vector<int>> launcher_cores;
};

// "" when every rank of the node has threads + reserve cores of its own;
// else why not, naming the numbers ("oversubscribed: 4 ranks x 1
// thread(s) on this node's 2 cores ...").
std::string Oversubscription(const NodeDemand& d);

// Why a test is skipped (oversubscribe: refuse), and why each point of a
// run measured anyway (allow) is INVALID, from Oversubscription's reason.
std::string OversubscribedSkipReason(const std::string& oversubscription);
std::string OversubscribedPointReason(const std::string& oversubscription);

// Per-rank cpu lists as one argument: ranks '/'-separated, cpus
// ','-separated ("0/1", "0,1/2,3"); the r_mpi_impact jobs bind by it.
std::string RankCpusArg(const std::vector<std::vector<int>>& per_rank);

// The run's console line from results.json's "binding" object, e.g.
// "binding: cores (by nbcguard): rank 0 cpu 0, rank 1 cpu 1; launcher gave 0-1 / 0-1".
std::string BindingLine(const nlohmann::json& binding);

}  // namespace nbcguard
