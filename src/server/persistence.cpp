#include "listd/server/persistence.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "listd/persistence/aof_loader.h"
#include "listd/persistence/file_io.h"
#include "listd/persistence/rdb.h"
#include "listd/server/executor.h"
#include "listd/server/version.h"

namespace listd::server {
namespace {

namespace ps = listd::persistence;

/// While loading, "now" is the epoch: no key expires in the middle of a replay (Redis does not
/// expire keys while loading either); the log's own DELs remove what had expired.
class LoadingClock final : public Clock {
 public:
  explicit LoadingClock(const Clock& real) : real_(real) {}
  std::uint64_t monotonic_ms() const override { return real_.monotonic_ms(); }
  std::int64_t unix_ms() const override { return 0; }

 private:
  const Clock& real_;
};

int open_append(const std::string& path, std::string& err) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) err = std::strerror(errno);
  return fd;
}

std::string_view status_word(bool ok) { return ok ? "ok" : "err"; }

// In a forked child: default SIGUSR1 (the parent stops it with that) and, on Linux, die with the
// parent, so a killed listd leaves no orphan writer behind.
void prepare_child() {
  ::signal(SIGUSR1, SIG_DFL);
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
}

}  // namespace

Persistence::Persistence(Executor& exec) : exec_(exec) {
  auto alive = std::make_shared<bool>(true);
  exec_.config().on_change([this, weak = std::weak_ptr<bool>(alive)](std::string_view name) {
    if (weak.expired()) return;
    if (name == "appendonly") on_appendonly_changed();
  });
  alive_ = std::move(alive);
}

Persistence::~Persistence() { stop_syncer(); if (incr_fd_ >= 0) ::close(incr_fd_); }

void Persistence::log(config::LogLevel level, std::string_view msg) const {
  if (log_) {
    log_(level, msg);
  } else if (level >= config::LogLevel::kNotice) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(msg.size()), msg.data());
  }
}

void Persistence::fatal(std::string_view msg) {
  log(config::LogLevel::kWarning, msg);
  if (fatal_) fatal_();
  std::exit(1);
}

std::int64_t Persistence::now_ms() const { return exec_.clock().unix_ms(); }

std::string Persistence::aof_dir() const {
  const config::ServerSettings& s = exec_.config().settings();
  return ps::join_path(s.dir, s.appenddirname);
}

// ---- the acknowledgement point --------------------------------------------------------------

void Persistence::flush_now() {
  if (const int e = sync_error_.load(); e != 0)
    fatal(fmt::format("Can't persist AOF for fsync error when the AOF fsync policy is 'everysec': "
                      "{}. Exiting...", std::strerror(e)));
  if (encoder_.empty()) return;
  if (incr_fd_ < 0) {  // AOF switched off with bytes pending: nothing to write them to
    encoder_.clear();
    return;
  }
  std::string err;
  if (!ps::write_all(incr_fd_, encoder_.buffer(), err))
    fatal(fmt::format("Error writing to the AOF file: {}. Exiting...", err));
  aof_current_size_ += static_cast<long long>(encoder_.size());
  encoder_.clear();
  const config::ServerSettings& s = exec_.config().settings();
  // no-appendfsync-on-rewrite: while a child saves, fsyncs wait (the fsync thread does them
  // within a second once the child is gone), as Redis; `always` then promises less.
  const bool paused = s.no_appendfsync_on_rewrite && child_pid_ > 0;
  fsync_paused_.store(paused, std::memory_order_relaxed);
  switch (s.appendfsync) {
    case config::AppendFsync::kAlways:
      if (paused) {
        unsynced_.store(true, std::memory_order_release);
        break;
      }
      if (!ps::data_sync(incr_fd_, err))
        fatal(fmt::format("Can't persist AOF for fsync error when the AOF fsync policy is "
                          "'always': {}. Exiting...", err));
      ++fsyncs_;
      break;
    case config::AppendFsync::kEverysec:
      unsynced_.store(true, std::memory_order_release);
      break;
    case config::AppendFsync::kNo:
      break;
  }
}

void Persistence::start_syncer() {
  if (syncer_.joinable()) return;
  {
    std::lock_guard lk(sync_mu_);
    syncer_stop_ = false;
  }
  syncer_ = std::thread([this] { syncer_loop(); });
}

void Persistence::stop_syncer() {
  if (!syncer_.joinable()) return;
  {
    std::lock_guard lk(sync_mu_);
    syncer_stop_ = true;
  }
  sync_cv_.notify_all();
  syncer_.join();
}

// The everysec thread: touches only incr_fd_ (under sync_mu_) and the two atomics.
void Persistence::syncer_loop() {
  // Signals are the event loop's business (asio's signal_set); this thread never takes one.
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
  std::unique_lock lk(sync_mu_);
  while (!syncer_stop_) {
    sync_cv_.wait_for(lk, std::chrono::seconds(1), [this] { return syncer_stop_; });
    if (syncer_stop_) break;
    if (fsync_paused_.load(std::memory_order_relaxed)) continue;  // unsynced_ stays set
    if (!unsynced_.exchange(false, std::memory_order_acq_rel)) continue;
    if (incr_fd_ < 0) continue;
#ifdef __linux__
    const int rc = ::fdatasync(incr_fd_);
#else
    const int rc = ::fsync(incr_fd_);
#endif
    if (rc != 0) sync_error_.store(errno ? errno : EIO);
  }
}

