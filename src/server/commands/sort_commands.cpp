// SORT and SORT_RO (Redis 7.0 sort.c): a list, set or sorted set sorted by its elements or by
// the keys a BY pattern names, numerically or with ALPHA (strcoll, or binary order when the
// result is stored), then LIMIT, GET patterns and STORE into a list.
//
// Patterns: `*` is replaced by the element, `->field` after it reads a hash field, and GET `#`
// is the element itself; a pattern without `*` names no key (GET gives nil, BY means "do not
// sort"). Every key a pattern names is looked up as a read (counted in keyspace hits and
// misses, expired on the way), as Redis' lookupKeyByPattern does.
//
// What is deterministic, as in Redis: a numeric sort breaks ties by the elements' bytes; ALPHA
// without BY compares the elements themselves. ALPHA with BY leaves equal weights in no given
// order (Redis' qsort is not stable either), and a set not sorted (BY without `*`) comes in
// its own order unless the result is stored or a script asked: then it is sorted with ALPHA,
// so replicas and the AOF see the same list.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listd/base/redis_text.h"
#include "listd/server/acl_user.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/server/executor.h"
#include "listd/server/scripting.h"

namespace listd::server {
namespace {

using store::ValueType;

struct SortRequest {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;  // a BY pattern without `*` was given (sticky, as in Redis)
  long long limit_start = 0;
  long long limit_count = -1;
  std::optional<std::string_view> by;
  std::optional<std::string_view> store;
  std::vector<std::string_view> gets;
};

struct SortItem {
  std::string element;
  double score = 0;
  std::optional<std::string> weight;  // ALPHA BY: the weight key's value, none if missing
};

// The part of `s` a C string function sees (Redis' patterns are sds searched with strchr).
std::string_view c_string_part(std::string_view s) { return s.substr(0, s.find('\0')); }

bool has_star(std::string_view pattern) {
  return c_string_part(pattern).find('*') != std::string_view::npos;
}

// Redis' full key access for the command (ACLUserCheckCmdWithUnrestrictedKeyAccess): an
// internal client or an unrestricted user always has it.
bool reads_every_key(CommandContext& ctx) {
  const AclUser* user = ctx.client().user;
  return !user || user->unrestricted() || user->runs_reading_every_key(ctx.spec(), ctx.argv());
}

// Denies BY and GET patterns to a user who cannot read every key; false after replying.
bool pattern_allowed(CommandContext& ctx, bool& checked, bool& allowed, std::string_view what) {
  if (!checked) {
    allowed = reads_every_key(ctx);
    checked = true;
  }
  if (!allowed)
    ctx.reply().error("ERR " + std::string(what) +
                      " option of SORT denied due to insufficient ACL permissions.");
  return allowed;
}

// The option grammar in Redis' order: the first bad option is the error. False after replying.
bool parse_sort_request(CommandContext& ctx, bool readonly, SortRequest& req) {
  bool acl_checked = false, acl_allowed = false;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    const std::size_t left = ctx.argc() - j - 1;
    if (base::iequals(opt, "asc")) {
      req.desc = false;
    } else if (base::iequals(opt, "desc")) {
      req.desc = true;
    } else if (base::iequals(opt, "alpha")) {
      req.alpha = true;
    } else if (base::iequals(opt, "limit") && left >= 2) {
      if (!ctx.parse_integer(j + 1, req.limit_start) || !ctx.parse_integer(j + 2, req.limit_count))
        return false;
      j += 2;
    } else if (!readonly && base::iequals(opt, "store") && left >= 1) {
      req.store = ctx.arg(++j);
    } else if (base::iequals(opt, "by") && left >= 1) {
      req.by = ctx.arg(++j);
      if (!has_star(*req.by))
        req.dontsort = true;
      else if (!pattern_allowed(ctx, acl_checked, acl_allowed, "BY"))
        return false;
    } else if (base::iequals(opt, "get") && left >= 1) {
      if (!pattern_allowed(ctx, acl_checked, acl_allowed, "GET")) return false;
      req.gets.push_back(ctx.arg(++j));
    } else {
      ctx.reply().error(kSyntaxErr);
      return false;
    }
  }
  return true;
}

// Redis lookupKeyByPattern: the value `pattern` names for `element`, copied (later lookups may
// expire keys), or none: no `*`, no key, or a key of the wrong type.
std::optional<std::string> lookup_by_pattern(CommandContext& ctx, std::string_view pattern,
                                             std::string_view element) {
  const std::string_view searched = c_string_part(pattern);
  if (searched == "#") return std::string(element);
  const std::size_t star = searched.find('*');
  if (star == std::string_view::npos) return std::nullopt;
  const std::size_t arrow = searched.find("->", star + 1);
  const bool hash_field = arrow != std::string_view::npos && arrow + 2 < searched.size();
  const std::size_t key_end = hash_field ? arrow : pattern.size();
  std::string key;
  key.reserve(pattern.size() + element.size());
  key.append(pattern.substr(0, star)).append(element);
  key.append(pattern.substr(star + 1, key_end - star - 1));
  const store::Entry* e = ctx.read(key);
  if (!e) return std::nullopt;
  if (hash_field) {
    if (!e->value.is(ValueType::kHash)) return std::nullopt;
    const auto value = e->value.as_hash().get(pattern.substr(arrow + 2));
    return value ? std::optional<std::string>(*value) : std::nullopt;
  }
  if (!e->value.is(ValueType::kString)) return std::nullopt;
  return std::string(e->value.as_string().view());
}

// Redis' LIMIT arithmetic, kept exact: an empty range is start = len - 1, end = len - 2.
void resolve_limit(const SortRequest& req, long long len, long long& start, long long& end) {
  start = std::min(std::max(req.limit_start, 0LL), len);
  const long long count = std::min(std::max(req.limit_count, -1LL), len);
  end = count < 0 ? len - 1 : start + count - 1;
  if (start >= len) {
    start = len - 1;
    end = len - 2;
  }
  if (end >= len) end = len - 1;
}

// The elements to sort. An unsorted list or sorted set yields only the LIMIT range, in its own
// order (reversed by DESC); start/end are then rebased on it.
std::vector<SortItem> load_items(const store::Value* v, const SortRequest& req, long long& start,
                                 long long& end) {
  std::vector<SortItem> items;
  if (!v) return items;
  const auto add = [&](std::string_view element) { items.emplace_back().element = element; };
  const bool ranged = req.dontsort && !v->is(ValueType::kSet);
  const long long count = end - start + 1;
  if (v->is(ValueType::kList) && ranged) {
    const store::PackedList& list = v->as_list();
    if (count > 0) {
      const auto size = static_cast<long long>(list.size());
      const long long first = req.desc ? size - start - count : start;
      list.for_each_in_range(static_cast<std::size_t>(first),
                             static_cast<std::size_t>(first + count - 1), add);
      if (req.desc) std::reverse(items.begin(), items.end());
    }
  } else if (v->is(ValueType::kList)) {
    v->as_list().scan_forward([&](std::size_t, std::string_view element) { add(element); });
  } else if (v->is(ValueType::kSet)) {
    v->as_set().for_each([&](std::string_view member) { add(member); });
  } else if (ranged) {
    const store::ZSetValue& z = v->as_zset();
    const auto size = static_cast<long long>(z.size());
    if (count > 0) {
      store::ZCursor c = z.at_rank(static_cast<std::size_t>(req.desc ? size - 1 - start : start));
      for (long long i = 0; i < count && c.valid(); ++i) {
        add(c.member());
        req.desc ? c.prev() : c.next();
      }
    }
  } else {
    const store::ZSetValue& z = v->as_zset();
    for (store::ZCursor c = z.at_rank(0); c.valid(); c.next()) add(c.member());
  }
  if (ranged) {
    end -= start;
    start = 0;
  }
  return items;
}

// Redis' strtod rule for a weight: the whole text must convert (an empty one is 0), without
// overflow and not to NaN.
bool parse_weight(const std::string& text, double& out) {
  errno = 0;
  char* rest = nullptr;
  out = std::strtod(text.c_str(), &rest);
  return *rest == '\0' && errno != ERANGE && !std::isnan(out);
}

// compareStringObjects in binary mode (memcmp, then the shorter first).
int binary_compare(const std::string& a, const std::string& b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// Redis sortCompare; strcoll sees the C-string part, as there.
int compare_items(const SortItem& a, const SortItem& b, const SortRequest& req) {
  if (!req.alpha) {
    if (a.score != b.score) return a.score > b.score ? 1 : -1;
    return binary_compare(a.element, b.element);
  }
  const bool stored = req.store.has_value();
  if (req.by) {
    if (!a.weight || !b.weight) return a.weight == b.weight ? 0 : !a.weight ? -1 : 1;
    return stored ? binary_compare(*a.weight, *b.weight)
                  : std::strcoll(a.weight->c_str(), b.weight->c_str());
  }
  return stored ? binary_compare(a.element, b.element)
                : std::strcoll(a.element.c_str(), b.element.c_str());
}

// Loads each item's weight and sorts; false if a numeric weight does not convert (Redis still
// sorts, then answers the error).
bool sort_items(CommandContext& ctx, const SortRequest& req, std::vector<SortItem>& items) {
  bool converted = true;
  for (SortItem& item : items) {
    std::optional<std::string> weight;
    if (req.by) {
      weight = lookup_by_pattern(ctx, *req.by, item.element);
      if (!weight) continue;
    }
    if (req.alpha) {
      if (req.by) item.weight = std::move(weight);
    } else if (!parse_weight(req.by ? *weight : item.element, item.score)) {
      converted = false;
    }
  }
  std::sort(items.begin(), items.end(), [&](const SortItem& a, const SortItem& b) {
    const int c = compare_items(a, b, req);
    return req.desc ? c > 0 : c < 0;
  });
  return converted;
}

void reply_sorted(CommandContext& ctx, const SortRequest& req, const std::vector<SortItem>& items,
                  long long start, long long end, long long outputlen) {
  ctx.reply().array_header(static_cast<std::size_t>(outputlen));
  for (long long j = start; j <= end; ++j) {
    const std::string& element = items[static_cast<std::size_t>(j)].element;
    if (req.gets.empty()) ctx.reply().bulk(element);
    for (std::string_view pattern : req.gets) {
      const std::optional<std::string> value = lookup_by_pattern(ctx, pattern, element);
      value ? ctx.reply().bulk(*value) : ctx.reply().null();
    }
  }
}

// STORE: the result as a list (a missing GET value is ""), or the destination deleted when
// the result is empty.
void store_sorted(CommandContext& ctx, const SortRequest& req, const std::vector<SortItem>& items,
                  long long start, long long end, long long outputlen) {
  store::PackedList list;
  for (long long j = start; j <= end; ++j) {
    const std::string& element = items[static_cast<std::size_t>(j)].element;
    if (req.gets.empty()) list.push_back(element);
    for (std::string_view pattern : req.gets)
      list.push_back(lookup_by_pattern(ctx, pattern, element).value_or(std::string()));
  }
  const std::string_view dst = *req.store;
  if (outputlen > 0) {
    ctx.set_key(dst, store::Value(std::move(list)));
    ctx.notify(config::kNotifyList, "sortstore", dst);
    ctx.mark_dirty(outputlen);
    ctx.changed_key(dst);
  } else if (ctx.write(dst) && ctx.delete_key(dst)) {
    ctx.notify(config::kNotifyGeneric, "del", dst);
    ctx.mark_dirty();
    ctx.changed_key(dst);
  }
  ctx.reply().integer(outputlen);
}

void sort_generic(CommandContext& ctx, bool readonly) {
  SortRequest req;
  if (!parse_sort_request(ctx, readonly, req)) return;
  const store::Entry* e = ctx.read(ctx.arg(1));
  if (e && !e->value.is(ValueType::kList) && !e->value.is(ValueType::kSet) &&
      !e->value.is(ValueType::kZSet)) {
    ctx.reply().error(kWrongTypeErr);
    return;
  }
  const store::Value* v = e ? &e->value : nullptr;
  if (req.dontsort && v && v->is(ValueType::kSet) &&
      (req.store || ctx.exec().scripting().running())) {
    req.dontsort = false;  // a set's own order is not reproducible: sort it (Redis forces ALPHA)
    req.alpha = true;
    req.by.reset();
  }
  long long len = 0;
  if (v)
    len = static_cast<long long>(v->is(ValueType::kList)  ? v->as_list().size()
                                 : v->is(ValueType::kSet) ? v->as_set().size()
                                                          : v->as_zset().size());
  long long start = 0, end = 0;
  resolve_limit(req, len, start, end);
  std::vector<SortItem> items = load_items(v, req, start, end);
  e = nullptr;  // the weight and GET lookups below may expire keys: the entry is not used again
  bool converted = true;
  if (!req.dontsort) converted = sort_items(ctx, req, items);
  const long long span = end - start + 1;
  const long long outputlen =
      req.gets.empty() ? span : static_cast<long long>(req.gets.size()) * span;
  if (!converted)
    ctx.reply().error("ERR One or more scores can't be converted into double");
  else if (!req.store)
    reply_sorted(ctx, req, items, start, end, outputlen);
  else
    store_sorted(ctx, req, items, start, end, outputlen);
}

// SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC]
//   [ALPHA] [STORE destination]
void cmd_sort(CommandContext& ctx) { sort_generic(ctx, false); }
// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC]
//   [ALPHA]
void cmd_sort_ro(CommandContext& ctx) { sort_generic(ctx, true); }

}  // namespace

void register_sort_commands(CommandTable& table) {
  CommandFamily t = table.family("generic");
  t.add("sort", -2, kWrite | kDenyOom, KeySpec::sort_keys(), &cmd_sort, "1.0.0",
        "Sort the elements in a list, set or sorted set");
  t.add("sort_ro", -2, kReadonly, kFirstKey, &cmd_sort_ro, "7.0.0",
        "Sort the elements in a list, set or sorted set. Read-only variant of SORT.");
}

}  // namespace listd::server
