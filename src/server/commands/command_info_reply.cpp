#include "command_info_reply.h"

#include <string>

#include "listd/server/acl_categories.h"
#include "listd/server/command_reference.h"
#include "listd/server/command_table.h"

namespace listd::server {
namespace {

using protocol::ReplyWriter;

// COMMAND INFO's flags in Redis' order (addReplyFlagsForCommand): listd's CommandFlag bits, and
// the reference row's where listd keeps no bit (no behaviour of its own: async loading, cluster).
struct InfoFlagName {
  std::uint32_t command_bit;
  std::uint8_t reference_bit;
  std::string_view name;
};

constexpr InfoFlagName kInfoFlagNames[] = {
    {kWrite, 0, "write"},
    {kReadonly, 0, "readonly"},
    {kDenyOom, 0, "denyoom"},
    {kAdmin, 0, "admin"},
    {kPubsub, 0, "pubsub"},
    {kNoScript, 0, "noscript"},
    {kBlocking, 0, "blocking"},
    {kLoading, 0, "loading"},
    {kStale, 0, "stale"},
    {kSkipMonitor, 0, "skip_monitor"},
    {kSkipSlowlog, 0, "skip_slowlog"},
    {0, kInfoAsking, "asking"},
    {kFast, 0, "fast"},
    {kNoAuth, 0, "no_auth"},
    {0, kInfoNoMandatoryKeys, "no_mandatory_keys"},
    {0, kInfoNoAsyncLoading, "no_async_loading"},
    {kNoMulti, 0, "no_multi"},
    {0, kInfoMovableKeys, "movablekeys"},
    {kAllowBusy, 0, "allow_busy"},
};

// A listd command of its own reports its keys as Redis would derive them from its KeySpec.
std::uint8_t own_info_flags(const CommandSpec& c) {
  return c.keys.numkeys_at != 0 || c.keys.scanned() ? kInfoMovableKeys : 0;
}

void write_flags(ReplyWriter& r, const CommandSpec& c, std::uint8_t reference_bits) {
  std::size_t n = 0;
  auto has = [&](const InfoFlagName& f) {
    return (c.flags & f.command_bit) || (reference_bits & f.reference_bit);
  };
  for (const auto& f : kInfoFlagNames) n += has(f) ? 1 : 0;
  r.set_header(n);
  for (const auto& f : kInfoFlagNames)
    if (has(f)) r.simple(f.name);
}

void write_categories(ReplyWriter& r, const CommandSpec& c) {
  const std::uint32_t cats = command_acl_categories(c);
  std::size_t n = 0;
  for (const auto& cat : acl_category_names()) n += (cats & cat.flag) ? 1 : 0;
  r.set_header(n);
  for (const auto& cat : acl_category_names())
    if (cats & cat.flag) r.simple("@" + std::string(cat.name));
}

void write_begin_search(ReplyWriter& r, const ReferenceKeySpec& s) {
  r.bulk("begin_search");
  r.map_header(2);
  r.bulk("type");
  switch (s.begin_search) {
    case ReferenceKeySpec::BeginSearch::kIndex:
      r.bulk("index");
      r.bulk("spec");
      r.map_header(1);
      r.bulk("index");
      r.integer(s.begin);
      return;
    case ReferenceKeySpec::BeginSearch::kKeyword:
      r.bulk("keyword");
      r.bulk("spec");
      r.map_header(2);
      r.bulk("keyword");
      r.bulk(s.keyword);
      r.bulk("startfrom");
      r.integer(s.begin);
      return;
    case ReferenceKeySpec::BeginSearch::kUnknown:
      r.bulk("unknown");
      r.bulk("spec");
      r.map_header(0);
      return;
  }
}

void write_find_keys(ReplyWriter& r, const ReferenceKeySpec& s) {
  static constexpr std::string_view kRangeFields[] = {"lastkey", "keystep", "limit"};
  static constexpr std::string_view kKeynumFields[] = {"keynumidx", "firstkey", "keystep"};
  r.bulk("find_keys");
  r.map_header(2);
  r.bulk("type");
  if (s.find_keys == ReferenceKeySpec::FindKeys::kUnknown) {
    r.bulk("unknown");
    r.bulk("spec");
    r.map_header(0);
    return;
  }
  const bool range = s.find_keys == ReferenceKeySpec::FindKeys::kRange;
  r.bulk(range ? "range" : "keynum");
  r.bulk("spec");
  r.map_header(3);
  for (int i = 0; i < 3; ++i) {
    r.bulk(range ? kRangeFields[i] : kKeynumFields[i]);
    r.integer(s.find[i]);
  }
}

void write_key_spec(ReplyWriter& r, const ReferenceKeySpec& s) {
  r.map_header(s.notes.empty() ? 3 : 4);
  if (!s.notes.empty()) {
    r.bulk("notes");
    r.bulk(s.notes);
  }
  r.bulk("flags");
  write_key_spec_flags(r, s.flags);
  write_begin_search(r, s);
  write_find_keys(r, s);
}

// A command without a reference row: its KeySpec as the one spec Redis would declare for it.
ReferenceKeySpec own_key_spec(const CommandSpec& c) {
  ReferenceKeySpec s;
  s.flags = c.keys.not_key ? kKeySpecNotKey : (c.flags & kWrite) ? kKeySpecRw : kKeySpecRo;
  if (c.keys.numkeys_at) {
    s.begin = c.keys.numkeys_at;
    s.find_keys = ReferenceKeySpec::FindKeys::kKeynum;
    s.find[0] = 0;
    s.find[1] = 1;
    s.find[2] = 1;
  } else {
    s.begin = c.keys.first;
    s.find[0] = c.keys.last < 0 ? c.keys.last : c.keys.last - c.keys.first;
    s.find[1] = c.keys.step;
  }
  return s;
}

void write_doc_tokens(ReplyWriter& r, std::span<const DocToken> tokens) {
  for (const DocToken& t : tokens) {
    const auto n = static_cast<std::size_t>(t.number);
    switch (t.kind) {
      case DocToken::kMap: r.map_header(n); break;
      case DocToken::kSet: r.set_header(n); break;
      case DocToken::kArray: r.array_header(n); break;
      case DocToken::kBulk: r.bulk(t.text); break;
      case DocToken::kInteger: r.integer(t.number); break;
      case DocToken::kSimple: r.simple(t.text); break;
    }
  }
}

}  // namespace

std::uint32_t command_acl_categories(const CommandSpec& c) {
  const AclCommandCategories* row = acl_command_row(c.full_name);
  return row ? row->categories : acl_implicit_categories(c.flags);
}

void write_key_spec_flags(ReplyWriter& r, std::uint16_t flags) {
  std::size_t n = 0;
  for (const auto& f : key_spec_flag_names()) n += (flags & f.bit) ? 1 : 0;
  r.set_header(n);
  for (const auto& f : key_spec_flag_names())
    if (flags & f.bit) r.simple(f.name);
}

void write_command_info(ReplyWriter& r, const CommandSpec& c) {
  const CommandReference* ref = command_reference(c.full_name);
  r.array_header(10);
  r.bulk(c.full_name);
  r.integer(c.arity);
  write_flags(r, c, ref ? ref->info_flags : own_info_flags(c));
  const bool own_keys = !ref && c.keys.first > 0 && c.keys.numkeys_at == 0;
  r.integer(ref ? ref->first_key : own_keys ? c.keys.first : 0);
  r.integer(ref ? ref->last_key : own_keys ? c.keys.last : 0);
  r.integer(ref ? ref->key_step : own_keys ? c.keys.step : 0);
  write_categories(r, c);
  const auto tips = ref ? ref->tips() : std::span<const std::string_view>{};
  r.set_header(tips.size());
  for (std::string_view tip : tips) r.bulk(tip);
  if (ref) {
    r.set_header(ref->key_specs().size());
    for (const ReferenceKeySpec& s : ref->key_specs()) write_key_spec(r, s);
  } else if (c.keys.first > 0 || c.keys.numkeys_at > 0) {
    r.set_header(1);
    write_key_spec(r, own_key_spec(c));
  } else {
    r.set_header(0);
  }
  if (c.subcommands.empty()) {
    r.set_header(0);  // Redis: an empty set, an array when there are subcommands
    return;
  }
  r.array_header(c.subcommands.size());
  for (const auto& sub : c.subcommands) write_command_info(r, *sub);
}

void write_command_docs(ReplyWriter& r, const CommandSpec& c) {
  const CommandReference* ref = command_reference(c.full_name);
  const bool has_subs = !c.subcommands.empty();
  if (ref) {
    r.map_header(ref->doc_pairs + (has_subs ? 1u : 0u));
    write_doc_tokens(r, ref->doc_tokens());
  } else {
    r.map_header(has_subs ? 4 : 3);
    r.bulk("summary");
    r.bulk(c.summary);
    r.bulk("since");
    r.bulk(c.since);
    r.bulk("group");
    r.bulk(c.parent ? c.parent->group : c.group);
  }
  if (has_subs) {
    r.bulk("subcommands");
    r.map_header(c.subcommands.size());
    for (const auto& sub : c.subcommands) {
      r.bulk(sub->full_name);
      write_command_docs(r, *sub);
    }
  }
}

}  // namespace listd::server