void Persistence::annotate_time() {
  if (!exec_.config().settings().aof_timestamp_enabled) return;
  const long long now_s = exec_.command_unix_ms() / 1000;
  if (now_s <= last_timestamp_s_) return;
  encoder_.annotate_timestamp(now_s);
  last_timestamp_s_ = now_s;
}

// ---- start-up -------------------------------------------------------------------------------

bool Persistence::load_at_startup(std::string& error) {
  const config::ServerSettings& s = exec_.config().settings();
  prefix_ = s.appendfilename;
  aof_dir_path_ = aof_dir();
  const auto t0 = std::chrono::steady_clock::now();
  bool ok;
  if (s.appendonly) {
    ok = load_aof(error);
    if (ok) {
      aof_state_ = AofState::kOn;
      start_syncer();
    }
  } else {
    const std::string path = ps::join_path(s.dir, s.dbfilename);
    ok = !ps::file_exists(path) || load_rdb_file(path, error);
  }
  if (!ok) return false;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::size_t keys = 0;
  for (int i = 0; i < exec_.keyspace().database_count(); ++i) keys += exec_.keyspace().db(i).size();
  log(config::LogLevel::kNotice, fmt::format("DB loaded from disk: {:.3f} seconds ({} keys)", secs, keys));
  exec_.stats().dirty = 0;
  exec_.stats().lastsave_unix_s = now_ms() / 1000;
  return true;
}

bool Persistence::load_rdb_file(const std::string& path, std::string& error) {
  std::string data, err;
  if (!ps::read_file(path, data, err)) {
    error = fmt::format("Fatal error loading the DB: {}. Exiting.", err);
    return false;
  }
  ps::RdbLoadOptions o;
  o.now_ms = now_ms();
  o.skip_expired = true;
  const ps::RdbLoadResult r = ps::load_rdb(data, exec_.keyspace(), o);
  if (!r.ok) {
    error = fmt::format("Fatal error loading the DB {}: {}", path, r.error);
    return false;
  }
  rdb_loaded_keys_ = r.keys;
  rdb_loaded_expired_ = r.expired_skipped;
  log(config::LogLevel::kNotice, fmt::format("Loading RDB {}: {} keys loaded, {} expired keys skipped", path,
                                     r.keys, r.expired_skipped));
  return true;
}

bool Persistence::load_aof(std::string& error) {
  const std::string mpath = ps::join_path(aof_dir_path_, ps::manifest_file_name(prefix_));
  if (!ps::file_exists(mpath)) {
    const config::ServerSettings& s = exec_.config().settings();
    const std::string legacy = ps::join_path(s.dir, s.appendfilename);
    if (ps::file_exists(legacy)) {
      // A single-file AOF (Redis < 7.0 or a hand-made one): load it, then start a multi-part
      // AOF from the loaded data. The old file is left in place.
      log(config::LogLevel::kNotice, fmt::format("Loading the old-style AOF file {}", legacy));
      const std::string keep_dir = aof_dir_path_;
      aof_dir_path_ = s.dir;
      const bool ok = load_one_aof_file(s.appendfilename, true, error);
      aof_dir_path_ = keep_dir;
      if (!ok) return false;
    }
    return start_fresh_aof(error);
  }
  std::string text, err;
  if (!ps::read_file(mpath, text, err)) {
    error = fmt::format("Fatal error: can't open the AOF manifest file {} for reading: {}", mpath, err);
    return false;
  }
  ps::ManifestError merr;
  if (!ps::parse_manifest(text, manifest_, merr)) {
    error = "*** FATAL AOF MANIFEST FILE ERROR *** ";
    if (merr.line > 0) error += fmt::format("Reading the manifest file, at line {} >>> '{}' ", merr.line, merr.text);
    error += merr.message;
    return false;
  }
  // A rewrite child of a killed server leaves its temp base behind: never in the manifest.
  if (DIR* d = ::opendir(aof_dir_path_.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string_view name(e->d_name);
      if (name.starts_with("temp-rewriteaof-bg-") || name == "temp-" + prefix_ + ".incr")
        ::unlink(ps::join_path(aof_dir_path_, e->d_name).c_str());
    }
    ::closedir(d);
  }
  if (!manifest_.base && manifest_.incrs.empty()) return start_fresh_aof(error);
  std::vector<std::pair<std::string, bool>> files;
  if (manifest_.base) files.emplace_back(manifest_.base->name, true);
  for (const auto& i : manifest_.incrs) files.emplace_back(i.name, false);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string path = ps::join_path(aof_dir_path_, files[i].first);
    if (!ps::file_exists(path)) {
      error = fmt::format("The {} AOF file {} doesn't exist", files[i].second ? "base" : "incr",
                          files[i].first);
      return false;
    }
    if (!load_one_aof_file(files[i].first, i + 1 == files.size(), error)) return false;
  }
  long long total = 0;
  for (const auto& f : files) total += std::max(0LL, ps::file_size(ps::join_path(aof_dir_path_, f.first)));
  aof_current_size_ = aof_base_size_ = total;
  return open_incr_for_append(error);
}

