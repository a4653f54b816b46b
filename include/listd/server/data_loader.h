// Loading at start-up: dump.rdb, or the AOF's files in manifest order (an RDB preamble, then
// commands replayed through the command table by a loading client). While anything loads:
//  - loading() is true: the replayed commands' effects are not logged again, and other clients
//    get -LOADING but for the kLoading commands (loading_progress.h);
//  - the clients are served every loading-process-events-interval-bytes of an RDB and every
//    1024 AOF commands (Executor::run_events_while_busy), with the real clock; a shutdown
//    requested meanwhile (SHUTDOWN, SIGTERM) stops the load, which then fails;
// While a file replays:
//  - "now" is the epoch: no key expires in the middle of a replay (Redis does not expire keys
//    while loading either); the log's own DELs remove what had expired;
//  - a torn tail of the last file is cut when aof-load-truncated allows it (durably, before
//    anything is appended after it); any other damage stops the start.
// The loader only reads (and cuts a torn tail); what to append to next is AofRewrite's business.
// A replica's full-sync payload loads through the same machinery (load_sync_payload): -LOADING,
// INFO loading:1 and the loading_* figures, the clients served between chunks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "listd/persistence/aof_loader.h"
#include "listd/persistence/aof_manifest.h"
#include "listd/server/loading_progress.h"
#include "listd/server/persistence_log.h"
#include "listd/server/status.h"

namespace listd::persistence {
struct RdbLoadOptions;
struct RdbLoadResult;
}  // namespace listd::persistence

namespace listd::store {
class Keyspace;
}

namespace listd::server {

class Clock;
class Executor;
struct Client;

/// What load_aof() found.
struct LoadedAof {
  /// The manifest on disk (empty when there is none).
  persistence::AofManifest manifest;
  /// True when its files were replayed; false when a fresh AOF must be started (no manifest,
  /// one that lists no file, or an old-style single-file AOF that was loaded instead).
  bool replayed = false;
  /// Bytes of the replayed files.
  long long size = 0;
};

class DataLoader {
 public:
  DataLoader(Executor& exec, const PersistenceLog& log);

  /// True while dump.rdb or the AOF loads.
  bool loading() const noexcept { return progress_.active(); }
  /// The figures of the load in progress (INFO loading_*).
  const LoadingProgress& progress() const noexcept { return progress_; }
  /// Loads dump.rdb at `path` into the keyspace (keys already expired are skipped).
  Status load_rdb(const std::string& path);
  /// Loads the AOF in `dir` (manifest `<prefix>.manifest`), or the old-style single file
  /// `legacy_dir/<prefix>` when there is no manifest. The error is the start-up failure message.
  Result<LoadedAof> load_aof(const std::string& dir, const std::string& prefix,
                             const std::string& legacy_dir);
  /// A replica's full-sync payload (Redis readSyncBulkPayload's rdbLoad) into `into`, loading()
  /// meanwhile; `options`' progress fields are set here. `tick` runs at every progress point
  /// before the clients are served (the keep-alive newline to the master). A shutdown requested
  /// meanwhile interrupts it (`interrupted`).
  persistence::RdbLoadResult load_sync_payload(std::string_view data, store::Keyspace& into,
                                               persistence::RdbLoadOptions options,
                                               const std::function<void()>& tick);

  // INFO (the last dump.rdb loaded).
  std::uint64_t rdb_keys_loaded() const noexcept { return rdb_keys_loaded_; }
  std::uint64_t rdb_expired_skipped() const noexcept { return rdb_expired_skipped_; }

 private:
  /// Compiles an RDB's FUNCTION libraries into the server's (a failure stops the load).
  Status load_functions(const std::vector<std::string>& codes, const std::string& file);
  class ReplaySession;

  Status load_legacy(const std::string& legacy_dir, const std::string& name);
  Status read_manifest(const std::string& dir, const std::string& prefix,
                       persistence::AofManifest& m);
  Status load_manifest_files(const std::string& dir, LoadedAof& aof);
  Status load_file(const std::string& dir, const std::string& name, bool last);
  Status replay(const std::string& path, const std::string& name, Client& client,
                persistence::AofLoadResult& r);
  Status check_result(const persistence::AofLoadResult& r, const std::string& path,
                      const std::string& name, bool last);
  Status cut_torn_tail(const std::string& path, const std::string& name, std::uint64_t valid_up_to);
  /// Redis startLoading: the figures of a load of `total_bytes` (0: unknown) start.
  void start_loading(std::uint64_t total_bytes);
  /// The progress callbacks' body: records `loaded` bytes (of the whole load), serves the ready
  /// clients. False when a shutdown was requested: the load stops.
  bool serve_clients(std::uint64_t loaded);
  /// An RDB's options for a load reporting progress from `offset` bytes of the whole load.
  void report_rdb_progress(persistence::RdbLoadOptions& o, std::uint64_t offset);

  Executor& exec_;
  const PersistenceLog& log_;
  LoadingProgress progress_;
  std::uint64_t files_loaded_bytes_ = 0;         // the AOF files replayed before the current one
  const Clock* replay_clock_ = nullptr;          // the epoch clock of the file replaying, if any
  const std::function<void()>* tick_ = nullptr;  // load_sync_payload's, while it runs
  std::uint64_t rdb_keys_loaded_ = 0;
  std::uint64_t rdb_expired_skipped_ = 0;
};

}  // namespace listd::server
