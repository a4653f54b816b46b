#include "listd/server/key_finder.h"

#include <cstdlib>
#include <string>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/server/command_reference.h"
#include "listd/server/command_table.h"

namespace listd::server {
namespace {

using Argv = std::span<const std::string_view>;
using Keys = std::vector<KeyReference>;

std::string_view arg_at(Argv argv, int i) { return argv[static_cast<std::size_t>(i)]; }

// Where a keyword begin_search puts the first key: after the keyword's first match walking from
// startfrom (from the end when negative), the last argument never taken; 0 when absent.
int keyword_first_key(const ReferenceKeySpec& spec, Argv argv) {
  const int argc = static_cast<int>(argv.size());
  const int start = spec.begin > 0 ? spec.begin : argc + spec.begin;
  const int end = spec.begin > 0 ? argc - 1 : 1;
  for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
    if (i >= argc || i < 1) break;
    if (base::iequals(arg_at(argv, i), spec.keyword)) return i + 1;
  }
  return 0;
}

// One spec's [first, last] and step (a keynum spec moves `first` past its count); false when
// it cannot be followed (Redis' invalid_spec).
bool spec_range(const ReferenceKeySpec& spec, Argv argv, int& first, int& last, int& step) {
  const int argc = static_cast<int>(argv.size());
  if (spec.find_keys == ReferenceKeySpec::FindKeys::kRange) {
    const int lastkey = spec.find[0], limit = spec.find[2];
    step = spec.find[1];
    if (lastkey >= 0)
      last = first + lastkey;
    else if (limit == 0)
      last = argc + lastkey;
    else
      last = first + ((argc - first) / limit + lastkey);
    return true;
  }
  if (spec.find_keys != ReferenceKeySpec::FindKeys::kKeynum) return false;
  const int numkeys_at = first + spec.find[0];
  long long numkeys = 0;
  if (spec.find[0] >= argc || numkeys_at >= argc ||
      !base::parse_strict_integer(arg_at(argv, numkeys_at), numkeys) || numkeys < 0 ||
      numkeys > argc)
    return false;
  step = spec.find[2];
  first += spec.find[1];
  last = first + static_cast<int>(numkeys) - 1;
  return true;
}

// Redis getKeysUsingKeySpecs (GET_KEYSPEC_DEFAULT): false, with no keys, when a spec cannot be
// followed or is incomplete.
bool keys_from_specs(const CommandReference& ref, Argv argv, Keys& out) {
  const int argc = static_cast<int>(argv.size());
  for (const ReferenceKeySpec& spec : ref.key_specs()) {
    if (spec.flags & kKeySpecNotKey) continue;
    int first = 0;
    if (spec.begin_search == ReferenceKeySpec::BeginSearch::kIndex) {
      first = spec.begin;
    } else if (spec.begin_search == ReferenceKeySpec::BeginSearch::kKeyword) {
      first = keyword_first_key(spec, argv);
      if (first == 0) continue;
    }
    int last = 0, step = 1;
    const bool followed = first > 0 && spec_range(spec, argv, first, last, step) && last < argc &&
                          last >= first && first < argc && step > 0;
    if (!followed || (spec.flags & kKeySpecIncomplete)) {
      out.clear();
      return false;
    }
    for (int i = first; i <= last; i += step) out.push_back({i, spec.flags});
  }
  return true;
}

// Redis genericGetKeys: the count read with atoi, no keys when it is out of range, the
// destination last.
Keys counted_keys(Argv argv, int store_at, int count_at, int first) {
  const int argc = static_cast<int>(argv.size());
  if (count_at >= argc) return {};
  const int n = std::atoi(std::string(arg_at(argv, count_at)).c_str());
  if (n < 1 || n > argc - first) return {};
  Keys out;
  for (int i = 0; i < n; ++i) out.push_back({first + i, 0});
  if (store_at) out.push_back({store_at, 0});
  return out;
}

// Redis sortGetKeys: options skipped by their argument counts, the last STORE's key.
Keys sort_keys(Argv argv, bool read_only) {
  Keys out{{1, kKeySpecRo | kKeySpecAccess}};
  if (read_only) return out;
  const int argc = static_cast<int>(argv.size());
  int store_at = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = arg_at(argv, i);
    if (base::iequals(a, "limit"))
      i += 2;
    else if (base::iequals(a, "get") || base::iequals(a, "by"))
      i += 1;
    else if (base::iequals(a, "store") && i + 1 < argc)
      store_at = i + 1;
  }
  if (store_at) out.push_back({store_at, kKeySpecOw | kKeySpecUpdate});
  return out;
}