bool Persistence::load_one_aof_file(const std::string& name, bool last, std::string& error) {
  const std::string path = ps::join_path(aof_dir_path_, name);
  const long long size = ps::file_size(path);
  if (size <= 0) return true;  // an empty file (a fresh incr) is fine
  Client& client = exec_.create_client(nullptr, "", "", -1);
  client.authenticated = true;
  LoadingClock loading_clock(exec_.clock());
  exec_.set_clock_override(&loading_clock);
  loading_ = true;
  struct Restore {
    Persistence& p;
    Client& c;
    ~Restore() {
      p.loading_ = false;
      p.exec_.set_clock_override(nullptr);
      p.exec_.destroy_client(c);
    }
  } restore{*this, client};

  std::uint64_t critical = 0;
  const ps::AofCommandSink sink = [&](std::span<const std::string_view> argv, std::string& err) {
    if (!exec_.replay(client, argv, err)) {
      err = fmt::format("Unknown command '{}' reading the append only file {}", argv[0], name);
      return false;
    }
    if (!client.out.empty()) {
      if (client.out[0] == '-' && critical++ < 10)
        log(config::LogLevel::kWarning, fmt::format("== CRITICAL == This server is sending an error to its AOF-loading-client: '{}' after processing the command '{}'",
                                            client.out.substr(1, client.out.find('\r') - 1), argv[0]));
      client.out.clear();
    }
    return true;
  };

  ps::AofLoadResult r;
  char magic[5] = {0};
  {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      const ssize_t n = ::read(fd, magic, sizeof magic);
      ::close(fd);
      if (n < 5) magic[0] = 0;
    }
  }
  if (std::memcmp(magic, "REDIS", 5) == 0) {
    std::string data, err;
    if (!ps::read_file(path, data, err)) {
      error = fmt::format("Unrecoverable error reading the append only file {}: {}", name, err);
      return false;
    }
    ps::RdbLoadOptions o;
    o.now_ms = 0;
    o.skip_expired = false;  // the AOF DELs what expired
    const ps::RdbLoadResult rr = ps::load_rdb(data, exec_.keyspace(), o);
    if (!rr.ok) {
      error = fmt::format("Bad file format reading the RDB preamble of the append only file {}: {}", name, rr.error);
      return false;
    }
    r = ps::load_aof_bytes(std::string_view(data).substr(rr.consumed), sink, rr.consumed);
    if (r.status == ps::AofLoadStatus::kEmpty) r.status = ps::AofLoadStatus::kOk;
  } else {
    r = ps::load_aof_file(path, sink);
  }
  if (r.reverted_multi) {
    client.in_multi = false;
    client.multi_error = false;
    client.queued.clear();
    log(config::LogLevel::kWarning, fmt::format("Revert incomplete MULTI/EXEC transaction in AOF file {}", name));
  }
  switch (r.status) {
    case ps::AofLoadStatus::kOk:
    case ps::AofLoadStatus::kEmpty:
      break;
    case ps::AofLoadStatus::kFailed:
      if (r.error.rfind("Unknown command", 0) == 0 || r.error.rfind("Unrecoverable", 0) == 0 ||
          r.error.rfind("Can't", 0) == 0)
        error = fmt::format("{} (offset {})", r.error, r.error_offset);
      else
        error = fmt::format("Bad file format reading the append only file {} at offset {}: {}. Make a backup of your AOF file, then use redis-check-aof --fix <filename.manifest>",
                            name, r.error_offset, r.error);
      return false;
    case ps::AofLoadStatus::kTruncated: {
      if (!last) {
        error = fmt::format("Fatal error: the truncated file {} is not the last file (valid up to offset {})", name, r.valid_up_to);
        return false;
      }
      if (!exec_.config().settings().aof_load_truncated) {
        error = fmt::format("Unexpected end of file reading the append only file {} (valid up to offset {}). You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.",
                            name, r.valid_up_to);
        return false;
      }
      log(config::LogLevel::kWarning, fmt::format("!!! Warning: short read while loading the AOF file {}!!!", name));
      log(config::LogLevel::kWarning, fmt::format("!!! Truncating the AOF {} at offset {} !!!", name, r.valid_up_to));
      if (::truncate(path.c_str(), static_cast<off_t>(r.valid_up_to)) != 0) {
        error = fmt::format("Error truncating the AOF file {}: {}", name, std::strerror(errno));
        return false;
      }
      // The cut must be durable before anything is appended after it.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      std::string err;
      if (fd < 0 || !ps::data_sync(fd, err)) {
        if (fd >= 0) ::close(fd);
        error = fmt::format("Error syncing the truncated AOF file {}", name);
        return false;
      }
      ::close(fd);
      break;
    }
  }
  log(config::LogLevel::kNotice, fmt::format("DB loaded from {} file {}: {} commands", name.find(".base.") != std::string::npos ? "base" : "append only", name, r.commands));
  return true;
}

bool Persistence::open_incr_for_append(std::string& error) {
  if (manifest_.incrs.empty()) {
    const long long seq = manifest_.curr_incr_seq + 1;
    const std::string name = ps::incr_file_name(prefix_, seq);
    manifest_.incrs.push_back({name, seq, ps::AofFileType::kIncr});
    manifest_.curr_incr_seq = seq;
    std::string err;
    const int fd = open_append(ps::join_path(aof_dir_path_, name), err);
    if (fd < 0) {
      error = fmt::format("Can't open the append-only file {}: {}", name, err);
      return false;
    }
    ::close(fd);
    if (!persist_manifest(error)) return false;
  }
  const std::string name = manifest_.incrs.back().name;
  std::string err;
  const int fd = open_append(ps::join_path(aof_dir_path_, name), err);
  if (fd < 0) {
    error = fmt::format("Can't open the append-only file {}: {}", name, err);
    return false;
  }
  {
    std::lock_guard lk(sync_mu_);
    if (incr_fd_ >= 0) ::close(incr_fd_);
    incr_fd_ = fd;
  }
  encoder_.reset_selected_db();
  return true;
}

