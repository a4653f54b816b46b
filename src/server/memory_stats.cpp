#include "listd/server/memory_stats.h"

#include <algorithm>
#include <string>

#include "listd/server/command_context.h"
#include "listd/server/executor.h"
#include "listd/server/function_library.h"
#include "listd/server/info.h"
#include "listd/server/persistence.h"
#include "listd/server/replication_master.h"
#include "listd/server/scripting.h"

namespace listd::server {
namespace {

// A string's heap block (none while it fits in its inline buffer).
std::size_t string_heap_bytes(const std::string& s) {
  static const std::size_t inline_capacity = std::string().capacity();
  return s.capacity() > inline_capacity ? s.capacity() + 1 : 0;
}

// What a client holds: its structure, its output string, the transport's query buffer (used and
// free) and the output the socket has not taken yet.
std::size_t client_memory_bytes(const Client& c) {
  std::size_t bytes = sizeof(Client) + string_heap_bytes(c.out) + c.held_bytes();
  if (c.transport)
    bytes += c.transport->query_buffer_bytes() + c.transport->query_buffer_free() +
             c.transport->pending_output_bytes();
  return bytes;
}

void add_client_overhead(Executor& exec, MemoryOverhead& m) {
  exec.clients().for_each([&](Client& c) {
    (c.replica ? m.clients_replicas : m.clients_normal) += client_memory_bytes(c);
  });
}

void add_database_overhead(Executor& exec, MemoryOverhead& m) {
  const store::Keyspace& keyspace = exec.keyspace();
  for (int i = 0; i < keyspace.database_count(); ++i) {
    const store::Database& db = keyspace.db(i);
    if (db.size() == 0) continue;
    m.keys += db.size();
    // The entry's header is overhead; the key bytes after it and the value are the dataset.
    m.dbs.push_back(DbOverhead{i, db.dict().table_bytes() + db.size() * sizeof(store::Entry),
                               db.expiry_index_bytes()});
  }
}

float percent_of(std::size_t part, std::size_t whole) {
  return static_cast<float>(part) * 100 / static_cast<float>(whole);
}

// A pair of the flat map: the field name, then its value.
void reply_stat(protocol::ReplyWriter& r, std::string_view name, long long value) {
  r.bulk(name);
  r.integer(value);
}
void reply_stat(protocol::ReplyWriter& r, std::string_view name, float value) {
  r.bulk(name);
  r.double_value(value);
}

long long as_signed(std::size_t n) { return static_cast<long long>(n); }

void reply_overhead_fields(protocol::ReplyWriter& r, const MemoryOverhead& m) {
  reply_stat(r, "peak.allocated", as_signed(m.peak));
  reply_stat(r, "total.allocated", as_signed(m.total));
  reply_stat(r, "startup.allocated", as_signed(m.startup));
  reply_stat(r, "replication.backlog", as_signed(m.replication_backlog));
  reply_stat(r, "clients.slaves", as_signed(m.clients_replicas));
  reply_stat(r, "clients.normal", as_signed(m.clients_normal));
  reply_stat(r, "cluster.links", 0LL);  // no cluster bus
  reply_stat(r, "aof.buffer", as_signed(m.aof_buffer));
  reply_stat(r, "lua.caches", as_signed(m.lua_caches));
  reply_stat(r, "functions.caches", as_signed(m.functions_caches));
  for (const DbOverhead& db : m.dbs) {
    r.bulk("db." + std::to_string(db.db));
    r.map_header(3);
    reply_stat(r, "overhead.hashtable.main", as_signed(db.main_table));
    reply_stat(r, "overhead.hashtable.expires", as_signed(db.expiry_index));
    reply_stat(r, "overhead.hashtable.slot-to-keys", 0LL);  // no cluster slots
  }
  reply_stat(r, "overhead.total", as_signed(m.overhead_total));
  reply_stat(r, "keys.count", as_signed(m.keys));
  reply_stat(r, "keys.bytes-per-key", as_signed(m.bytes_per_key));
  reply_stat(r, "dataset.bytes", as_signed(m.dataset));
  reply_stat(r, "dataset.percentage", m.dataset_percentage);
  reply_stat(r, "peak.percentage", m.peak_percentage);
}

// The allocator's figures as Redis 7.0 fills them in without jemalloc (server.c
// cron_malloc_stats): allocated is the heap count, active and resident the process RSS (the Lua
// heap is in listd's count, so none of it is taken off the RSS as Redis does).
void reply_allocator_fields(protocol::ReplyWriter& r, const MemoryOverhead& m) {
  const std::size_t allocated = m.total, active = m.rss, resident = m.rss;
  reply_stat(r, "allocator.allocated", as_signed(allocated));
  reply_stat(r, "allocator.active", as_signed(active));
  reply_stat(r, "allocator.resident", as_signed(resident));
  reply_stat(r, "allocator-fragmentation.ratio",
             static_cast<float>(active) / static_cast<float>(allocated));
  reply_stat(r, "allocator-fragmentation.bytes", as_signed(active) - as_signed(allocated));
  reply_stat(r, "allocator-rss.ratio",
             active ? static_cast<float>(resident) / static_cast<float>(active) : 0.0f);
  reply_stat(r, "allocator-rss.bytes", as_signed(resident) - as_signed(active));
  reply_stat(r, "rss-overhead.ratio",
             resident ? static_cast<float>(m.rss) / static_cast<float>(resident) : 0.0f);
  reply_stat(r, "rss-overhead.bytes", as_signed(m.rss) - as_signed(resident));
  reply_stat(r, "fragmentation", static_cast<float>(m.rss) / static_cast<float>(m.total));
  reply_stat(r, "fragmentation.bytes", as_signed(m.rss) - as_signed(m.total));
}

}  // namespace

MemoryOverhead memory_overhead(Executor& exec) {
  MemoryOverhead m;
  m.total = std::max<std::size_t>(exec.memory().used(), 1);
  m.peak = exec.memory().peak();
  m.startup = exec.memory().startup();
  m.rss = resident_memory_bytes();
  m.replication_backlog = exec.replication().backlog_memory();
  add_client_overhead(exec, m);
  m.aof_buffer = string_heap_bytes(exec.persistence().pending_bytes());
  const Scripting& scripting = exec.scripting();
  m.lua_caches = scripting.scripts_memory();
  m.functions_caches = scripting.functions().overhead();
  add_database_overhead(exec, m);
  std::size_t sum = m.startup + m.replication_backlog + m.clients_replicas + m.clients_normal +
                    m.aof_buffer + m.lua_caches + m.functions_caches;
  for (const DbOverhead& db : m.dbs) sum += db.main_table + db.expiry_index;
  m.overhead_total = std::min(sum, m.total);
  m.dataset = m.total - m.overhead_total;
  m.peak_percentage = percent_of(m.total, std::max(m.peak, m.total));
  // Redis takes these two against the heap grown since start-up (at least 1 byte).
  const std::size_t net = m.total > m.startup ? m.total - m.startup : 1;
  m.dataset_percentage = percent_of(m.dataset, net);
  m.bytes_per_key = m.keys ? net / m.keys : 0;
  return m;
}

// MEMORY STATS
void cmd_memory_stats(CommandContext& ctx) {
  const MemoryOverhead m = memory_overhead(ctx.exec());
  protocol::ReplyWriter r = ctx.reply();
  r.map_header(27 + m.dbs.size());
  reply_overhead_fields(r, m);
  reply_allocator_fields(r, m);
}

}  // namespace listd::server
