// QUEUES: listd's queue view as a command (a listd extension; docs/COMPATIBILITY.md says why a
// command and not an INFO section). The snapshot is queue_view.h's, shared with /metrics.
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"
#include "listd/server/queue_view.h"

namespace listd::server {
namespace {

// QUEUES
void cmd_queues(CommandContext& ctx) {
  Executor& exec = ctx.exec();
  const std::vector<QueueSnapshot> queues =
      queue_snapshot(exec, exec.command_mono_ms(), exec.command_unix_ms());
  auto r = ctx.reply();
  r.array_header(queues.size());
  for (const QueueSnapshot& q : queues) {
    r.map_header(8);
    r.bulk("db");
    r.integer(q.db);
    r.bulk("key");
    r.bulk(q.key);
    r.bulk("length");
    r.integer(static_cast<long long>(q.length));
    r.bulk("waiters");
    r.integer(static_cast<long long>(q.waiters));
    r.bulk("oldest-wait-ms");
    r.integer(static_cast<long long>(q.oldest_wait_ms));
    r.bulk("pushes-per-sec");
    r.double_value(q.rates.pushes);
    r.bulk("pops-per-sec");
    r.double_value(q.rates.pops);
    r.bulk("handoffs-per-sec");
    r.double_value(q.rates.handoffs);
  }
}

}  // namespace

void register_queue_commands(CommandTable& table) {
  CommandFamily t = table.family("server");
  // Admin as SLOWLOG: it names keys and clients' waits. No Redis row: its ACL categories are
  // the flags' (@admin @slow @dangerous).
  t.add("queues", 1, kAdmin | kLoading | kStale, kNoKeys, &cmd_queues, "listd",
        "Per key with waiters or traffic in the last minute: length, waiters, oldest wait, "
        "pushes/pops/hand-offs per second");
}

}  // namespace listd::server