bool Persistence::persist_manifest(std::string& error) {
  std::string err;
  if (!ps::replace_file_atomically(aof_dir_path_, ps::manifest_file_name(prefix_), manifest_.to_string(), err)) {
    error = fmt::format("Can't persist the AOF manifest file: {}", err);
    return false;
  }
  return true;
}

void Persistence::delete_history_files() {
  if (manifest_.history.empty()) return;
  for (const auto& h : manifest_.history) {
    log(config::LogLevel::kNotice, fmt::format("Removing the history file {} in the background", h.name));
    ::unlink(ps::join_path(aof_dir_path_, h.name).c_str());
  }
  manifest_.history.clear();
  std::string err;
  if (!persist_manifest(err)) log(config::LogLevel::kWarning, err);
}

bool Persistence::write_rdb_file(const std::string& path, bool aof_base, std::string& error) const {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  ps::RdbSaveOptions o;
  o.redis_ver = std::string(kRedisCompatVersion);
  o.now_ms = exec_.clock().unix_ms();
  o.aof_base = aof_base;
  bool ok = ps::write_rdb(fd, exec_.keyspace(), o, error) && ps::data_sync(fd, error);
  ::close(fd);
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    error = std::strerror(errno);
    ok = false;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return false;
  }
  const auto slash = path.rfind('/');
  return ps::sync_directory(slash == std::string::npos ? "." : path.substr(0, slash), error);
}

bool Persistence::start_fresh_aof(std::string& error) {
  std::string err;
  if (!ps::ensure_directory(aof_dir_path_, err)) {
    error = fmt::format("Can't open or create append-only dir {}: {}", aof_dir_path_, err);
    return false;
  }
  const long long base_seq = manifest_.curr_base_seq + 1;
  const long long incr_seq = manifest_.curr_incr_seq + 1;
  const std::string base_name = ps::base_file_name(prefix_, base_seq, true);
  const std::string incr_name = ps::incr_file_name(prefix_, incr_seq);
  if (!write_rdb_file(ps::join_path(aof_dir_path_, base_name), true, err)) {
    error = fmt::format("Can't write the AOF base file {}: {}", base_name, err);
    return false;
  }
  const int fd = open_append(ps::join_path(aof_dir_path_, incr_name), err);
  if (fd < 0) {
    error = fmt::format("Can't open the append-only file {}: {}", incr_name, err);
    return false;
  }
  ::close(fd);
  ps::AofManifest m;
  m.history = manifest_.history;
  if (manifest_.base) {
    auto h = *manifest_.base;
    h.type = ps::AofFileType::kHistory;
    m.history.push_back(h);
  }
  for (auto i : manifest_.incrs) {
    i.type = ps::AofFileType::kHistory;
    m.history.push_back(i);
  }
  m.base = ps::AofFileInfo{base_name, base_seq, ps::AofFileType::kBase};
  m.curr_base_seq = base_seq;
  m.incrs.push_back({incr_name, incr_seq, ps::AofFileType::kIncr});
  m.curr_incr_seq = incr_seq;
  manifest_ = std::move(m);
  if (!persist_manifest(error)) return false;
  // The AOF directory itself may be new: make its entry in `dir` durable too.
  ps::sync_directory(exec_.config().settings().dir, err);
  log(config::LogLevel::kNotice, fmt::format("Creating AOF base file {} and incr file {}", base_name, incr_name));
  delete_history_files();
  aof_current_size_ = aof_base_size_ = std::max(0LL, ps::file_size(ps::join_path(aof_dir_path_, base_name)));
  return open_incr_for_append(error);
}

void Persistence::stop_aof() {
  flush_now();
  std::string err;
  if (incr_fd_ >= 0 && !ps::data_sync(incr_fd_, err))
    log(config::LogLevel::kWarning, fmt::format("Fail to fsync the AOF file: {}", err));
  stop_syncer();
  {
    std::lock_guard lk(sync_mu_);
    if (incr_fd_ >= 0) ::close(incr_fd_);
    incr_fd_ = -1;
  }
  aof_state_ = AofState::kOff;
}

void Persistence::adopt_manifest_on_disk() {
  prefix_ = exec_.config().settings().appendfilename;
  aof_dir_path_ = aof_dir();
  const std::string mpath = ps::join_path(aof_dir_path_, ps::manifest_file_name(prefix_));
  std::string text, err;
  ps::ManifestError merr;
  if (!ps::file_exists(mpath) || !ps::read_file(mpath, text, err) || !ps::parse_manifest(text, manifest_, merr))
    manifest_ = ps::AofManifest{};
}

std::string Persistence::temp_incr_path() const {
  return ps::join_path(aof_dir_path_, "temp-" + prefix_ + ".incr");
}

