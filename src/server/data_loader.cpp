#include "listd/server/data_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "listd/base/scope_exit.h"
#include "listd/persistence/file_io.h"
#include "listd/persistence/rdb.h"
#include "listd/server/executor.h"
#include "listd/server/function_library.h"
#include "listd/server/rdb_access.h"
#include "listd/server/scripting.h"

namespace listd::server {
namespace {

namespace ps = listd::persistence;

// A rewrite child of a killed server leaves its temp base behind: never in the manifest.
void remove_leftover_temp_files(const std::string& dir, const std::string& prefix) {
  for (const std::string& name : ps::list_directory(dir))
    if (name.starts_with("temp-rewriteaof-bg-") || name == "temp-" + prefix + ".incr")
      ps::remove_file(ps::join_path(dir, name));
}

bool prefix_of(std::string_view text, std::string_view prefix) {
  return text.rfind(prefix, 0) == 0;
}

constexpr std::string_view kInterruptedText = "Loading interrupted by a shutdown";

std::uint64_t size_or_zero(const std::string& path) {
  return static_cast<std::uint64_t>(std::max(0LL, ps::file_size(path)));
}

}  // namespace

/// One file's replay: a loading client, the epoch clock and loading() on, undone at the end.
class DataLoader::ReplaySession {
  /// While loading, "now" is the epoch (see data_loader.h). A member type, not a file-local
  /// one: this class is declared in the header, so its fields may not use the anonymous
  /// namespace (-Wsubobject-linkage, which a unity build reports).
  class LoadingClock final : public Clock {
   public:
    explicit LoadingClock(const Clock& real) : real_(real) {}
    std::uint64_t monotonic_ms() const override { return real_.monotonic_ms(); }
    std::int64_t unix_ms() const override { return 0; }

   private:
    const Clock& real_;
  };

 public:
  explicit ReplaySession(DataLoader& loader)
      : loader_(loader),
        client_(loader.exec_.create_client(nullptr, "", "", -1)),
        clock_(loader.exec_.clock()) {
    client_.authenticated = true;
    loader_.exec_.set_clock_override(&clock_);
    loader_.replay_clock_ = &clock_;
  }
  ~ReplaySession() {
    loader_.replay_clock_ = nullptr;
    loader_.exec_.set_clock_override(nullptr);
    loader_.exec_.destroy_client(client_);
  }
  ReplaySession(const ReplaySession&) = delete;
  ReplaySession& operator=(const ReplaySession&) = delete;

  Client& client() noexcept { return client_; }

