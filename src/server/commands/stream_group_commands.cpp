// Consumer-group administration: XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER|HELP,
// XSETID and XACK.
//
// Redis 7.0.15 xgroupCommand checks in one order for every subcommand but HELP: the CREATE /
// SETID options (MKSTREAM, ENTRIESREAD), the key's type, the key's existence (unless MKSTREAM),
// the group's existence (SETID, CREATECONSUMER, DELCONSUMER), then the subcommand's own argument
// count (a subcommand syntax error). The effects are the commands' argv. XGROUP DESTROY wakes
// the group's XREADGROUP waiters, which answer -NOGROUP.
#include <string>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/blocking_service.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/stream_group_ops.h"
#include "listd/server/stream_ops.h"
#include "listd/server/text.h"

namespace listd::server {
namespace {

constexpr std::string_view kNoKeyForXgroupErr =
    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to "
    "use the MKSTREAM option to create an empty stream automatically.";

/// What every XGROUP subcommand but HELP resolves first.
struct XgroupTarget {
  store::StreamValue* stream = nullptr;
  store::StreamGroup* group = nullptr;
  bool mkstream = false;
  long long entries_read = kInvalidEntriesRead;
};

bool parse_xgroup_options(CommandContext& ctx, XgroupTarget& t) {
  const bool create = base::iequals(ctx.arg(1), "create");
  const bool setid = base::iequals(ctx.arg(1), "setid");
  for (std::size_t i = 5; i < ctx.argc();) {
    if (create && base::iequals(ctx.arg(i), "mkstream")) {
      t.mkstream = true;
      ++i;
    } else if ((create || setid) && base::iequals(ctx.arg(i), "entriesread") &&
               i + 1 < ctx.argc()) {
      if (!ctx.parse_integer(i + 1, t.entries_read)) return false;
      if (t.entries_read < 0 && t.entries_read != kInvalidEntriesRead) {
        ctx.reply().error("ERR value for ENTRIESREAD must be positive or -1");
        return false;
      }
      i += 2;
    } else {
      ctx.reply().error(subcommand_syntax_error(ctx.arg(0), ctx.arg(1)));
      return false;
    }
  }
  return true;
}

/// Redis' preamble: options, type, key and group; false after replying an error.
bool resolve_xgroup_target(CommandContext& ctx, XgroupTarget& t, bool group_required) {
  if (!parse_xgroup_options(ctx, t)) return false;
  auto [e, wrong_type] = ctx.write(ctx.arg(2), store::ValueType::kStream);
  if (wrong_type) return false;
  if (e) t.stream = &e->value.as_stream();
  if (t.mkstream) return true;
  if (!t.stream) {
    ctx.reply().error(kNoKeyForXgroupErr);
    return false;
  }
  const auto it = t.stream->groups().find(ctx.arg(3));
  if (it != t.stream->groups().end()) t.group = &it->second;
  if (!t.group && group_required) {
    ctx.reply().error("NOGROUP No such consumer group '" + std::string(until_nul(ctx.arg(3))) +
                      "' for key name '" + std::string(until_nul(ctx.arg(2))) + "'");
    return false;
  }
  return true;
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD entries-read]
void cmd_xgroup_create(CommandContext& ctx) {
  XgroupTarget t;
  if (!resolve_xgroup_target(ctx, t, false)) return;
  if (ctx.argc() > 8) {
    ctx.reply().error(subcommand_syntax_error(ctx.arg(0), ctx.arg(1)));
    return;
  }
  store::StreamId id;
  if (ctx.arg(4) == "$") {
    if (t.stream) id = t.stream->last_id();
  } else if (!parse_stream_id_or_reply(ctx, ctx.arg(4), id, 0, true)) {
    return;
  }
  if (!t.stream)
    t.stream = &ctx.add_key(ctx.arg(2), store::Value::make_stream())->value.as_stream();
  auto [it, created] = t.stream->groups().try_emplace(std::string(ctx.arg(3)), id, t.entries_read);
  if (!created) {
    ctx.reply().error("BUSYGROUP Consumer Group name already exists");
    return;
  }
  ctx.reply().ok();
  ctx.mark_dirty();
  ctx.notify(config::kNotifyStream, "xgroup-create", ctx.arg(2));
}

// XGROUP SETID key group id|$ [ENTRIESREAD entries-read]
void cmd_xgroup_setid(CommandContext& ctx) {
  XgroupTarget t;
  if (!resolve_xgroup_target(ctx, t, true)) return;
  if (ctx.argc() != 5 && ctx.argc() != 7) {
    ctx.reply().error(subcommand_syntax_error(ctx.arg(0), ctx.arg(1)));
    return;
  }
  store::StreamId id;
  if (ctx.arg(4) == "$") {
    id = t.stream->last_id();
  } else if (!parse_stream_id_or_reply(ctx, ctx.arg(4), id, 0, false)) {
    return;
  }
  t.group->last_id = id;
  t.group->entries_read = t.entries_read;
  ctx.reply().ok();
  ctx.mark_dirty();
  ctx.notify(config::kNotifyStream, "xgroup-setid", ctx.arg(2));
}

// XGROUP DESTROY key group
void cmd_xgroup_destroy(CommandContext& ctx) {
  XgroupTarget t;
  if (!resolve_xgroup_target(ctx, t, false)) return;
  if (!t.group) {
    ctx.reply().integer(0);
    return;
  }
  t.stream->groups().erase(t.stream->groups().find(ctx.arg(3)));
  ctx.reply().integer(1);
  ctx.mark_dirty();
  ctx.notify(config::kNotifyStream, "xgroup-destroy", ctx.arg(2));
  // Its blocked XREADGROUP readers answer -NOGROUP when served.
  ctx.exec().blocking().signal_ready(ctx.db().index(), ctx.arg(2));
}

// XGROUP CREATECONSUMER key group consumer
void cmd_xgroup_createconsumer(CommandContext& ctx) {
  XgroupTarget t;
  if (!resolve_xgroup_target(ctx, t, true)) return;
  bool created = false;
  t.group->create_consumer(ctx.arg(4), ctx.now_ms(), &created);
  if (created) {
    ctx.mark_dirty();
    ctx.notify(config::kNotifyStream, "xgroup-createconsumer", ctx.arg(2));
  }
  ctx.reply().integer(created ? 1 : 0);
}

// XGROUP DELCONSUMER key group consumer
void cmd_xgroup_delconsumer(CommandContext& ctx) {
  XgroupTarget t;
  if (!resolve_xgroup_target(ctx, t, true)) return;
  long long pending = 0;
  if (t.group->find_consumer(ctx.arg(4))) {
    pending = static_cast<long long>(t.group->delete_consumer(ctx.arg(4)));
    ctx.mark_dirty();
    ctx.notify(config::kNotifyStream, "xgroup-delconsumer", ctx.arg(2));
  }
  ctx.reply().integer(pending);
}

// XGROUP HELP
void cmd_xgroup_help(CommandContext& ctx) {
  reply_help(
      ctx, {"CREATE <key> <groupname> <id|$> [option]",
            "    Create a new consumer group. Options are:", "    * MKSTREAM",
            "      Create the empty stream if it does not exist.", "    * ENTRIESREAD entries_read",
            "      Set the group's entries_read counter (internal use).",
            "CREATECONSUMER <key> <groupname> <consumer>",
            "    Create a new consumer in the specified group.",
            "DELCONSUMER <key> <groupname> <consumer>", "    Remove the specified consumer.",
            "DESTROY <key> <groupname>", "    Remove the specified group.",
            "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
            "    Set the current group ID and entries_read counter."});
}

bool parse_xsetid_options(CommandContext& ctx, store::StreamId id, long long& entries_added,
                          store::StreamId& max_deleted) {
  for (std::size_t i = 3; i < ctx.argc(); i += 2) {
    const bool more = i + 1 < ctx.argc();
    if (base::iequals(ctx.arg(i), "entriesadded") && more) {
      if (!ctx.parse_integer(i + 1, entries_added)) return false;
      if (entries_added < 0) {
        ctx.reply().error("ERR entries_added must be positive");
        return false;
      }
    } else if (base::iequals(ctx.arg(i), "maxdeletedid") && more) {
      if (!parse_stream_id_or_reply(ctx, ctx.arg(i + 1), max_deleted, 0, true)) return false;
      if (id < max_deleted) {
        ctx.reply().error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
        return false;
      }
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  return true;
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
void cmd_xsetid(CommandContext& ctx) {
  store::StreamId id, max_deleted;
  long long entries_added = -1;
  if (!parse_stream_id_or_reply(ctx, ctx.arg(2), id, 0, true)) return;
  if (!parse_xsetid_options(ctx, id, entries_added, max_deleted)) return;
  store::Entry* e = ctx.write(ctx.arg(1));
  if (!e) {
    ctx.reply().error(kNoSuchKeyErr);
    return;
  }
  if (!e->value.is(store::ValueType::kStream)) {
    ctx.reply().error(kWrongTypeErr);
    return;
  }
  store::StreamValue& s = e->value.as_stream();
  if (s.length() > 0) {
    if (id < s.edge_id(false)) {
      ctx.reply().error(
          "ERR The ID specified in XSETID is smaller than the target stream top item");
      return;
    }
    if (entries_added != -1 && s.length() > static_cast<std::uint64_t>(entries_added)) {
      ctx.reply().error(
          "ERR The entries_added specified in XSETID is smaller than the target stream length");
      return;
    }
  }
  s.set_last_id(id);
  if (entries_added != -1) s.set_entries_added(static_cast<std::uint64_t>(entries_added));
  if (!max_deleted.is_zero()) s.set_max_deleted_id(max_deleted);
  ctx.reply().ok();
  ctx.mark_dirty();
  ctx.notify(config::kNotifyStream, "xsetid", ctx.arg(1));
}

// XACK key group id [id ...]
void cmd_xack(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kStream);
  if (wrong_type) return;
  store::StreamGroup* g = nullptr;
  if (e) {
    auto& groups = e->value.as_stream().groups();
    const auto it = groups.find(ctx.arg(2));
    if (it != groups.end()) g = &it->second;
  }
  if (!g) {
    ctx.reply().integer(0);
    return;
  }
  // All or nothing: every id is parsed before any is acknowledged.
  std::vector<store::StreamId> ids(ctx.argc() - 3);
  for (std::size_t j = 3; j < ctx.argc(); ++j)
    if (!parse_stream_id_or_reply(ctx, ctx.arg(j), ids[j - 3], 0, true)) return;
  long long acknowledged = 0;
  for (const store::StreamId id : ids)
    if (g->ack(id)) ++acknowledged;
  ctx.mark_dirty(acknowledged);
  ctx.reply().integer(acknowledged);
}

}  // namespace

void register_stream_group_commands(CommandTable& table) {
  CommandFamily t = table.family("stream");
  constexpr KeySpec kSecondKey{2, 2, 1};
  CommandSpec& xgroup =
      t.add("xgroup", -2, 0, kNoKeys, nullptr, "5.0.0", "A container for consumer groups commands");
  t.add_subcommand(xgroup, "create", -5, kWrite | kDenyOom, kSecondKey, &cmd_xgroup_create, "5.0.0",
                   "Create a consumer group.");
  t.add_subcommand(xgroup, "setid", -5, kWrite, kSecondKey, &cmd_xgroup_setid, "5.0.0",
                   "Set a consumer group to an arbitrary last delivered ID value.");
  t.add_subcommand(xgroup, "destroy", 4, kWrite, kSecondKey, &cmd_xgroup_destroy, "5.0.0",
                   "Destroy a consumer group.");
  t.add_subcommand(xgroup, "createconsumer", 5, kWrite | kDenyOom, kSecondKey,
                   &cmd_xgroup_createconsumer, "6.2.0", "Create a consumer in a consumer group.");
  t.add_subcommand(xgroup, "delconsumer", 5, kWrite, kSecondKey, &cmd_xgroup_delconsumer, "5.0.0",
                   "Delete a consumer from a consumer group.");
  t.add_subcommand(xgroup, "help", 2, kLoading | kStale, kNoKeys, &cmd_xgroup_help, "5.0.0",
                   "Show helpful text about the different subcommands");
  t.add("xsetid", -3, kWrite | kDenyOom | kFast, kFirstKey, &cmd_xsetid, "5.0.0",
        "An internal command for replicating stream values");
  t.add("xack", -4, kWrite | kFast, kFirstKey, &cmd_xack, "5.0.0",
        "Marks a pending message as correctly processed, effectively removing it from the "
        "pending entries list of the consumer group. Return value of the command is the number "
        "of messages successfully acknowledged, that is, the IDs we were actually able to "
        "resolve in the PEL.");
}

}  // namespace listd::server