void Persistence::on_appendonly_changed() {
  const bool want = exec_.config().settings().appendonly;
  if (want == (aof_state_ != AofState::kOff)) return;
  if (!want) {
    if (child_kind_ == ChildKind::kRewrite) kill_child();
    const bool initial = aof_state_ == AofState::kWaitRewrite;
    rewrite_scheduled_ = false;  // as Redis' stopAppendOnly
    stop_aof();
    if (initial) ::unlink(temp_incr_path().c_str());
    log(config::LogLevel::kNotice, "Background append only file rewriting stopped: AOF disabled");
    return;
  }
  // As Redis: a background rewrite writes the first base from the current data; commands from
  // the fork on go to a temporary incr file, and both enter the manifest when the base is done.
  adopt_manifest_on_disk();
  std::string err;
  if (!ps::ensure_directory(aof_dir_path_, err)) {
    log(config::LogLevel::kWarning, fmt::format("Redis needs to enable the AOF but can't open or create "
                                        "append-only dir {}: {}", aof_dir_path_, err));
    return;
  }
  aof_state_ = AofState::kWaitRewrite;
  start_syncer();
  if (child_pid_ > 0) {
    rewrite_scheduled_ = true;  // after the running child, from cron
  } else if (!start_rewrite(err)) {
    log(config::LogLevel::kWarning, err);
    log(config::LogLevel::kWarning, "Redis needs to enable the AOF but can't trigger a background AOF "
                            "rewrite operation. Check the above logs for more info about the error.");
    stop_aof();
    return;
  }
  log(config::LogLevel::kNotice, "AOF enabled: writing the first base in the background");
}

// ---- children ---------------------------------------------------------------------------------

bool Persistence::start_rewrite(std::string& error) {
  if (aof_state_ == AofState::kWaitRewrite) {
    rewrite_mode_ = RewriteMode::kInitial;
    // Everything executed so far will be in the child's base: the temporary incr file starts
    // empty at the fork (a failed earlier attempt's bytes are superseded too).
    encoder_.clear();
    const int fd = ::open(temp_incr_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
      error = fmt::format("ERR Can't open the temporary append-only file {}: {}", temp_incr_path(),
                          std::strerror(errno));
      return false;
    }
    std::lock_guard lk(sync_mu_);
    if (incr_fd_ >= 0) ::close(incr_fd_);
    incr_fd_ = fd;
    encoder_.reset_selected_db();
  } else if (aof_state_ == AofState::kOff) {
    // BGREWRITEAOF with appendonly no: Redis 7.0 writes a manifest with a base and no incr.
    rewrite_mode_ = RewriteMode::kBaseOnly;
    adopt_manifest_on_disk();
    std::string err;
    if (!ps::ensure_directory(aof_dir_path_, err)) {
      error = fmt::format("ERR Can't open or create append-only dir {}: {}", aof_dir_path_, err);
      return false;
    }
  } else if (!start_compacting_incr(error)) {
    return false;
  }
  rewrite_base_seq_ = manifest_.curr_base_seq + 1;
  return fork_rewrite_child(error);
}

bool Persistence::start_compacting_incr(std::string& error) {
  rewrite_mode_ = RewriteMode::kCompact;
  // Everything logged so far goes to the old incr file and is made durable there: if the
  // rewrite fails, the old files plus the new incr file are still the whole history.
  flush_now();
  std::string err;
  if (incr_fd_ >= 0 && !ps::data_sync(incr_fd_, err))
    fatal(fmt::format("Can't persist AOF before a rewrite: fsync error {}. Exiting...", err));
  const long long seq = manifest_.curr_incr_seq + 1;
  const std::string name = ps::incr_file_name(prefix_, seq);
  const int fd = open_append(ps::join_path(aof_dir_path_, name), err);
  if (fd < 0) {
    error = fmt::format("ERR Can't open the append-only file {}: {}", name, err);
    return false;
  }
  const ps::AofManifest before = manifest_;
  manifest_.incrs.push_back({name, seq, ps::AofFileType::kIncr});
  manifest_.curr_incr_seq = seq;
  if (!persist_manifest(err)) {
    manifest_ = before;
    ::close(fd);
    ::unlink(ps::join_path(aof_dir_path_, name).c_str());
    error = "ERR " + err;
    return false;
  }
  {
    std::lock_guard lk(sync_mu_);
    if (incr_fd_ >= 0) ::close(incr_fd_);
    incr_fd_ = fd;
  }
  encoder_.reset_selected_db();
  rewrite_old_incrs_ = manifest_.incrs.size() - 1;
  return true;
}

bool Persistence::fork_rewrite_child(std::string& error) {
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = fmt::format("ERR Can't rewrite append only file in background: fork: {}", std::strerror(errno));
    return false;
  }
  if (pid == 0) {
    // Child: one file, then _exit. No destructors, no sockets, no logging.
    prepare_child();
    std::string cerr;
    const std::string tmp = ps::join_path(aof_dir_path_, fmt::format("temp-rewriteaof-bg-{}.aof", ::getpid()));
    const int cfd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (cfd < 0) ::_exit(1);
    ps::RdbSaveOptions o;
    o.redis_ver = std::string(kRedisCompatVersion);
    o.now_ms = exec_.clock().unix_ms();
    o.aof_base = true;
    const bool ok = ps::write_rdb(cfd, exec_.keyspace(), o, cerr) && ps::data_sync(cfd, cerr);
    ::close(cfd);
    ::_exit(ok ? 0 : 1);
  }
  child_kind_ = ChildKind::kRewrite;
  child_pid_ = pid;
  child_temp_ = ps::join_path(aof_dir_path_, fmt::format("temp-rewriteaof-bg-{}.aof", pid));
  child_start_ms_ = exec_.clock().monotonic_ms();
  rewrite_scheduled_ = false;
  log(config::LogLevel::kNotice, fmt::format("Background append only file rewriting started by pid {}", pid));
  return true;
}

