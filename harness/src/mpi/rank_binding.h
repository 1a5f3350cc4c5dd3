// The harness's side of binding (nbcguard/binding.h): which ranks share a
// node, how many computation threads `threads: auto` gives, whether the
// node's ranks fit on its cores, binding the computation to the rank's
// block and the "binding" record of where everything ran. Every function
// here is collective over the context's communicator.
#pragma once

#include <optional>
#include <string>

#include "affinity.h"
#include "mode_context.h"
#include "nbcguard/binding.h"

namespace nbcguard {

// This rank's node as binding sees it. Ranks share a node when they share a
// kernel (/proc/sys/kernel/random/boot_id; the host name where it cannot
// be read): ranks started in separate network namespaces of one machine
// are on different "hosts" for MPI but compete for the same cores.
struct NodeView {
  NodeSlot slot;
  NodeTopology topo;  // hwloc's allowed cores (the cgroup's or Slurm's cpuset)
  std::string host;
};

// nullopt when a rank could not read its topology (*error: the first rank's reason).
std::optional<NodeView> ViewNode(const ModeContext& c, std::string* error);

// Cores per rank for `threads` (0 = auto: the node's cores shared by its
// ranks, within the launcher's mask with binding none), the least over all
// ranks so every rank computes with as many threads.
int CoresPerRank(const ModeContext& c, const NodeView& node, BindingPolicy policy);

// Whether some node's ranks need more cores than it has: "" or the first
// such node's reason (Oversubscription), the same on every rank.
std::string AgreedOversubscription(const ModeContext& c, const NodeView& node, int threads,
                                   BindingPolicy policy);

// Where the computation ran, for the "binding" record.
struct BindingFacts {
  std::string policy;     // cores, none, placement
  std::string placement;  // thread-*: bind, numa, odd-even
  std::string oversubscription;
  std::vector<int> process_cpus;  // the process's mask after binding
};

// Binds this rank's process to its block and `team`'s threads to the
// block's cores (binding cores; nothing with none). False when the system
// refused (*error: the first rank's reason).
bool BindToBlock(const ModeContext& c, const NodeView& node, BindingPolicy policy, ComputeTeam& team,
                 std::vector<int>* process_cpus, std::string* error);

// Every rank's cpus (the launcher's, its process's, each computation
// thread's) gathered into one "binding" record.
void RecordBinding(ModeContext& c, const NodeView& node, const ComputeTeam& team, const BindingFacts& facts);

}  // namespace nbcguard
