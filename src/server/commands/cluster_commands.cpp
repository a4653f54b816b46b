// The cluster commands of a standalone server: ASKING, READONLY, READWRITE and every CLUSTER
// subcommand answer "This instance has cluster support disabled", as Redis 7.0 does with
// cluster-enabled no (listd refuses cluster mode). They are in the table so COMMAND, COMMAND
// DOCS and an unknown CLUSTER subcommand's error are Redis' own, and a cluster-aware client
// probing a node gets the reply it expects from a standalone Redis.
#include <cstdint>
#include <string_view>

#include "listd/server/command_context.h"
#include "listd/server/command_table.h"

namespace listd::server {
namespace {

void cmd_cluster_disabled(CommandContext& ctx) {
  ctx.reply().error("ERR This instance has cluster support disabled");
}

struct ClusterSubcommand {
  std::string_view name;
  int arity;
  std::uint32_t flags;
  std::string_view since;
  std::string_view summary;
};

constexpr std::uint32_t kAdminStale = kAdmin | kStale;

// Redis 7.0.15's CLUSTER subcommands, with its arities and flags (no_async_loading comes from
// the command reference).
constexpr ClusterSubcommand kClusterSubcommands[] = {
    {"addslots", -3, kAdminStale, "3.0.0", "Assign new hash slots to receiving node"},
    {"addslotsrange", -4, kAdminStale, "7.0.0", "Assign new hash slots to receiving node"},
    {"bumpepoch", 2, kAdminStale, "3.0.0", "Advance the cluster config epoch"},
    {"count-failure-reports", 3, kAdminStale, "3.0.0",
     "Return the number of failure reports active for a given node"},
    {"countkeysinslot", 3, kStale, "3.0.0",
     "Return the number of local keys in the specified hash slot"},
    {"delslots", -3, kAdminStale, "3.0.0", "Set hash slots as unbound in receiving node"},
    {"delslotsrange", -4, kAdminStale, "7.0.0", "Set hash slots as unbound in receiving node"},
    {"failover", -2, kAdminStale, "3.0.0",
     "Forces a replica to perform a manual failover of its master."},
    {"flushslots", 2, kAdminStale, "3.0.0", "Delete a node's own slots information"},
    {"forget", 3, kAdminStale, "3.0.0", "Remove a node from the nodes table"},
    {"getkeysinslot", 4, kStale, "3.0.0", "Return local key names in the specified hash slot"},
    {"help", 2, kLoading | kStale, "5.0.0", "Show helpful text about the different subcommands"},
    {"info", 2, kStale, "3.0.0", "Provides info about Redis Cluster node state"},
    {"keyslot", 3, kStale, "3.0.0", "Returns the hash slot of the specified key"},
    {"links", 2, kStale, "7.0.0",
     "Returns a list of all TCP links to and from peer nodes in cluster"},
    {"meet", -4, kAdminStale, "3.0.0", "Force a node cluster to handshake with another node"},
    {"myid", 2, kStale, "3.0.0", "Return the node id"},
    {"nodes", 2, kStale, "3.0.0", "Get Cluster config for the node"},
    {"replicas", 3, kAdminStale, "5.0.0", "List replica nodes of the specified master node"},
    {"replicate", 3, kAdminStale, "3.0.0",
     "Reconfigure a node as a replica of the specified master node"},
    {"reset", -2, kAdminStale | kNoScript, "3.0.0", "Reset a Redis Cluster node"},
    {"saveconfig", 2, kAdminStale, "3.0.0", "Forces the node to save cluster state on disk"},
    {"set-config-epoch", 3, kAdminStale, "3.0.0", "Set the configuration epoch in a new node"},
    {"setslot", -4, kAdminStale, "3.0.0", "Bind a hash slot to a specific node"},
    {"shards", 2, kStale, "7.0.0", "Get array of cluster slots to node mappings"},
    {"slaves", 3, kAdminStale, "3.0.0", "List replica nodes of the specified master node"},
    {"slots", 2, kStale, "3.0.0", "Get array of Cluster slot to node mappings"},
};

}  // namespace

void register_cluster_commands(CommandTable& table) {
  CommandFamily t = table.family("cluster");
  const std::uint32_t connection = kFast;
  t.add("asking", 1, connection, kNoKeys, &cmd_cluster_disabled, "3.0.0",
        "Sent by cluster clients after an -ASK redirect");
  t.add("readonly", 1, connection | kLoading | kStale, kNoKeys, &cmd_cluster_disabled, "3.0.0",
        "Enables read queries for a connection to a cluster replica node");
  t.add("readwrite", 1, connection | kLoading | kStale, kNoKeys, &cmd_cluster_disabled, "3.0.0",
        "Disables read queries for a connection to a cluster replica node");
  CommandSpec& cluster =
      t.add("cluster", -2, 0, kNoKeys, nullptr, "3.0.0", "A container for cluster commands");
  for (const ClusterSubcommand& s : kClusterSubcommands)
    t.add_subcommand(cluster, s.name, s.arity, s.flags, kNoKeys, &cmd_cluster_disabled, s.since,
                     s.summary);
}

}  // namespace listd::server
