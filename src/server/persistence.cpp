#include "listd/server/persistence.h"

#include <fmt/format.h>

#include <chrono>

#include "listd/persistence/file_io.h"
#include "listd/persistence/rdb.h"
#include "listd/server/executor.h"
#include "listd/server/function_library.h"
#include "listd/server/key_access.h"
#include "listd/server/rdb_access.h"
#include "listd/server/scripting.h"
#include "listd/server/version.h"

namespace listd::server {
namespace {

namespace ps = listd::persistence;

std::string_view status_word(bool ok) { return ok ? "ok" : "err"; }

// dump.rdb's options (SAVE, BGSAVE's child): written now, not an AOF base.
ps::RdbSaveOptions snapshot_options(Executor& exec) {
  const Clock& clock = exec.clock();
  ps::RdbSaveOptions o;
  o.functions = exec.scripting().functions().codes();
  o.redis_ver = std::string(kRedisCompatVersion);
  o.now_ms = clock.unix_ms();
  o.compress = exec.config().settings().rdbcompression;  // read at each save, as Redis does
  record_access(o, exec.config().settings(), o.now_ms);
  return o;
}

}  // namespace

Persistence::Persistence(Executor& exec)
    : exec_(exec),
      settings_(exec.config().settings()),
      writer_(settings_, child_, log_),
      rewrite_(settings_, exec.clock(), exec.keyspace(), writer_, child_, log_),
      loader_(exec, log_) {
  // Read at each base's write (the fork's body runs in the child, on its copy).
  rewrite_.set_function_source([&exec] { return exec.scripting().functions().codes(); });
  // Redis redisFork: every fork is a "fork" latency sample (BGSAVE, rewrite, full sync).
  child_.set_fork_hook(
      [&exec](std::uint64_t usec) { exec.add_latency_sample("fork", usec / 1000); });
  writer_.set_latency_hook(exec.clock(), [&exec](std::string_view event, std::uint64_t ms) {
    exec.add_latency_sample(event, ms);
  });
  auto alive = std::make_shared<bool>(true);
  exec_.config().on_change([this, weak = std::weak_ptr<bool>(alive)](std::string_view name) {
    if (weak.expired()) return;
    if (name == "appendonly") on_appendonly_changed();
  });
  alive_ = std::move(alive);
}

Persistence::~Persistence() = default;

std::int64_t Persistence::now_ms() const { return exec_.clock().unix_ms(); }

void Persistence::on_effect(int db, std::span<const std::string_view> argv) {
  writer_.append(db, argv, exec_.command_unix_ms());
}

// ---- start-up, cron, shutdown ---------------------------------------------------------------

bool Persistence::load_at_startup(std::string& error) {
  rewrite_.locate();
  const auto t0 = std::chrono::steady_clock::now();
  // CONFIG SET appendonly while loading takes effect after the load (on_appendonly_changed).
  const bool appendonly = settings_.appendonly;
  Status s;
  if (appendonly) {
    loading_aof_ = true;
    Result<LoadedAof> aof = loader_.load_aof(rewrite_.dir(), rewrite_.prefix(), settings_.dir);
    loading_aof_ = false;
    if (!aof)
      s = aof.status();
    else if (aof->replayed)
      s = rewrite_.open_loaded(aof->manifest, aof->size);
    else
      s = rewrite_.create_fresh(aof->manifest);
  } else if (const std::string path = ps::join_path(settings_.dir, settings_.dbfilename);
             ps::file_exists(path)) {
    s = loader_.load_rdb(path);
  }
  if (!s) {
    error = s.error();
    return false;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::size_t keys = 0;
  // Redis createObject: a key the AOF replay made (at the epoch clock) starts with the access
  // word of the load's time; dump.rdb's keys have theirs from its IDLE / FREQ records already.
  const std::uint32_t word = initial_access(settings_, now_ms());
  for (int i = 0; i < exec_.keyspace().database_count(); ++i) {
    keys += exec_.keyspace().db(i).size();
    if (appendonly)
      exec_.keyspace().db(i).dict().for_each([word](store::Entry& e) { e.lru = word; });
  }
  log_.notice(fmt::format("DB loaded from disk: {:.3f} seconds ({} keys)", secs, keys));
  exec_.stats().dirty = 0;
  exec_.stats().lastsave_unix_s = now_ms() / 1000;
  on_appendonly_changed();
  return true;
}

bool Persistence::reap_child() {
  auto exit = child_.poll();
  if (exit) child_exited(*exit);
  return exit.has_value();
}

void Persistence::cron() {
  writer_.check_background_fsync();  // exits after a failed everysec fsync
  reap_child();                      // the fallback: a SIGCHLD normally did it already
  child_.read_reports();             // INFO current_cow_* (Redis receiveChildInfo)
  writer_.refresh_fsync_pause();
  if (child_.running()) return;
  const std::int64_t now = now_ms();
  // (appendonly no: a scheduled BGREWRITEAOF writes a base-only AOF)
  if (rewrite_.scheduled() && !rewrite_.limited(now)) {
    if (Status s = rewrite_.start(); !s) log_.warning(s.error());
    return;
  }
  if (start_save_point_bgsave(now)) return;
  if (const auto growth = rewrite_.auto_rewrite_growth(now); growth && !rewrite_.limited(now)) {
    log_.notice(fmt::format("Starting automatic rewriting of AOF on {}% growth", *growth));
    if (Status s = rewrite_.start(); !s) log_.warning(s.error());
  }
}

// The first save point that is due starts a BGSAVE (after a failed one, at most every 5 s).
bool Persistence::start_save_point_bgsave(std::int64_t now) {
  const ServerStats& st = exec_.stats();
  for (const config::SavePoint& p : settings_.save) {
    if (st.dirty >= p.changes && now / 1000 - st.lastsave_unix_s > p.seconds &&
        (last_bgsave_ok_ || now - last_bgsave_try_ms_ > 5000)) {
      log_.notice(fmt::format("{} changes in {} seconds. Saving...", p.changes, p.seconds));
      if (Status s = start_bgsave(); !s) log_.warning(s.error());
      return true;
    }
  }
  return false;
}

void Persistence::shutdown() {
  // The first AOF after CONFIG SET appendonly yes is finished rather than abandoned (Redis
  // refuses to exit meanwhile): without its base the incr file alone would lose data.
  if (rewrite_.state() == AofRewrite::State::kWaitRewrite && child_.kind() == ChildKind::kRewrite)
    wait_for_child();
  child_.kill();
  if (rewrite_.enabled()) {
    log_.notice("Calling fsync() on the AOF file.");
    rewrite_.close();
  }
}

bool Persistence::save_before_exit(bool save, bool nosave, bool force) {
  log_.warning("User requested shutdown...");
  notify_supervisor("STOPPING=1\n");
  stopping_announced_ = true;
  if (nosave || (!save && settings_.save.empty())) return true;
  // A transfer to replicas is no snapshot to wait for: Redis kills it. (Its end may start the
  // next one for replicas that waited: each goes the same way, dropping its replicas.)
  while (rdb_to_sockets_) {
    ps::BackgroundChild::Exit killed;
    killed.kind = ChildKind::kRdb;
    killed.start_ms = child_.start_ms();
    log_.warning("There is a child saving an .rdb. Killing it!");
    child_.kill();
    finish_rdb_transfer(killed);  // its replicas are dropped: they sync again
  }
  wait_for_child();  // a BGSAVE or rewrite in flight finishes first; then the final snapshot
  log_.notice("Saving the final RDB snapshot before exiting.");
  notify_supervisor("STATUS=Saving the final RDB snapshot\n");
  if (!this->save()) {
    if (force) {
      log_.warning("Error trying to save the DB. Exit anyway.");
      return true;
    }
    log_.warning("Error trying to save the DB, can't exit.");
    notify_supervisor("STATUS=Error trying to save the DB, can't exit.\n");
    return false;
  }
  return true;
}

void Persistence::on_appendonly_changed() {
  // No fork and no new AOF while loading: load_at_startup applies the value once loaded.
  if (loader_.loading()) return;
  const bool want = settings_.appendonly;
  if (want == rewrite_.enabled()) return;
  if (want)
    rewrite_.enable();
  else
    rewrite_.disable();
}

bool Persistence::misconf_configured() const noexcept {
  return settings_.stop_writes_on_bgsave_error && !settings_.save.empty();
}

// ---- the background child -------------------------------------------------------------------

void Persistence::wait_for_child() {
  if (auto exit = child_.wait()) child_exited(*exit);
}

void Persistence::child_exited(const ps::BackgroundChild::Exit& exit) {
  if (exit.cow_bytes)
    (exit.kind == ChildKind::kRewrite ? aof_last_cow_ : rdb_last_cow_) = *exit.cow_bytes;
  if (exit.kind == ChildKind::kRewrite)
    rewrite_.finish(exit);
  else
    finish_bgsave(exit);
}

Status Persistence::start_bgsave(const std::optional<ps::RdbReplInfo>& repl) {
  const std::string path = rdb_path();
  last_bgsave_try_ms_ = now_ms();
  const auto temp_path = [&path](pid_t pid) { return ps::rdb_temp_path(path, pid); };
  // In the child: one file, then _exit.
  const auto body = [this, &path, &repl](const std::string& temp) {
    std::string err;
    ps::RdbSaveOptions options = snapshot_options(exec_);
    options.repl = repl;
    options.progress = &ps::ChildReports::send_progress;
    return ps::save_rdb_file(temp, path, exec_.keyspace(), options, err);
  };
  std::string err;
  std::unique_lock parked = writer_.park_syncer();
  const bool started = child_.start(ChildKind::kRdb, temp_path, body, exec_.clock().monotonic_ms(),
                                    err, ps::key_count(exec_.keyspace()));
  parked.unlock();
  if (!started) {
    last_bgsave_ok_ = false;
    return Status::error(fmt::format("ERR Can't save in background: fork: {}", err));
  }
  dirty_at_fork_ = exec_.stats().dirty;
  log_.notice(fmt::format("Background saving started by pid {}", child_.pid()));
  return {};
}

void Persistence::finish_bgsave(const ps::BackgroundChild::Exit& exit) {
  if (rdb_to_sockets_) {
    finish_rdb_transfer(exit);
    return;
  }
  last_bgsave_secs_ =
      static_cast<std::int64_t>((exec_.clock().monotonic_ms() - exit.start_ms) / 1000);
  last_bgsave_ok_ = exit.ok;
  if (!exit.ok) {
    ps::remove_file(exit.temp_path);
    log_.warning("Background saving error");
  } else {
    exec_.stats().dirty -= dirty_at_fork_;
    exec_.stats().lastsave_unix_s = now_ms() / 1000;
    ++rdb_saves_;
    log_.notice("Background saving terminated with success");
  }
  if (rdb_done_hook_) rdb_done_hook_(exit.ok);  // replicas waiting for this snapshot
}

Status Persistence::bgsave_for_replication(const ps::RdbReplInfo& repl) {
  if (child_.running()) return Status::error("ERR a child process is active");
  return start_bgsave(repl);
}

Status Persistence::start_rdb_transfer(const ps::RdbReplInfo& repl, TransferBody transfer,
                                       const ps::RdbFilter& filter) {
  if (child_.running()) return Status::error("ERR a child process is active");
  const auto no_file = [](pid_t) { return std::string(); };
  // In the child: the snapshot goes wherever `transfer` sends it, then _exit.
  const auto body = [this, &repl, &transfer, &filter](const std::string&) {
    ps::RdbSaveOptions options = snapshot_options(exec_);
    options.repl = repl;
    options.filter = filter;
    options.progress = &ps::ChildReports::send_progress;
    return transfer(
        [&](const ps::RdbSink& sink) { return ps::stream_rdb(sink, exec_.keyspace(), options); });
  };
  std::string err;
  std::unique_lock parked = writer_.park_syncer();
  const std::size_t keys = filter.exclude_data ? 0 : ps::key_count(exec_.keyspace());
  const bool started =
      child_.start(ChildKind::kRdb, no_file, body, exec_.clock().monotonic_ms(), err, keys);
  parked.unlock();
  if (!started) return Status::error(fmt::format("ERR Can't save in background: fork: {}", err));
  rdb_to_sockets_ = true;
  log_.notice(fmt::format("Background RDB transfer started by pid {}", child_.pid()));
  return {};
}

// Redis backgroundSaveDoneHandlerSocket: no snapshot was saved, so only the time is recorded.
void Persistence::finish_rdb_transfer(const ps::BackgroundChild::Exit& exit) {
  rdb_to_sockets_ = false;
  last_bgsave_secs_ =
      static_cast<std::int64_t>((exec_.clock().monotonic_ms() - exit.start_ms) / 1000);
  if (exit.ok)
    log_.notice("Background RDB transfer terminated with success");
  else
    log_.warning("Background transfer error");
  if (rdb_done_hook_) rdb_done_hook_(exit.ok);
}

std::string Persistence::rdb_path() const {
  return ps::join_path(settings_.dir, settings_.dbfilename);
}

// ---- commands -------------------------------------------------------------------------------

Status Persistence::save() {
  if (child_.kind() == ChildKind::kRdb)
    return Status::error("ERR Background save already in progress");
  const std::string path = rdb_path();
  std::string err;
  if (!ps::save_rdb_file(path, exec_.keyspace(), snapshot_options(exec_), err)) {
    // Redis leaves rdb_last_bgsave_status alone when SAVE fails (only a BGSAVE sets "err").
    log_.warning(fmt::format("Failed saving the DB: {}", err));
    return Status::error("ERR");
  }
  exec_.stats().dirty = 0;
  exec_.stats().lastsave_unix_s = now_ms() / 1000;
  last_bgsave_ok_ = true;
  ++rdb_saves_;
  log_.notice("DB saved on disk");
  return {};
}

Status Persistence::bgsave() {
  if (child_.kind() == ChildKind::kRdb)
    return Status::error("ERR Background save already in progress");
  if (child_.kind() == ChildKind::kRewrite)
    return Status::error(
        "ERR Another child process is active (AOF?): can't BGSAVE right now. "
        "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.");
  return start_bgsave();
}

Result<RewriteStart> Persistence::bgrewriteaof() {
  if (child_.kind() == ChildKind::kRewrite)
    return Status::error("ERR Background append only file rewriting already in progress");
  if (child_.kind() == ChildKind::kRdb) {
    rewrite_.schedule();
    rewrite_.forget_failures();  // asked for by hand: the run starts again (Redis)
    return RewriteStart::kScheduled;
  }
  if (Status s = rewrite_.start(); !s) {
    rewrite_.record_start_failure();
    return s;
  }
  return RewriteStart::kStarted;
}

void Persistence::info(std::string& out) const {
  const ServerStats& st = exec_.stats();
  const auto mono = static_cast<std::int64_t>(exec_.clock().monotonic_ms());
  const auto child_secs = [&](ChildKind kind) -> std::int64_t {
    if (child_.kind() != kind) return -1;
    return (mono - static_cast<std::int64_t>(child_.start_ms())) / 1000;
  };
  const bool rdb_child = child_.kind() == ChildKind::kRdb;
  const bool aof_child = child_.kind() == ChildKind::kRewrite;
  out += fmt::format("loading:{}\r\nasync_loading:0\r\n", loader_.loading() ? 1 : 0);
  child_progress_info(out);
  out += fmt::format("rdb_changes_since_last_save:{}\r\n", st.dirty);
  out += fmt::format("rdb_bgsave_in_progress:{}\r\n", rdb_child ? 1 : 0);
  out += fmt::format("rdb_last_save_time:{}\r\n", st.lastsave_unix_s);
  out += fmt::format("rdb_last_bgsave_status:{}\r\n", status_word(last_bgsave_ok_));
  out += fmt::format("rdb_last_bgsave_time_sec:{}\r\n", last_bgsave_secs_);
  out += fmt::format("rdb_current_bgsave_time_sec:{}\r\n", child_secs(ChildKind::kRdb));
  out += fmt::format("rdb_saves:{}\r\n", rdb_saves_);
  out += fmt::format("rdb_last_cow_size:{}\r\n", rdb_last_cow_);
  out += fmt::format("rdb_last_load_keys_expired:{}\r\nrdb_last_load_keys_loaded:{}\r\n",
                     loader_.rdb_expired_skipped(), loader_.rdb_keys_loaded());
  out += fmt::format("aof_enabled:{}\r\n", rewrite_.enabled() || loading_aof_ ? 1 : 0);
  out += fmt::format("aof_rewrite_in_progress:{}\r\n", aof_child ? 1 : 0);
  out += fmt::format("aof_rewrite_scheduled:{}\r\n", rewrite_.scheduled() ? 1 : 0);
  out += fmt::format("aof_last_rewrite_time_sec:{}\r\n", rewrite_.last_secs());
  out += fmt::format("aof_current_rewrite_time_sec:{}\r\n", child_secs(ChildKind::kRewrite));
  out += fmt::format("aof_last_bgrewrite_status:{}\r\n", status_word(rewrite_.last_ok()));
  out += fmt::format("aof_rewrites:{}\r\n", rewrite_.rewrites());
  out += fmt::format("aof_rewrites_consecutive_failures:{}\r\n", rewrite_.consecutive_failures());
  out += fmt::format("aof_last_write_status:{}\r\n", status_word(writer_.write_ok()));
  out += fmt::format("aof_last_cow_size:{}\r\n", aof_last_cow_);
  out += "module_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n";  // no modules
  if (rewrite_.enabled()) aof_info(out);
  loader_.progress().info(out, now_ms() / 1000);
}

// What the running child reported (all zero while none runs), as Redis' current_* fields.
void Persistence::child_progress_info(std::string& out) const {
  const ps::ChildProgress& p = child_.progress();
  std::uint64_t age_s = 0;
  if (p.cow_updated_us != 0) {
    const auto now_us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
            .count());  // the child's clock: its readings are steady-clock times
    age_s = now_us > p.cow_updated_us ? (now_us - p.cow_updated_us) / 1'000'000 : 0;
  }
  const double perc =
      p.keys_total ? static_cast<double>(p.keys_processed) * 100 / static_cast<double>(p.keys_total)
                   : 0.0;
  out += fmt::format("current_cow_peak:{}\r\ncurrent_cow_size:{}\r\ncurrent_cow_size_age:{}\r\n",
                     p.cow_peak, p.cow_size, age_s);
  out += fmt::format("current_fork_perc:{:.2f}\r\n", perc);
  out += fmt::format("current_save_keys_processed:{}\r\ncurrent_save_keys_total:{}\r\n",
                     p.keys_processed, p.keys_total);
}

void Persistence::aof_info(std::string& out) const {
  out += fmt::format("aof_current_size:{}\r\n", writer_.current_size());
  out += fmt::format("aof_base_size:{}\r\n", writer_.base_size());
  out += fmt::format("aof_pending_rewrite:{}\r\n", rewrite_.scheduled() ? 1 : 0);
  out += fmt::format("aof_buffer_length:{}\r\n", writer_.pending_bytes().size());
  out += "aof_pending_bio_fsync:0\r\n";
  out += "aof_delayed_fsync:0\r\n";
  out += fmt::format("aof_fsyncs:{}\r\n", writer_.fsyncs());
}

}  // namespace listd::server