 private:
  DataLoader& loader_;
  Client& client_;
  LoadingClock clock_;
};

DataLoader::DataLoader(Executor& exec, const PersistenceLog& log) : exec_(exec), log_(log) {}

// The FUNCTION libraries of an RDB, compiled as Redis rdbFunctionLoad does (no timeout).
Status DataLoader::load_functions(const std::vector<std::string>& codes, const std::string& file) {
  for (const std::string& code : codes) {
    std::string error;
    if (exec_.scripting().functions().load(code, /*replace=*/false, 0, error).empty())
      return Status::error(fmt::format("Failed loading library from {}: {}", file, error));
  }
  return {};
}

bool DataLoader::serve_clients(std::uint64_t loaded) {
  progress_.set_loaded(loaded);
  if (tick_) (*tick_)();
  // The clients served meanwhile live in the present, not in the replay's epoch.
  exec_.set_clock_override(nullptr);
  exec_.run_events_while_busy();
  exec_.set_clock_override(replay_clock_);
  return !exec_.shutdown_requested();
}

void DataLoader::report_rdb_progress(ps::RdbLoadOptions& o, std::uint64_t offset) {
  o.progress_interval_bytes =
      static_cast<std::size_t>(exec_.config().settings().loading_process_events_interval_bytes);
  o.progress = [this, offset](std::size_t loaded, const ps::RdbLoadResult& so_far) {
    progress_.set_rdb_used_mem(so_far.rdb_used_mem);
    rdb_keys_loaded_ = so_far.keys;  // INFO counts them as they load, as Redis does
    rdb_expired_skipped_ = so_far.expired_skipped;
    return serve_clients(offset + loaded);
  };
}

void DataLoader::start_loading(std::uint64_t total_bytes) {
  progress_.start(exec_.clock().unix_ms() / 1000, total_bytes);
  rdb_keys_loaded_ = rdb_expired_skipped_ = 0;  // Redis startLoading
}

Status DataLoader::load_rdb(const std::string& path) {
  start_loading(size_or_zero(path));
  const base::ScopeExit stop([this] { progress_.stop(); });
  std::string data, err;
  if (!ps::read_file(path, data, err))
    return Status::error(fmt::format("Fatal error loading the DB: {}. Exiting.", err));
  ps::RdbLoadOptions o;
  o.now_ms = exec_.clock().unix_ms();
  o.skip_expired = true;
  restore_access(o, exec_.config().settings(), o.now_ms);
  report_rdb_progress(o, 0);
  const ps::RdbLoadResult r = ps::load_rdb(data, exec_.keyspace(), o);
  if (r.interrupted) return Status::error(std::string(kInterruptedText));
  if (!r.ok) return Status::error(fmt::format("Fatal error loading the DB {}: {}", path, r.error));
  if (Status s = load_functions(r.functions, path); !s) return s;
  rdb_keys_loaded_ = r.keys;
  rdb_expired_skipped_ = r.expired_skipped;
  log_.notice(fmt::format("Loading RDB {}: {} keys loaded, {} expired keys skipped", path, r.keys,
                          r.expired_skipped));
  return {};
}

ps::RdbLoadResult DataLoader::load_sync_payload(std::string_view data, store::Keyspace& into,
                                                ps::RdbLoadOptions options,
                                                const std::function<void()>& tick) {
  start_loading(data.size());
  tick_ = &tick;
  const base::ScopeExit stop([this] {
    tick_ = nullptr;
    progress_.stop();
  });
  report_rdb_progress(options, 0);
  ps::RdbLoadResult r = ps::load_rdb(data, into, options);
  if (r.ok) {
    rdb_keys_loaded_ = r.keys;
    rdb_expired_skipped_ = r.expired_skipped;
  }
  return r;
}

Result<LoadedAof> DataLoader::load_aof(const std::string& dir, const std::string& prefix,
                                       const std::string& legacy_dir) {
  LoadedAof aof;
  files_loaded_bytes_ = 0;
  const base::ScopeExit stop([this] { progress_.stop(); });
  if (!ps::file_exists(ps::join_path(dir, ps::manifest_file_name(prefix)))) {
    start_loading(size_or_zero(ps::join_path(legacy_dir, prefix)));
    if (Status s = load_legacy(legacy_dir, prefix); !s) return s;
    return aof;
  }
  if (Status s = read_manifest(dir, prefix, aof.manifest); !s) return s;
  remove_leftover_temp_files(dir, prefix);
  if (!aof.manifest.base && aof.manifest.incrs.empty()) return aof;
  // Redis startLoading with the size of the base and every incr file.
  std::uint64_t total =
      aof.manifest.base ? size_or_zero(ps::join_path(dir, aof.manifest.base->name)) : 0;
  for (const auto& i : aof.manifest.incrs) total += size_or_zero(ps::join_path(dir, i.name));
  start_loading(total);
  if (Status s = load_manifest_files(dir, aof); !s) return s;
  return aof;
}

// A single-file AOF (Redis < 7.0 or a hand-made one), if there is one: loaded, then a multi-part
// AOF starts from the loaded data. The old file is left in place.
Status DataLoader::load_legacy(const std::string& legacy_dir, const std::string& name) {
  const std::string legacy = ps::join_path(legacy_dir, name);
  if (!ps::file_exists(legacy)) return {};
  log_.notice(fmt::format("Loading the old-style AOF file {}", legacy));
  return load_file(legacy_dir, name, true);
}

Status DataLoader::read_manifest(const std::string& dir, const std::string& prefix,
                                 ps::AofManifest& m) {
  const std::string path = ps::join_path(dir, ps::manifest_file_name(prefix));
  std::string text, err;
  if (!ps::read_file(path, text, err))
    return Status::error(
        fmt::format("Fatal error: can't open the AOF manifest file {} for reading: {}", path, err));
  ps::ManifestError merr;
  if (ps::parse_manifest(text, m, merr)) return {};
  std::string error = "*** FATAL AOF MANIFEST FILE ERROR *** ";
  if (merr.line > 0)
    error += fmt::format("Reading the manifest file, at line {} >>> '{}' ", merr.line, merr.text);
  error += merr.message;
  return Status::error(std::move(error));
}

// The base, then every incr file, in manifest order; only the last may have a torn tail.
Status DataLoader::load_manifest_files(const std::string& dir, LoadedAof& aof) {
  std::vector<std::pair<std::string, bool>> files;  // name, is the base
  if (aof.manifest.base) files.emplace_back(aof.manifest.base->name, true);
  for (const auto& i : aof.manifest.incrs) files.emplace_back(i.name, false);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [name, base] = files[i];
    if (!ps::file_exists(ps::join_path(dir, name)))
      return Status::error(
          fmt::format("The {} AOF file {} doesn't exist", base ? "base" : "incr", name));
    if (Status s = load_file(dir, name, i + 1 == files.size()); !s) return s;
  }
  for (const auto& f : files) aof.size += std::max(0LL, ps::file_size(ps::join_path(dir, f.first)));
  aof.replayed = true;
  return {};
}