// Redis georadiusGetKeys: the key, then the last STORE or STOREDIST key from argv[5].
Keys georadius_keys(Argv argv) {
  const int argc = static_cast<int>(argv.size());
  int stored = 0;
  for (int i = 5; i + 1 < argc; ++i)
    if (base::iequals(arg_at(argv, i), "store") || base::iequals(arg_at(argv, i), "storedist"))
      stored = ++i;
  Keys out{{1, 0}};
  if (stored) out.push_back({stored, 0});
  return out;
}

// Redis xreadGetKeys: STREAMS after the options, then the first half of the rest.
Keys xread_keys(Argv argv) {
  const int argc = static_cast<int>(argv.size());
  int streams_at = 0;
  for (int i = 1; i < argc && !streams_at; ++i) {
    const std::string_view a = arg_at(argv, i);
    if (base::iequals(a, "block") || base::iequals(a, "count"))
      ++i;
    else if (base::iequals(a, "group"))
      i += 2;
    else if (base::iequals(a, "streams"))
      streams_at = i;
    else if (!base::iequals(a, "noack"))
      break;
  }
  const int n = streams_at ? argc - streams_at - 1 : 0;
  if (n == 0 || n % 2 != 0) return {};
  Keys out;
  for (int i = streams_at + 1; i < argc - n / 2; ++i) out.push_back({i, 0});
  return out;
}

// Redis setGetKeys: GET makes SET read the key too.
Keys set_keys(Argv argv) {
  for (std::size_t i = 3; i < argv.size(); ++i)
    if (base::iequals(argv[i], "get")) return {{1, kKeySpecRw | kKeySpecAccess | kKeySpecUpdate}};
  return {{1, kKeySpecOw | kKeySpecUpdate}};
}

// Redis bitfieldGetKeys: read-only while every operation is a complete GET or OVERFLOW.
Keys bitfield_keys(Argv argv) {
  const int argc = static_cast<int>(argv.size());
  bool read_only = true;
  for (int i = 2; i < argc; ++i) {
    const int rest = argc - i - 1;
    const std::string_view a = arg_at(argv, i);
    if (base::iequals(a, "get") && rest >= 2) {
      i += 2;
    } else if (base::iequals(a, "overflow") && rest >= 1) {
      i += 1;
    } else {
      read_only = false;  // a write, or a syntax error: assumed not read-only, as Redis
      break;
    }
  }
  if (read_only) return {{1, kKeySpecRo | kKeySpecAccess}};
  return {{1, kKeySpecRw | kKeySpecAccess | kKeySpecUpdate}};
}

// Redis migrateGetKeys: argv[3], or the keys after KEYS (none when argv[3] is not empty, the
// syntax error MIGRATE itself reports), the values of AUTH and AUTH2 skipped on the way.
Keys migrate_keys(Argv argv) {
  const int argc = static_cast<int>(argv.size());
  int first = 3, count = 1;
  for (int i = 6; i < argc; ++i) {
    const std::string_view a = arg_at(argv, i);
    if (base::iequals(a, "keys")) {
      first = i + 1;
      count = arg_at(argv, 3).empty() ? argc - first : 0;
      break;
    }
    if (base::iequals(a, "auth"))
      i += 1;
    else if (base::iequals(a, "auth2"))
      i += 2;
  }
  Keys out;
  for (int i = 0; i < count; ++i)
    out.push_back({first + i, kKeySpecRw | kKeySpecAccess | kKeySpecDelete});
  return out;
}