void Persistence::finish_rewrite(bool ok) {
  last_rewrite_secs_ = static_cast<std::int64_t>((exec_.clock().monotonic_ms() - child_start_ms_) / 1000);
  const RewriteMode mode = rewrite_mode_;
  const bool stale = (mode == RewriteMode::kCompact && aof_state_ != AofState::kOn) ||
                     (mode == RewriteMode::kInitial && aof_state_ != AofState::kWaitRewrite);
  if (!ok || stale) {
    ::unlink(child_temp_.c_str());
    last_rewrite_ok_ = false;
    last_rewrite_fail_ms_ = now_ms();
    log(config::LogLevel::kWarning, "Background AOF rewrite terminated with error");
    // The first AOF after CONFIG SET appendonly yes is retried from cron, as Redis does.
    if (mode == RewriteMode::kInitial && aof_state_ == AofState::kWaitRewrite) rewrite_scheduled_ = true;
    return;
  }
  const std::string base_name = ps::base_file_name(prefix_, rewrite_base_seq_, true);
  const std::string base_path = ps::join_path(aof_dir_path_, base_name);
  if (::rename(child_temp_.c_str(), base_path.c_str()) != 0) {
    log(config::LogLevel::kWarning, fmt::format("Error trying to rename the temporary AOF base file {} into {}: {}",
                                        child_temp_, base_name, std::strerror(errno)));
    ::unlink(child_temp_.c_str());
    last_rewrite_ok_ = false;
    last_rewrite_fail_ms_ = now_ms();
    return;
  }
  const ps::AofManifest before = manifest_;
  if (manifest_.base) {
    auto h = *manifest_.base;
    h.type = ps::AofFileType::kHistory;
    manifest_.history.push_back(h);
  }
  // Compacting keeps the incr file opened at the fork; otherwise every older incr is history.
  if (mode != RewriteMode::kCompact) rewrite_old_incrs_ = manifest_.incrs.size();
  for (std::size_t i = 0; i < rewrite_old_incrs_ && i < manifest_.incrs.size(); ++i) {
    auto h = manifest_.incrs[i];
    h.type = ps::AofFileType::kHistory;
    manifest_.history.push_back(h);
  }
  manifest_.incrs.erase(manifest_.incrs.begin(),
                        manifest_.incrs.begin() + static_cast<std::ptrdiff_t>(std::min(rewrite_old_incrs_, manifest_.incrs.size())));
  manifest_.base = ps::AofFileInfo{base_name, rewrite_base_seq_, ps::AofFileType::kBase};
  manifest_.curr_base_seq = rewrite_base_seq_;
  std::string err;
  // kInitial: the temporary incr file (everything since the fork) becomes the first incr.
  std::string incr_path;
  if (mode == RewriteMode::kInitial) {
    const long long seq = manifest_.curr_incr_seq + 1;
    const std::string name = ps::incr_file_name(prefix_, seq);
    incr_path = ps::join_path(aof_dir_path_, name);
    flush_now();
    if (::rename(temp_incr_path().c_str(), incr_path.c_str()) != 0) {
      log(config::LogLevel::kWarning, fmt::format("Error trying to rename the temporary AOF incr file into {}: {}",
                                          name, std::strerror(errno)));
      manifest_ = before;
      ::unlink(base_path.c_str());
      last_rewrite_ok_ = false;
      last_rewrite_fail_ms_ = now_ms();
      rewrite_scheduled_ = true;
      return;
    }
    manifest_.incrs.push_back({name, seq, ps::AofFileType::kIncr});
    manifest_.curr_incr_seq = seq;
  }
  // The switch point: the new manifest (fdatasynced, renamed, directory fsynced).
  if (!persist_manifest(err)) {
    log(config::LogLevel::kWarning, err);
    manifest_ = before;
    ::unlink(base_path.c_str());
    // The open incr file goes back to its temporary name: no file outside the manifest may
    // carry a name a later incr could reuse.
    if (!incr_path.empty()) ::rename(incr_path.c_str(), temp_incr_path().c_str());
    last_rewrite_ok_ = false;
    last_rewrite_fail_ms_ = now_ms();
    if (mode == RewriteMode::kInitial) rewrite_scheduled_ = true;
    return;
  }
  if (mode == RewriteMode::kInitial) {
    aof_state_ = AofState::kOn;
    log(config::LogLevel::kNotice, "AOF rewrite done: the AOF is on");
  }
  log(config::LogLevel::kNotice, fmt::format("Successfully renamed the temporary AOF base file {} into {}", child_temp_, base_name));
  delete_history_files();
  long long total = std::max(0LL, ps::file_size(base_path));
  for (const auto& i : manifest_.incrs) total += std::max(0LL, ps::file_size(ps::join_path(aof_dir_path_, i.name)));
  aof_current_size_ = aof_base_size_ = total;
  last_rewrite_ok_ = true;
  ++aof_rewrites_;
  log(config::LogLevel::kNotice, "Background AOF rewrite finished successfully");
}

