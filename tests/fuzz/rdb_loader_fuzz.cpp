// Fuzz target for the RDB loader (listd::persistence::load_rdb: every opcode, object type and
// encoding of RDB v9/v10, listpacks, intsets, ziplists, streams and their groups, the CRC-64).
//
// Invariants checked for every input:
//  - loading never crashes or reads out of bounds; a refusal carries an error text;
//  - what loads is written again (rdb_to_string), with and without rdbcompression's LZF strings,
//    and each file loads, with the same key count per database: whatever listd accepts it can
//    save and read back.
// Seeds: RDB files written by redis-server 7.0.15 (tests/fuzz/corpus/rdb/).
//
// Built as a libFuzzer target with clang; with LISTD_FUZZ_REPLAY it gets a main() (fuzz_replay.h)
// that runs the committed seeds and a fixed number of their mutations, for CI's gcc builds.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "listd/persistence/rdb.h"
#include "listd/store/database.h"

namespace {

constexpr int kDatabases = 16;

[[noreturn]] void die(const char* what, std::string_view detail) {
  std::fprintf(stderr, "rdb_loader invariant violated: %s: %.*s\n", what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace listd;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  store::Keyspace keyspace(kDatabases);
  persistence::RdbLoadOptions options;
  options.skip_expired = false;  // keep every key: the reload must find as many
  const persistence::RdbLoadResult loaded = persistence::load_rdb(bytes, keyspace, options);
  if (!loaded.ok) {
    if (loaded.error.empty()) die("a refusal without an error", "");
    return 0;
  }
  for (const bool compress : {true, false}) {
    persistence::RdbSaveOptions save;
    save.functions = loaded.functions;
    save.compress = compress;
    const std::string again = persistence::rdb_to_string(keyspace, save);
    store::Keyspace reloaded(kDatabases);
    const persistence::RdbLoadResult second = persistence::load_rdb(again, reloaded, options);
    if (!second.ok) die("listd's own RDB does not load", second.error);
    for (int db = 0; db < kDatabases; ++db) {
      if (keyspace.db(db).size() != reloaded.db(db).size())
        die("the reloaded RDB has another key count", std::to_string(db));
    }
  }
  return 0;
}

#ifdef LISTD_FUZZ_REPLAY
#include "fuzz_replay.h"
int main(int argc, char** argv) { return listd::fuzz::replay_main(argc, argv, "rdb_loader"); }
#endif
