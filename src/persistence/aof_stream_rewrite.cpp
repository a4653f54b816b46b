#include "listd/persistence/aof_stream_rewrite.h"

#include <string>
#include <string_view>
#include <vector>

#include "listd/persistence/aof_encoder.h"
#include "listd/store/stream_group.h"

namespace listd::persistence {
namespace {

/// The entries, one XADD each, with the fields as the iterator yields them.
void append_stream_entries(std::string& out, std::string_view key, const store::StreamValue& s) {
  std::vector<std::string> owned;  // numbers the listpack stores as integers, as text
  std::vector<std::string_view> argv;
  store::StreamIterator it(s, store::StreamId{}, store::StreamId::max(), false);
  while (it.next()) {
    const std::string id = it.id().to_string();
    owned.clear();
    owned.reserve(it.field_count() * 2);
    it.for_each_field([&](std::string_view field, std::string_view value) {
      owned.emplace_back(field);
      owned.emplace_back(value);
    });
    argv.assign({"XADD", key, id});
    argv.insert(argv.end(), owned.begin(), owned.end());
    append_resp_command(out, argv);
  }
}

void append_group(std::string& out, std::string_view key, std::string_view name,
                  const store::StreamGroup& g) {
  const std::string last = g.last_id.to_string();
  const std::string read = std::to_string(g.entries_read);
  append_resp_command(
      out, std::vector<std::string_view>{"XGROUP", "CREATE", key, name, last, "ENTRIESREAD", read});
  for (const auto& [consumer, c] : g.consumers) {
    if (c.pel.empty()) {
      append_resp_command(
          out, std::vector<std::string_view>{"XGROUP", "CREATECONSUMER", key, name, consumer});
      continue;
    }
    for (const auto& [id, nack] : c.pel) {
      const std::string pending = id.to_string();
      const std::string time = std::to_string(nack->delivery_time);
      const std::string count = std::to_string(nack->delivery_count);
      append_resp_command(
          out, std::vector<std::string_view>{"XCLAIM", key, name, consumer, "0", pending, "TIME",
                                             time, "RETRYCOUNT", count, "JUSTID", "FORCE"});
    }
  }
}

}  // namespace

void append_stream_rewrite(std::string& out, std::string_view key, const store::StreamValue& s) {
  if (s.length() != 0) {
    append_stream_entries(out, key, s);
  } else {
    // XADD MAXLEN 0 creates the key and leaves it empty (Redis' trick for an empty stream).
    append_resp_command(out,
                        std::vector<std::string_view>{"XADD", key, "MAXLEN", "0", "0-1", "x", "y"});
  }
  // After the entries: the last id may be above the last entry (XDEL, XSETID).
  const std::string last = s.last_id().to_string();
  const std::string added = std::to_string(s.entries_added());
  const std::string max_deleted = s.max_deleted_id().to_string();
  append_resp_command(out, std::vector<std::string_view>{"XSETID", key, last, "ENTRIESADDED", added,
                                                         "MAXDELETEDID", max_deleted});
  for (const auto& [name, g] : s.groups()) append_group(out, key, name, g);
}

}  // namespace listd::persistence
