// The access word in an RDB file: see rdb_access.h.
#include "listd/server/rdb_access.h"

#include "listd/server/key_access.h"

namespace listd::server {

void record_access(persistence::RdbSaveOptions& o, const config::ServerSettings& s,
                   std::int64_t now_ms) {
  using Record = persistence::RdbSaveOptions::AccessRecord;
  if (config::is_lfu(s.maxmemory_policy)) {
    o.access_record = Record::kFreq;
    const int decay = s.lfu_decay_time;
    o.access_value = [now_ms, decay](std::uint32_t lru) -> std::uint64_t {
      return lfu_frequency(lru, now_ms, decay);
    };
  } else if (records_idle(s.maxmemory_policy)) {
    o.access_record = Record::kIdle;
    o.access_value = [now_ms](std::uint32_t lru) -> std::uint64_t {
      return idle_ms(lru, now_ms) / 1000;
    };
  }
}

void restore_access(persistence::RdbLoadOptions& o, const config::ServerSettings& s,
                    std::int64_t now_ms) {
  o.access_word = [&s, now_ms](long long idle_s, long long freq) {
    return access_word_from(s, now_ms, idle_s, freq, initial_access(s, now_ms));
  };
}

}  // namespace listd::server