Status DataLoader::load_file(const std::string& dir, const std::string& name, bool last) {
  const std::string path = ps::join_path(dir, name);
  if (ps::file_size(path) <= 0) return {};  // an empty file (a fresh incr) is fine
  ReplaySession session(*this);
  ps::AofLoadResult r;
  if (Status s = replay(path, name, session.client(), r); !s) return s;
  if (r.interrupted) return Status::error(std::string(kInterruptedText));
  files_loaded_bytes_ += size_or_zero(path);
  if (r.reverted_multi) {
    exec_.transactions().discard(session.client());
    log_.warning(fmt::format("Revert incomplete MULTI/EXEC transaction in AOF file {}", name));
  }
  if (Status s = check_result(r, path, name, last); !s) return s;
  log_.notice(fmt::format("DB loaded from {} file {}: {} commands",
                          name.find(".base.") != std::string::npos ? "base" : "append only", name,
                          r.commands));
  return {};
}

// Runs the file's commands (after its RDB preamble, if it starts with one) on `client`.
Status DataLoader::replay(const std::string& path, const std::string& name, Client& client,
                          ps::AofLoadResult& r) {
  std::uint64_t critical = 0;
  const ps::AofCommandSink sink = [&](std::span<const std::string_view> argv, std::string& err) {
    if (!exec_.replay(client, argv, err)) {
      err = fmt::format("Unknown command '{}' reading the append only file {}", argv[0], name);
      return false;
    }
    if (client.out.empty()) return true;
    if (client.out[0] == '-' && critical++ < 10)
      log_.warning(
          fmt::format("== CRITICAL == This server is sending an error to its "
                      "AOF-loading-client: '{}' after processing the command '{}'",
                      client.out.substr(1, client.out.find('\r') - 1), argv[0]));
    client.out.clear();
    return true;
  };
  const std::uint64_t before = files_loaded_bytes_;
  const ps::AofProgress progress = [this, before](std::uint64_t offset) {
    return serve_clients(before + offset);
  };
  if (!ps::file_starts_with(path, "REDIS")) {
    r = ps::load_aof_file(path, sink, 0, progress);
    return {};
  }
  std::string data, err;
  if (!ps::read_file(path, data, err))
    return Status::error(
        fmt::format("Unrecoverable error reading the append only file {}: {}", name, err));
  ps::RdbLoadOptions o;
  o.now_ms = 0;
  o.skip_expired = false;  // the AOF DELs what expired
  report_rdb_progress(o, before);
  const ps::RdbLoadResult rr = ps::load_rdb(data, exec_.keyspace(), o);
  if (rr.interrupted) return Status::error(std::string(kInterruptedText));
  if (!rr.ok)
    return Status::error(fmt::format(
        "Bad file format reading the RDB preamble of the append only file {}: {}", name, rr.error));
  if (Status s = load_functions(rr.functions, name); !s) return s;
  r = ps::load_aof_bytes(std::string_view(data).substr(rr.consumed), sink, rr.consumed, progress);
  if (r.status == ps::AofLoadStatus::kEmpty) r.status = ps::AofLoadStatus::kOk;
  return {};
}

Status DataLoader::check_result(const ps::AofLoadResult& r, const std::string& path,
                                const std::string& name, bool last) {
  switch (r.status) {
    case ps::AofLoadStatus::kOk:
    case ps::AofLoadStatus::kEmpty: return {};
    case ps::AofLoadStatus::kFailed:
      if (prefix_of(r.error, "Unknown command") || prefix_of(r.error, "Unrecoverable") ||
          prefix_of(r.error, "Can't"))
        return Status::error(fmt::format("{} (offset {})", r.error, r.error_offset));
      return Status::error(fmt::format(
          "Bad file format reading the append only file {} at offset {}: {}. Make a backup of "
          "your AOF file, then use redis-check-aof --fix <filename.manifest>",
          name, r.error_offset, r.error));
    case ps::AofLoadStatus::kTruncated: break;
  }
  if (!last)
    return Status::error(fmt::format(
        "Fatal error: the truncated file {} is not the last file (valid up to offset {})", name,
        r.valid_up_to));
  if (!exec_.config().settings().aof_load_truncated)
    return Status::error(fmt::format(
        "Unexpected end of file reading the append only file {} (valid up to offset {}). You "
        "can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix "
        "<filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' "
        "configuration option to yes and restart the server.",
        name, r.valid_up_to));
  log_.warning(fmt::format("!!! Warning: short read while loading the AOF file {}!!!", name));
  log_.warning(fmt::format("!!! Truncating the AOF {} at offset {} !!!", name, r.valid_up_to));
  return cut_torn_tail(path, name, r.valid_up_to);
}

// The cut must be durable before anything is appended after it.
Status DataLoader::cut_torn_tail(const std::string& path, const std::string& name,
                                 std::uint64_t valid_up_to) {
  std::string err;
  if (!ps::truncate_file(path, static_cast<long long>(valid_up_to), err))
    return Status::error(fmt::format("Error truncating the AOF file {}: {}", name, err));
  if (!ps::sync_file(path, err))
    return Status::error(fmt::format("Error syncing the truncated AOF file {}", name));
  return {};
}

}  // namespace listd::server
