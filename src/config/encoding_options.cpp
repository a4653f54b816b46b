// The limits of the small forms of hashes, sorted sets and sets: Redis 7.0's size_t configs
// hash-max-listpack-entries, hash-max-listpack-value, zset-max-listpack-entries,
// zset-max-listpack-value (each with its old "ziplist" name) and set-max-intset-entries, all
// 0..LONG_MAX with unsigned bounds, the *-value ones memory configs (read "1kb", printed in
// bytes, rewritten as 1kb). The executor hands them to the store (store/encoding_limits.h).
#include <climits>

#include "option_builders.h"
#include "option_table.h"

namespace listd::config::detail {

void add_encoding_options(std::vector<OptionSpec>& t) {
  using S = ServerSettings;
  constexpr unsigned kNone = 0;
  t.push_back(aliased(unsigned_integer<&S::hash_max_listpack_entries>("hash-max-listpack-entries",
                                                                      kNone, 0, LONG_MAX, 512),
                      "hash-max-ziplist-entries"));
  t.push_back(unsigned_integer<&S::set_max_intset_entries>("set-max-intset-entries", kNone, 0,
                                                           LONG_MAX, 512));
  t.push_back(aliased(unsigned_integer<&S::zset_max_listpack_entries>("zset-max-listpack-entries",
                                                                      kNone, 0, LONG_MAX, 128),
                      "zset-max-ziplist-entries"));
  t.push_back(aliased(
      memory<&S::hash_max_listpack_value>("hash-max-listpack-value", kNone, 0, LONG_MAX, 64, true),
      "hash-max-ziplist-value"));
  t.push_back(aliased(
      memory<&S::zset_max_listpack_value>("zset-max-listpack-value", kNone, 0, LONG_MAX, 64, true),
      "zset-max-ziplist-value"));
}

}  // namespace listd::config::detail
