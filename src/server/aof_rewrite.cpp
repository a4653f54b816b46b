#include "listd/server/aof_rewrite.h"

#include <fmt/format.h>

#include <algorithm>

#include "listd/persistence/file_io.h"
#include "listd/persistence/manifest_transitions.h"
#include "listd/persistence/rdb.h"
#include "listd/server/version.h"

namespace listd::server {
namespace {

namespace ps = listd::persistence;

ps::RdbSaveOptions base_options(const config::ServerSettings& settings, const Clock& clock,
                                const std::function<std::vector<std::string>()>& functions) {
  ps::RdbSaveOptions o;
  o.compress = settings.rdbcompression;
  if (functions) o.functions = functions();
  o.redis_ver = std::string(kRedisCompatVersion);
  o.now_ms = clock.unix_ms();
  o.aof_base = true;
  return o;  // no IDLE / FREQ records: the AOF's keys take the load's time (Persistence)
}

}  // namespace

AofRewrite::Mode AofRewrite::mode_for(State state) noexcept {
  switch (state) {
    case State::kWaitRewrite: return Mode::kInitial;
    case State::kOff: return Mode::kBaseOnly;
    case State::kOn: break;
  }
  return Mode::kCompact;
}

bool AofRewrite::is_stale(Mode mode, State now) noexcept {
  return (mode == Mode::kCompact && now != State::kOn) ||
         (mode == Mode::kInitial && now != State::kWaitRewrite);
}

bool AofRewrite::retries_after_failure(Mode mode, State now) noexcept {
  return mode == Mode::kInitial && now == State::kWaitRewrite;
}

AofRewrite::AofRewrite(const config::ServerSettings& settings, const Clock& clock,
                       const store::Keyspace& keyspace, AofWriter& writer,
                       ps::BackgroundChild& child, const PersistenceLog& log)
    : settings_(settings),
      clock_(clock),
      keyspace_(keyspace),
      writer_(writer),
      child_(child),
      log_(log) {}

void AofRewrite::locate() {
  prefix_ = settings_.appendfilename;
  dir_ = ps::join_path(settings_.dir, settings_.appenddirname);
}

std::string AofRewrite::temp_incr_path() const {
  return ps::join_path(dir_, "temp-" + prefix_ + ".incr");
}

Status AofRewrite::persist_manifest(const ps::AofManifest& m) const {
  std::string err;
  if (!ps::replace_file_atomically(dir_, ps::manifest_file_name(prefix_), m.to_string(), err))
    return Status::error(fmt::format("Can't persist the AOF manifest file: {}", err));
  return {};
}

// ---- start-up -------------------------------------------------------------------------------

Status AofRewrite::open_loaded(const ps::AofManifest& loaded, long long size) {
  manifest_ = loaded;
  writer_.reset_size(size);
  if (Status s = open_last_incr(); !s) return s;
  state_ = State::kOn;
  writer_.start_syncer();
  return {};
}

Status AofRewrite::create_fresh(const ps::AofManifest& on_disk) {
  manifest_ = on_disk;
  std::string err;
  if (!ps::ensure_directory(dir_, err))
    return Status::error(fmt::format("Can't open or create append-only dir {}: {}", dir_, err));
  ps::AofManifest next = ps::with_fresh_files(manifest_, prefix_);
  const std::string& base_name = next.base->name;
  const std::string& incr_name = next.incrs.back().name;
  const std::string base_path = ps::join_path(dir_, base_name);
  if (!ps::save_rdb_file(base_path, keyspace_, base_options(settings_, clock_, function_source_),
                         err))
    return Status::error(fmt::format("Can't write the AOF base file {}: {}", base_name, err));
  if (!ps::touch_file(ps::join_path(dir_, incr_name), err))
    return Status::error(fmt::format("Can't open the append-only file {}: {}", incr_name, err));
  if (Status s = persist_manifest(next); !s) return s;
  manifest_ = std::move(next);
  // The AOF directory itself may be new: make its entry in `dir` durable too.
  ps::sync_directory(settings_.dir, err);
  log_.notice(fmt::format("Creating AOF base file {} and incr file {}", manifest_.base->name,
                          manifest_.incrs.back().name));
  delete_history_files();
  writer_.reset_size(std::max(0LL, ps::file_size(base_path)));
  if (Status s = open_last_incr(); !s) return s;
  state_ = State::kOn;
  writer_.start_syncer();
  return {};
}

// Commands go to the manifest's last incr file (a new one when it lists none).
Status AofRewrite::open_last_incr() {
  std::string err;
  if (manifest_.incrs.empty()) {
    ps::AofManifest next = ps::with_next_incr(manifest_, prefix_);
    const std::string& name = next.incrs.back().name;
    if (!ps::touch_file(ps::join_path(dir_, name), err))
      return Status::error(fmt::format("Can't open the append-only file {}: {}", name, err));
    if (Status s = persist_manifest(next); !s) return s;
    manifest_ = std::move(next);
  }
  const std::string& name = manifest_.incrs.back().name;
  ps::UniqueFd fd = ps::open_for_append(ps::join_path(dir_, name), err);
  if (!fd) return Status::error(fmt::format("Can't open the append-only file {}: {}", name, err));
  writer_.switch_to(std::move(fd));
  return {};
}

void AofRewrite::delete_history_files() {
  if (manifest_.history.empty()) return;
  for (const auto& h : manifest_.history) {
    log_.notice(fmt::format("Removing the history file {} in the background", h.name));
    ps::remove_file(ps::join_path(dir_, h.name));
  }
  manifest_.history.clear();
  if (Status s = persist_manifest(manifest_); !s) log_.warning(s.error());
}

void AofRewrite::adopt_manifest_on_disk() {
  locate();
  const std::string path = ps::join_path(dir_, ps::manifest_file_name(prefix_));
  std::string text, err;
  ps::AofManifest m;
  ps::ManifestError merr;
  if (ps::file_exists(path) && ps::read_file(path, text, err) && ps::parse_manifest(text, m, merr))
    manifest_ = std::move(m);
  else
    manifest_ = ps::AofManifest{};
}

// ---- CONFIG SET appendonly, shutdown --------------------------------------------------------

void AofRewrite::enable() {
  // As Redis: a background rewrite writes the first base from the current data; commands from
  // the fork on go to a temporary incr file, and both enter the manifest when the base is done.
  adopt_manifest_on_disk();
  std::string err;
  if (!ps::ensure_directory(dir_, err)) {
    log_.warning(
        fmt::format("Redis needs to enable the AOF but can't open or create "
                    "append-only dir {}: {}",
                    dir_, err));
    return;
  }
  state_ = State::kWaitRewrite;
  writer_.start_syncer();
  if (child_.running()) {
    scheduled_ = true;  // after the running child, from cron
  } else if (Status s = start(); !s) {
    log_.warning(s.error());
    log_.warning(
        "Redis needs to enable the AOF but can't trigger a background AOF rewrite "
        "operation. Check the above logs for more info about the error.");
    close();
    return;
  }
  log_.notice("AOF enabled: writing the first base in the background");
}

void AofRewrite::disable() {
  if (child_.kind() == ps::BackgroundChild::Kind::kRewrite) child_.kill();
  const bool initial = state_ == State::kWaitRewrite;
  scheduled_ = false;  // as Redis' stopAppendOnly
  close();
  if (initial) ps::remove_file(temp_incr_path());
  log_.notice("Background append only file rewriting stopped: AOF disabled");
}

void AofRewrite::close() {
  writer_.close();
  state_ = State::kOff;
}

// ---- starting a rewrite ---------------------------------------------------------------------

Status AofRewrite::start() {
  mode_ = mode_for(state_);
  if (Status s = prepare(); !s) return s;
  base_seq_ = manifest_.curr_base_seq + 1;
  return fork_child();
}

Status AofRewrite::prepare() {
  switch (mode_) {
    case Mode::kInitial: return prepare_initial();
    case Mode::kCompact: return prepare_compact();
    case Mode::kBaseOnly: break;
  }
  // A base-only AOF next to whatever manifest is on disk (appendonly is no).
  adopt_manifest_on_disk();
  std::string err;
  if (!ps::ensure_directory(dir_, err))
    return Status::error(fmt::format("ERR Can't open or create append-only dir {}: {}", dir_, err));
  return {};
}

Status AofRewrite::prepare_initial() {
  // Everything executed so far will be in the child's base: the temporary incr file starts
  // empty at the fork (a failed earlier attempt's bytes are superseded too).
  writer_.discard_pending();
  std::string err;
  ps::UniqueFd fd = ps::open_empty_for_append(temp_incr_path(), err);
  if (!fd)
    return Status::error(
        fmt::format("ERR Can't open the temporary append-only file {}: {}", temp_incr_path(), err));
  writer_.switch_to(std::move(fd));
  return {};
}

Status AofRewrite::prepare_compact() {
  // Everything logged so far goes to the old incr file and is made durable there: if the
  // rewrite fails, the old files plus the new incr file are still the whole history.
  writer_.sync_before_rewrite();
  ps::AofManifest next = ps::with_next_incr(manifest_, prefix_);
  const std::string& name = next.incrs.back().name;
  const std::string path = ps::join_path(dir_, name);
  std::string err;
  ps::UniqueFd fd = ps::open_for_append(path, err);
  if (!fd)
    return Status::error(fmt::format("ERR Can't open the append-only file {}: {}", name, err));
  if (Status s = persist_manifest(next); !s) {
    fd.reset();
    ps::remove_file(path);
    return Status::error("ERR " + s.error());
  }
  manifest_ = std::move(next);
  writer_.switch_to(std::move(fd));
  replaced_incrs_ = manifest_.incrs.size() - 1;
  return {};
}

Status AofRewrite::fork_child() {
  const std::string dir = dir_;
  const auto temp_path = [&dir](pid_t pid) {
    return ps::join_path(dir, fmt::format("temp-rewriteaof-bg-{}.aof", pid));
  };
  // In the child: one file, then _exit. No destructors, no sockets, no logging.
  const auto body = [this](const std::string& temp) {
    std::string err;
    ps::RdbSaveOptions options = base_options(settings_, clock_, function_source_);
    options.progress = &ps::ChildReports::send_progress;
    return ps::write_rdb_file(temp, keyspace_, options, err);
  };
  std::string err;
  std::unique_lock parked = writer_.park_syncer();
  const bool started = child_.start(ps::BackgroundChild::Kind::kRewrite, temp_path, body,
                                    clock_.monotonic_ms(), err, ps::key_count(keyspace_));
  parked.unlock();
  if (!started)
    return Status::error(
        fmt::format("ERR Can't rewrite append only file in background: fork: {}", err));
  scheduled_ = false;
  log_.notice(fmt::format("Background append only file rewriting started by pid {}", child_.pid()));
  return {};
}

// ---- finishing a rewrite --------------------------------------------------------------------

void AofRewrite::finish(const ps::BackgroundChild::Exit& exit) {
  last_secs_ = static_cast<std::int64_t>((clock_.monotonic_ms() - exit.start_ms) / 1000);
  Installed done;
  done.temp_base = exit.temp_path;
  if (!exit.ok || is_stale(mode_, state_))
    return fail_rewrite("Background AOF rewrite terminated with error", done);
  if (Status s = install(done); !s) return fail_rewrite(s.error(), done);
  rewrite_succeeded(done);
}

// Renames the new files into place and persists the manifest that names them: the switch point.
Status AofRewrite::install(Installed& done) {
  const std::string base_name = ps::base_file_name(prefix_, base_seq_, true);
  const std::string base_path = ps::join_path(dir_, base_name);
  std::string err;
  if (!ps::rename_file(done.temp_base, base_path, err))
    return Status::error(
        fmt::format("Error trying to rename the temporary AOF base file {} "
                    "into {}: {}",
                    done.temp_base, base_name, err));
  done.base_path = base_path;
  // Compacting keeps the incr file opened at the fork; otherwise every older incr is history.
  const std::size_t replaced = mode_ == Mode::kCompact ? replaced_incrs_ : manifest_.incrs.size();
  ps::AofManifest next = ps::with_new_base(manifest_, prefix_, base_seq_, replaced);
  if (mode_ == Mode::kInitial) {
    // The temporary incr file (everything since the fork) becomes the first incr.
    next = ps::with_next_incr(next, prefix_);
    const std::string& name = next.incrs.back().name;
    const std::string incr_path = ps::join_path(dir_, name);
    writer_.flush();
    if (!ps::rename_file(temp_incr_path(), incr_path, err))
      return Status::error(
          fmt::format("Error trying to rename the temporary AOF incr file "
                      "into {}: {}",
                      name, err));
    done.incr_path = incr_path;
  }
  if (Status s = persist_manifest(next); !s) return s;
  manifest_ = std::move(next);
  return {};
}

// The one failure path: undo what install() did, record the failure, maybe retry.
void AofRewrite::fail_rewrite(std::string_view why, const Installed& done) {
  log_.warning(why);
  ps::remove_file(done.temp_base);
  if (!done.base_path.empty()) ps::remove_file(done.base_path);
  // The open incr file goes back to its temporary name: no file outside the manifest may carry
  // a name a later incr could reuse.
  std::string err;
  if (!done.incr_path.empty()) ps::rename_file(done.incr_path, temp_incr_path(), err);
  last_ok_ = false;
  ++consecutive_failures_;
  last_fail_ms_ = clock_.unix_ms();
  // The first AOF after CONFIG SET appendonly yes is retried from cron, as Redis does.
  if (retries_after_failure(mode_, state_)) scheduled_ = true;
}

void AofRewrite::rewrite_succeeded(const Installed& done) {
  if (mode_ == Mode::kInitial) {
    state_ = State::kOn;
    log_.notice("AOF rewrite done: the AOF is on");
  }
  log_.notice(fmt::format("Successfully renamed the temporary AOF base file {} into {}",
                          done.temp_base, manifest_.base->name));
  delete_history_files();
  long long total = std::max(0LL, ps::file_size(done.base_path));
  for (const auto& i : manifest_.incrs)
    total += std::max(0LL, ps::file_size(ps::join_path(dir_, i.name)));
  writer_.reset_size(total);
  last_ok_ = true;
  consecutive_failures_ = 0;
  ++rewrites_;
  log_.notice("Background AOF rewrite finished successfully");
}

std::optional<long long> AofRewrite::auto_rewrite_growth(std::int64_t now_ms) const {
  if (state_ != State::kOn || settings_.auto_aof_rewrite_percentage <= 0 ||
      writer_.current_size() <= settings_.auto_aof_rewrite_min_size)
    return std::nullopt;
  if (!last_ok_ && now_ms - last_fail_ms_ <= 60000) return std::nullopt;
  const long long base = writer_.base_size() > 0 ? writer_.base_size() : 1;
  const long long growth = (writer_.current_size() * 100 / base) - 100;
  if (growth < settings_.auto_aof_rewrite_percentage) return std::nullopt;
  return growth;
}

bool AofRewrite::limited(std::int64_t now_ms) {
  constexpr std::uint64_t kFailuresBeforeBackoff = 3;  // AOF_REWRITE_LIMITE_THRESHOLD
  constexpr int kMaxMinutes = 60;                      // AOF_REWRITE_LIMITE_MAX_MINUTES
  if (consecutive_failures_ < kFailuresBeforeBackoff) {
    backoff_minutes_ = 0;
    backoff_until_ms_ = 0;
    return false;
  }
  if (backoff_until_ms_ != 0) {
    // Redis compares whole seconds (server.unixtime).
    if (now_ms / 1000 < backoff_until_ms_ / 1000) return true;
    backoff_until_ms_ = 0;
    return false;  // one attempt; if it fails too, the next wait is twice as long
  }
  backoff_minutes_ = backoff_minutes_ == 0 ? 1 : std::min(backoff_minutes_ * 2, kMaxMinutes);
  backoff_until_ms_ = now_ms + std::int64_t{backoff_minutes_} * 60000;
  log_.warning(fmt::format(
      "Background AOF rewrite has repeatedly failed and triggered the limit, will retry in {} "
      "minutes",
      backoff_minutes_));
  return true;
}

}  // namespace listd::server
