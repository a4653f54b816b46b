// Diskless full sync (repl-diskless-sync yes, Redis 7.0's default): a forked child writes the
// RDB straight to the sockets of every replica waiting for one, framed as
// `$EOF:<40 hex chars>\r\n<rdb><the same 40 chars>`.
//
// Why the child writes to the sockets itself (Redis 5's design) rather than into a pipe the
// parent relays (Redis 7.0's): listd's executor never sees a socket and net has no notion of a
// descriptor that feeds other connections, so a relay would need a new kind of loop handler and
// flow control across replicas in the parent. Here the kernel's socket buffers and the child's
// poll() are the flow control, and the parent's only duties are to hand over each socket with
// nothing queued ahead of the payload (the replica's unsent output becomes the start of the
// child's bytes) and to write nothing there until the child is reaped (the stream waits in
// `pending`, no keep-alive newlines). A TLS connection cannot be written around its session, so
// TLS replicas (and replicas without capa eof) get the disk form.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "listd/persistence/rdb.h"
#include "listd/persistence/socket_fanout.h"
#include "listd/server/client.h"
#include "listd/server/executor.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_master.h"

namespace listd::server {

bool ReplicationMaster::can_take_eof(const Replica& r) const {
  const ClientTransport* t = r.client->transport;
  return r.hs.capa_eof && t != nullptr && t->raw_socket() >= 0 && t->pending_output_bytes() == 0;
}

bool ReplicationMaster::should_start_child(persistence::RdbFilter& filter) const {
  if (exec_.persistence().child_running()) return false;
  const config::ServerSettings& s = exec_.config().settings();
  const std::uint64_t now_ms = exec_.clock().monotonic_ms();
  long long waiting = 0;
  std::uint64_t max_idle_s = 0;
  for (const Replica& r : replicas_) {
    if (r.state != State::kWaitBgsaveStart) continue;
    if (waiting == 0) filter = r.hs.filter;  // the first waiting replica's batch
    if (r.hs.filter != filter) continue;     // waits for a child of its own
    ++waiting;
    max_idle_s = std::max(max_idle_s, (now_ms - r.asked_ms) / 1000);
  }
  if (waiting == 0) return false;
  return !s.repl_diskless_sync ||
         (s.repl_diskless_sync_max_replicas > 0 && waiting >= s.repl_diskless_sync_max_replicas) ||
         max_idle_s >= static_cast<std::uint64_t>(s.repl_diskless_sync_delay);
}

Status ReplicationMaster::start_socket_transfer(const persistence::RdbReplInfo& info,
                                                const persistence::RdbFilter& filter) {
  // A fresh mark per child (Redis' stays the same for a process): the replica compares bytes.
  const std::string mark = random_hex_id(exec_.rng());
  std::vector<Replica*> targets;
  std::vector<int> sockets;
  std::vector<std::string> preambles;
  for (Replica& r : replicas_) {
    if (r.state != State::kWaitBgsaveStart || r.hs.filter != filter) continue;
    std::string pre = r.client->out;  // what the transport has not been given yet goes first
    if (!r.legacy_sync) pre += fmt::format("+FULLRESYNC {} {}\r\n", replid_, info.offset);
    pre += fmt::format("$EOF:{}\r\n", mark);
    targets.push_back(&r);
    sockets.push_back(r.client->transport->raw_socket());
    preambles.push_back(std::move(pre));
  }
  const std::int64_t stall_ms = std::int64_t{exec_.config().settings().repl_timeout} * 1000;
  Persistence::TransferBody body = [sockets, preambles, mark,
                                    stall_ms](const Persistence::SnapshotWriter& write_snapshot) {
    persistence::SocketFanout fanout(sockets, stall_ms);
    if (!fanout.write_each(preambles)) return false;
    const bool written =
        write_snapshot([&fanout](std::string_view chunk) { return fanout.write_all(chunk); });
    return written && fanout.write_all(mark);
  };
  if (Status s = exec_.persistence().start_rdb_transfer(info, std::move(body), filter); !s)
    return s;
  socket_child_ = true;
  for (Replica* r : targets) {
    r->client->out.clear();  // the child sent it
    r->state = State::kWaitBgsaveEnd;
    r->socket_target = true;
    r->acked_in_transfer = false;
    r->fork_offset = info.offset;
    r->pending.clear();
  }
  return {};
}

void ReplicationMaster::socket_transfer_done(bool ok) {
  socket_child_ = false;
  std::vector<Client*> failed;
  for (Replica& r : replicas_) {
    if (r.state != State::kWaitBgsaveEnd || !r.socket_target) continue;
    r.socket_target = false;
    if (!ok) {
      failed.push_back(r.client);
      continue;
    }
    if (r.hs.rdb_only) {  // the child wrote its RDB: nothing more goes to it
      finish_rdb_only(r);
      continue;
    }
    // A replica whose socket the child gave up on is online until net reads its socket's end.
    log_.notice(fmt::format(
        "Streamed RDB transfer with replica {} succeeded (socket). Waiting for REPLCONF ACK from "
        "slave to enable streaming",
        name_of(r)));
    r.state = State::kOnline;
    r.stream_on_ack = true;
    r.ack_unix_s = unix_s();
    log_.notice(fmt::format("Synchronization with replica {} succeeded", name_of(r)));
    if (r.acked_in_transfer) start_stream(r);
  }
  for (Client* c : failed) drop(*c, "SYNC failed. BGSAVE child returned an error");
}

void ReplicationMaster::start_stream(Replica& r) {
  r.stream_on_ack = false;
  r.client->out += r.pending;
  std::string().swap(r.pending);  // freed: an assigned empty string keeps its buffer
  exec_.clients().queue_flush(*r.client);
}

}  // namespace listd::server
