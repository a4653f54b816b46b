// What redis.call / redis.pcall do on the server (Redis script.c scriptCall): look the command
// up, refuse what a script may not run with Redis' texts, run it on the script's own client
// as inside EXEC (a blocking command answers at once, nothing is drained), and hand the reply
// bytes back to the engine. One runner per script run.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "listd/script/engine.h"

namespace listd::server {

class Executor;
struct Client;

class ScriptRunner final : public script::CommandRunner {
 public:
  /// `read_only`: EVAL_RO, EVALSHA_RO or a no-writes script (write commands are refused).
  /// `allow_oom`: the allow-oom shebang flag (denyoom commands run past maxmemory).
  ScriptRunner(Executor& exec, Client& script_client, bool read_only, bool allow_oom) noexcept
      : exec_(exec), client_(script_client), read_only_(read_only), allow_oom_(allow_oom) {}

  std::string call(std::span<const std::string_view> argv, protocol::RespVersion resp,
                   std::string& reply) override;
  std::optional<bool> acl_check(std::span<const std::string_view> argv) override;
  void log(int level, std::string_view message) override;
  void set_repl(int flags) override { repl_flags_ = flags; }
  /// While busy-reply-threshold > 0 (read once per run, as Redis installs its hook).
  bool wants_interrupts() const override;
  bool interrupt() override;

  /// True once the script ran a write command (Redis SCRIPT_WRITE_DIRTY).
  bool wrote() const noexcept { return write_dirty_; }

 private:
  Executor& exec_;
  Client& client_;
  bool read_only_;
  bool allow_oom_;
  bool write_dirty_ = false;
  int repl_flags_ = script::kReplAll;
};

}  // namespace listd::server