bool Persistence::start_bgsave(std::string& error) {
  const config::ServerSettings& s = exec_.config().settings();
  const std::string path = ps::join_path(s.dir, s.dbfilename);
  last_bgsave_try_ms_ = now_ms();
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = fmt::format("ERR Can't save in background: fork: {}", std::strerror(errno));
    last_bgsave_ok_ = false;
    return false;
  }
  if (pid == 0) {
    prepare_child();
    std::string cerr;
    ::_exit(write_rdb_file(path, false, cerr) ? 0 : 1);
  }
  child_kind_ = ChildKind::kRdb;
  child_pid_ = pid;
  child_temp_ = path + ".tmp-" + std::to_string(pid);
  child_start_ms_ = exec_.clock().monotonic_ms();
  dirty_at_fork_ = exec_.stats().dirty;
  log(config::LogLevel::kNotice, fmt::format("Background saving started by pid {}", pid));
  return true;
}

void Persistence::finish_bgsave(bool ok) {
  last_bgsave_secs_ = static_cast<std::int64_t>((exec_.clock().monotonic_ms() - child_start_ms_) / 1000);
  last_bgsave_ok_ = ok;
  if (!ok) {
    ::unlink(child_temp_.c_str());
    log(config::LogLevel::kWarning, "Background saving error");
    return;
  }
  exec_.stats().dirty -= dirty_at_fork_;
  exec_.stats().lastsave_unix_s = now_ms() / 1000;
  ++rdb_saves_;
  log(config::LogLevel::kNotice, "Background saving terminated with success");
}

void Persistence::wait_for_children() {
  while (child_pid_ > 0) {
    int status = 0;
    const pid_t r = ::waitpid(child_pid_, &status, 0);
    if (r < 0 && errno == EINTR) continue;
    child_exited(r, status);
  }
}

void Persistence::child_exited(pid_t reaped, int status) {
  const bool ok = reaped == child_pid_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  const ChildKind kind = child_kind_;
  child_kind_ = ChildKind::kNone;
  child_pid_ = -1;
  if (kind == ChildKind::kRewrite) finish_rewrite(ok);
  else finish_bgsave(ok);
}

void Persistence::kill_child() {
  ::kill(child_pid_, SIGUSR1);
  ::waitpid(child_pid_, nullptr, 0);
  ::unlink(child_temp_.c_str());
  child_kind_ = ChildKind::kNone;
  child_pid_ = -1;
}

void Persistence::cron() {
  if (const int e = sync_error_.load(); e != 0) flush_now();  // exits
  if (child_pid_ > 0) {
    int status = 0;
    const pid_t r = ::waitpid(child_pid_, &status, WNOHANG);
    if (r == child_pid_ || (r < 0 && errno == ECHILD)) child_exited(r, status);
  }
  fsync_paused_.store(exec_.config().settings().no_appendfsync_on_rewrite && child_pid_ > 0,
                      std::memory_order_relaxed);
  if (child_pid_ > 0) return;
  std::string err;
  if (rewrite_scheduled_) {  // (appendonly no: a scheduled BGREWRITEAOF writes a base-only AOF)
    if (!start_rewrite(err)) log(config::LogLevel::kWarning, err);
    return;
  }
  const config::ServerSettings& s = exec_.config().settings();
  const std::int64_t now = now_ms();
  for (const config::SavePoint& p : s.save) {
    if (exec_.stats().dirty >= p.changes && now / 1000 - exec_.stats().lastsave_unix_s > p.seconds &&
        (last_bgsave_ok_ || now - last_bgsave_try_ms_ > 5000)) {
      log(config::LogLevel::kNotice, fmt::format("{} changes in {} seconds. Saving...", p.changes, p.seconds));
      if (!start_bgsave(err)) log(config::LogLevel::kWarning, err);
      return;
    }
  }
  if (aof_state_ == AofState::kOn && s.auto_aof_rewrite_percentage > 0 && aof_current_size_ > s.auto_aof_rewrite_min_size &&
      (last_rewrite_ok_ || now - last_rewrite_fail_ms_ > 60000)) {
    const long long base = aof_base_size_ > 0 ? aof_base_size_ : 1;
    const long long growth = (aof_current_size_ * 100 / base) - 100;
    if (growth >= s.auto_aof_rewrite_percentage) {
      log(config::LogLevel::kNotice, fmt::format("Starting automatic rewriting of AOF on {}% growth", growth));
      if (!start_rewrite(err)) log(config::LogLevel::kWarning, err);
    }
  }
}

void Persistence::shutdown() {
  // The first AOF after CONFIG SET appendonly yes is finished rather than abandoned (Redis
  // refuses to exit meanwhile): without its base the incr file alone would lose data.
  if (aof_state_ == AofState::kWaitRewrite && child_kind_ == ChildKind::kRewrite) wait_for_children();
  if (child_pid_ > 0) kill_child();
  if (aof_state_ != AofState::kOff) {
    log(config::LogLevel::kNotice, "Calling fsync() on the AOF file.");
    stop_aof();
  }
}

bool Persistence::save_before_exit(bool save, bool nosave) {
  if (nosave || (!save && exec_.config().settings().save.empty())) return true;
  wait_for_children();  // a BGSAVE or rewrite in flight finishes first; then the final snapshot
  log(config::LogLevel::kNotice, "Saving the final RDB snapshot before exiting.");
  if (!this->save().empty()) {
    log(config::LogLevel::kWarning, "Error trying to save the DB, can't exit.");
    return false;
  }
  return true;
}