Keys numkeys_first_keys(Argv argv) { return counted_keys(argv, 0, 1, 2); }
Keys numkeys_second_keys(Argv argv) { return counted_keys(argv, 0, 2, 3); }
Keys destination_numkeys_keys(Argv argv) { return counted_keys(argv, 1, 2, 3); }
Keys sort_store_keys(Argv argv) { return sort_keys(argv, false); }
Keys sort_ro_keys(Argv argv) { return sort_keys(argv, true); }

// Redis' getkeys_proc per command (the commands listd has): used when the specs fail.
struct KeyFunction {
  std::string_view name;
  Keys (*find)(Argv);
};
constexpr KeyFunction kKeyFunctions[] = {
    {"bitfield", &bitfield_keys},
    {"blmpop", &numkeys_second_keys},
    {"bzmpop", &numkeys_second_keys},
    {"eval", &numkeys_second_keys},
    {"eval_ro", &numkeys_second_keys},
    {"evalsha", &numkeys_second_keys},
    {"evalsha_ro", &numkeys_second_keys},
    {"fcall", &numkeys_second_keys},
    {"fcall_ro", &numkeys_second_keys},
    {"georadius", &georadius_keys},
    {"georadiusbymember", &georadius_keys},
    {"lmpop", &numkeys_first_keys},
    {"migrate", &migrate_keys},
    {"set", &set_keys},
    {"sintercard", &numkeys_first_keys},
    {"sort", &sort_store_keys},
    {"sort_ro", &sort_ro_keys},
    {"xread", &xread_keys},
    {"xreadgroup", &xread_keys},
    {"zdiff", &numkeys_first_keys},
    {"zdiffstore", &destination_numkeys_keys},
    {"zinter", &numkeys_first_keys},
    {"zintercard", &numkeys_first_keys},
    {"zinterstore", &destination_numkeys_keys},
    {"zmpop", &numkeys_first_keys},
    {"zunion", &numkeys_first_keys},
    {"zunionstore", &destination_numkeys_keys},
};

const KeyFunction* key_function(std::string_view full_name) {
  for (const KeyFunction& f : kKeyFunctions)
    if (f.name == full_name) return &f;
  return nullptr;
}

}  // namespace

std::vector<KeyReference> find_command_keys(const CommandSpec& spec, Argv argv) {
  Keys out;
  const CommandReference* ref = command_reference(spec.full_name);
  if (ref == nullptr) {
    for (int pos : spec.key_positions(argv))
      out.push_back({pos, kKeySpecRw | kKeySpecAccess | kKeySpecUpdate});
    return out;
  }
  bool has_key_spec = false, variable_flags = false;
  for (const ReferenceKeySpec& s : ref->key_specs()) {
    has_key_spec = has_key_spec || !(s.flags & kKeySpecNotKey);
    variable_flags = variable_flags || (s.flags & kKeySpecVariableFlags);
  }
  // Redis prefers the specs when their flags hold for any arguments.
  if (has_key_spec && !variable_flags && keys_from_specs(*ref, argv, out)) return out;
  out.clear();
  if (const KeyFunction* f = key_function(spec.full_name)) out = f->find(argv);
  // Redis' key functions name argv[1] whatever the arity, which Redis checks first; a caller
  // that checks less (a selector test with the name alone) gets only the keys that are there.
  std::erase_if(out, [&](const KeyReference& k) { return k.pos >= static_cast<int>(argv.size()); });
  return out;
}

bool command_has_keys(const CommandSpec& spec) {
  const CommandReference* ref = command_reference(spec.full_name);
  if (ref == nullptr)
    return !spec.keys.not_key &&
           (spec.keys.first > 0 || spec.keys.numkeys_at > 0 || spec.keys.scanned());
  for (const ReferenceKeySpec& s : ref->key_specs())
    if (!(s.flags & kKeySpecNotKey)) return true;
  return key_function(spec.full_name) != nullptr;
}

bool command_keys_optional(const CommandSpec& spec) {
  const CommandReference* ref = command_reference(spec.full_name);
  return ref != nullptr && (ref->info_flags & kInfoNoMandatoryKeys);
}

}  // namespace listd::server
