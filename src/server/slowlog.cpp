#include "listd/server/slowlog.h"

#include <algorithm>
#include <utility>

#include "listd/server/client.h"

namespace listd::server {
namespace {

// Redis' SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING.
constexpr std::size_t kMaxArgs = 32;
constexpr std::size_t kMaxArgBytes = 128;

// Redis' getClientPeerId: a client without a connection (the script client) reads "?:0".
std::string peer_of(const Client& c) { return c.transport ? c.addr : "?:0"; }

}  // namespace

std::vector<std::string> SlowLog::entry_args(std::span<const std::string_view> argv,
                                             std::span<const std::size_t> redacted) {
  const std::size_t kept = std::min(argv.size(), kMaxArgs);
  std::vector<std::string> args;
  args.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i) {
    if (kept != argv.size() && i == kept - 1) {
      args.push_back("... (" + std::to_string(argv.size() - kept + 1) + " more arguments)");
    } else if (std::find(redacted.begin(), redacted.end(), i) != redacted.end()) {
      args.emplace_back("(redacted)");
    } else if (argv[i].size() > kMaxArgBytes) {
      args.push_back(std::string(argv[i].substr(0, kMaxArgBytes)) + "... (" +
                     std::to_string(argv[i].size() - kMaxArgBytes) + " more bytes)");
    } else {
      args.emplace_back(argv[i]);
    }
  }
  return args;
}

void SlowLog::record(const Client& client, std::span<const std::string_view> argv,
                     std::span<const std::size_t> redacted, std::uint64_t duration_us,
                     std::int64_t unix_s, long long slower_than_us, std::size_t max_len) {
  if (duration_us >= static_cast<std::uint64_t>(slower_than_us))
    push(client, entry_args(argv, redacted), duration_us, unix_s);
  trim(max_len);
}

void SlowLog::park(const Client& client, std::span<const std::string_view> argv,
                   std::span<const std::size_t> redacted, std::uint64_t duration_us) {
  parked_[client.id] = Parked{entry_args(argv, redacted), duration_us};
}

void SlowLog::serve_parked(const Client& client, std::uint64_t serve_us, std::int64_t unix_s,
                           long long slower_than_us, std::size_t max_len) {
  auto it = parked_.find(client.id);
  if (it == parked_.end()) return;
  Parked parked = std::move(it->second);
  parked_.erase(it);
  // Redis checks the threshold again when it files the served command (and skips a log
  // switched off meanwhile).
  if (slower_than_us < 0) return;
  const std::uint64_t total = parked.duration_us + serve_us;
  if (total >= static_cast<std::uint64_t>(slower_than_us))
    push(client, std::move(parked.args), total, unix_s);
  trim(max_len);
}

void SlowLog::push(const Client& client, std::vector<std::string> args, std::uint64_t duration_us,
                   std::int64_t unix_s) {
  entries_.push_front(
      Entry{next_id_++, unix_s, duration_us, std::move(args), peer_of(client), client.name});
}

void SlowLog::trim(std::size_t max_len) {
  while (entries_.size() > max_len) entries_.pop_back();
}

}  // namespace listd::server