bool Persistence::misconf_configured() const noexcept {
  const config::ServerSettings& s = exec_.config().settings();
  return s.stop_writes_on_bgsave_error && !s.save.empty();
}

// ---- commands ---------------------------------------------------------------------------------

std::string Persistence::save() {
  if (child_kind_ == ChildKind::kRdb) return "ERR Background save already in progress";
  const config::ServerSettings& s = exec_.config().settings();
  std::string err;
  if (!write_rdb_file(ps::join_path(s.dir, s.dbfilename), false, err)) {
    // Redis leaves rdb_last_bgsave_status alone when SAVE fails (only a BGSAVE sets "err").
    log(config::LogLevel::kWarning, fmt::format("Failed saving the DB: {}", err));
    return "ERR";
  }
  exec_.stats().dirty = 0;
  exec_.stats().lastsave_unix_s = now_ms() / 1000;
  last_bgsave_ok_ = true;
  ++rdb_saves_;
  log(config::LogLevel::kNotice, "DB saved on disk");
  return {};
}

std::string Persistence::bgsave() {
  if (child_kind_ == ChildKind::kRdb) return "-ERR Background save already in progress\r\n";
  if (child_kind_ == ChildKind::kRewrite)
    return "-ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n";
  std::string err;
  if (!start_bgsave(err)) return "-" + err + "\r\n";
  return "+Background saving started\r\n";
}

std::string Persistence::bgrewriteaof() {
  if (child_kind_ == ChildKind::kRewrite)
    return "-ERR Background append only file rewriting already in progress\r\n";
  if (child_kind_ == ChildKind::kRdb) {
    rewrite_scheduled_ = true;
    return "+Background append only file rewriting scheduled\r\n";
  }
  std::string err;
  if (!start_rewrite(err)) {
    last_rewrite_ok_ = false;
    return "-" + err + "\r\n";
  }
  return "+Background append only file rewriting started\r\n";
}

void Persistence::info(std::string& out) const {
  const ServerStats& st = exec_.stats();
  const std::int64_t mono = static_cast<std::int64_t>(exec_.clock().monotonic_ms());
  const bool rdb_child = child_kind_ == ChildKind::kRdb;
  const bool aof_child = child_kind_ == ChildKind::kRewrite;
  out += fmt::format("loading:{}\r\nasync_loading:0\r\n", loading_ ? 1 : 0);
  out += "current_cow_peak:0\r\ncurrent_cow_size:0\r\ncurrent_cow_size_age:0\r\ncurrent_fork_perc:0.00\r\n";
  out += "current_save_keys_processed:0\r\ncurrent_save_keys_total:0\r\n";
  out += fmt::format("rdb_changes_since_last_save:{}\r\n", st.dirty);
  out += fmt::format("rdb_bgsave_in_progress:{}\r\n", rdb_child ? 1 : 0);
  out += fmt::format("rdb_last_save_time:{}\r\n", st.lastsave_unix_s);
  out += fmt::format("rdb_last_bgsave_status:{}\r\n", status_word(last_bgsave_ok_));
  out += fmt::format("rdb_last_bgsave_time_sec:{}\r\n", last_bgsave_secs_);
  out += fmt::format("rdb_current_bgsave_time_sec:{}\r\n", rdb_child ? (mono - static_cast<std::int64_t>(child_start_ms_)) / 1000 : -1);
  out += fmt::format("rdb_saves:{}\r\n", rdb_saves_);
  out += "rdb_last_cow_size:0\r\n";
  out += fmt::format("rdb_last_load_keys_expired:{}\r\nrdb_last_load_keys_loaded:{}\r\n", rdb_loaded_expired_, rdb_loaded_keys_);
  out += fmt::format("aof_enabled:{}\r\n", aof_state_ != AofState::kOff ? 1 : 0);
  out += fmt::format("aof_rewrite_in_progress:{}\r\n", aof_child ? 1 : 0);
  out += fmt::format("aof_rewrite_scheduled:{}\r\n", rewrite_scheduled_ ? 1 : 0);
  out += fmt::format("aof_last_rewrite_time_sec:{}\r\n", last_rewrite_secs_);
  out += fmt::format("aof_current_rewrite_time_sec:{}\r\n", aof_child ? (mono - static_cast<std::int64_t>(child_start_ms_)) / 1000 : -1);
  out += fmt::format("aof_last_bgrewrite_status:{}\r\n", status_word(last_rewrite_ok_));
  out += fmt::format("aof_rewrites:{}\r\n", aof_rewrites_);
  out += "aof_rewrites_consecutive_failures:0\r\n";
  out += fmt::format("aof_last_write_status:{}\r\n", status_word(sync_error_.load() == 0));
  out += "aof_last_cow_size:0\r\nmodule_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n";
  if (aof_state_ != AofState::kOff) {
    out += fmt::format("aof_current_size:{}\r\n", aof_current_size_);
    out += fmt::format("aof_base_size:{}\r\n", aof_base_size_);
    out += fmt::format("aof_pending_rewrite:{}\r\n", rewrite_scheduled_ ? 1 : 0);
    out += fmt::format("aof_buffer_length:{}\r\n", encoder_.size());
    out += "aof_pending_bio_fsync:0\r\n";
    out += "aof_delayed_fsync:0\r\n";
    out += fmt::format("aof_fsyncs:{}\r\n", fsyncs_);
  }
}

}  // namespace listd::server
