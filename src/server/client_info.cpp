#include "listd/server/client_info.h"

#include <fmt/format.h>

#include "listd/server/acl_user.h"
#include "listd/server/client.h"
#include "listd/server/output_buffer_limits.h"

namespace listd::server {

std::string client_flags(const Client& c) {
  std::string f;
  if (c.replica) f += 'S';
  if (c.master) f += 'M';
  if (c.monitor) f += 'O';
  if (c.pubsub.subscribed()) f += 'P';
  if (c.in_multi) f += 'x';
  if (c.waiting()) f += 'b';
  if (c.tracking.on) f += 't';
  if (c.tracking.broken_redirect) f += 'R';
  if (c.tracking.bcast) f += 'B';
  if (c.watch_dirty) f += 'd';
  if (c.close_after_reply) f += 'c';
  if (c.close_asap) f += 'A';
  if (c.no_evict) f += 'e';
  if (c.no_touch) f += 'T';
  return f.empty() ? std::string("N") : f;
}

namespace {

std::size_t multi_memory(const Client& c) {
  std::size_t bytes = 0;
  for (const auto& q : c.queued)
    for (const auto& a : q) bytes += a.size();
  return bytes;
}

}  // namespace

std::size_t client_memory_usage(const Client& c) {
  const std::size_t qbuf = c.transport ? c.transport->query_buffer_bytes() : 0;
  const std::size_t qbuf_free = c.transport ? c.transport->query_buffer_free() : 0;
  return qbuf + qbuf_free + output_memory(c).list_bytes + multi_memory(c) +
         kReplyChunkBytes;  // Redis' static reply buffer, always there
}

std::string client_info_string(const Client& c, std::uint64_t now_ms) {
  const std::size_t qbuf = c.transport ? c.transport->query_buffer_bytes() : 0;
  const std::size_t qbuf_free = c.transport ? c.transport->query_buffer_free() : 0;
  const OutputMemory out = output_memory(c);
  const std::size_t multi_mem = multi_memory(c);
  return fmt::format(
      "id={} addr={} laddr={} fd={} name={} age={} idle={} flags={} db={} sub={} psub={} ssub={} "
      "multi={} qbuf={} qbuf-free={} argv-mem=0 multi-mem={} rbs={} rbp=0 obl={} oll={} "
      "omem={} tot-mem={} events=r cmd={} user={} redir={} resp={} lib-name={} lib-ver={}",
      c.id, c.addr, c.laddr, c.fd, c.name, (now_ms - c.created_ms) / 1000,
      (now_ms - c.last_interaction_ms) / 1000, client_flags(c), c.db, c.pubsub.channels.size(),
      c.pubsub.patterns.size(), c.pubsub.shard_channels.size(),
      c.in_multi ? static_cast<long long>(c.queued.size()) : -1LL, qbuf, qbuf_free, multi_mem,
      kReplyChunkBytes, out.buffer_bytes, out.blocks, out.list_bytes, client_memory_usage(c),
      c.last_command, c.user ? std::string_view(c.user->name()) : std::string_view("(superuser)"),
      c.tracking.on ? static_cast<long long>(c.tracking.redirect) : -1LL, static_cast<int>(c.resp),
      c.lib_name, c.lib_ver);
}

}  // namespace listd::server
