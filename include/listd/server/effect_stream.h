// The effect stream: what the executor's commands wrote, as the commands that replay it.
//
// Effects, not requests. A write command's default effect is its argv; a command whose effect
// differs (relative expiry, randomness, a blocking pop served at once) carries kOwnEffect in its
// table entry and emits the effect itself where it knows it (CommandContext::propagate_as), as
// Redis' rewriteClientCommandVector / alsoPropagate and Dragonfly's NO_AUTOJOURNAL do. A served
// waiter emits the pop it performed from the code that served it; an expired key is a DEL.
//
// Effects are grouped in execution units, Redis 7.0's rule (server.c propagatePendingCommands):
// one top-level command (EXEC and its queued commands included), or one served waiter. A unit
// that produced more than one effect reaches the consumers wrapped in MULTI ... EXEC; a unit of
// one effect goes alone (so `MULTI; SET a 1; EXEC` is logged as `SET a 1`, and `SET k v` on an
// expired k as `MULTI; DEL k; SET k v; EXEC`). Units that may touch arbitrary keys (SCAN,
// RANDOMKEY expiring what they meet) are never wrapped. Effects emitted outside any unit (active
// expiry) go out at once, one by one.
//
// Consumers: the AOF (Persistence), later the replication stream and a script's collector; a
// test subscribes a recorder. A consumer sees every effect with the database it applies to and
// does its own SELECT bookkeeping. Nothing is buffered while no consumer wants effects, so the
// hot path pays one branch when the AOF is off.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace listd::server {

class EffectConsumer {
 public:
  virtual ~EffectConsumer() = default;
  /// False while the consumer does not want effects (the AOF with appendonly no, or loading).
  virtual bool wants_effects() const noexcept = 0;
  /// One effect (a MULTI or EXEC wrapper included), applying to database `db`.
  virtual void on_effect(int db, std::span<const std::string_view> argv) = 0;
};

class EffectStream {
 public:
  void subscribe(EffectConsumer& consumer);
  void unsubscribe(EffectConsumer& consumer);
  /// True when some consumer wants effects: emitters may skip building an effect otherwise.
  bool active() const noexcept;

  /// Opens an execution unit (nested opens join the outer one). `wrap_allowed` false: the
  /// unit's effects go out unwrapped (commands that touch arbitrary keys).
  void begin_unit(bool wrap_allowed = true) noexcept;
  /// Closes the unit; the outermost close delivers its effects.
  void end_unit();
  bool in_unit() const noexcept { return depth_ > 0; }
  /// Forgets what the running unit emitted so far (a script stopped by SHUTDOWN NOSAVE: Redis
  /// exits with them unpropagated, so none reaches the AOF).
  void discard_unit() noexcept {
    pending_.clear();
    arg_spans_.clear();
    bytes_.clear();
  }

  /// While muted, emit() drops effects (a script's redis.set_repl without REPL_AOF).
  void mute(bool muted) noexcept { muted_ = muted; }

  /// Records one effect of the running unit (delivered at once outside a unit).
  void emit(int db, std::span<const std::string_view> argv);
  void emit(int db, std::initializer_list<std::string_view> argv) {
    emit(db, std::span<const std::string_view>(argv.begin(), argv.size()));
  }

 private:
  struct Pending {
    int db;
    std::size_t first_arg;  // index into arg_spans_
    std::size_t argc;
  };
  void deliver(int db, std::span<const std::string_view> argv);

  std::vector<EffectConsumer*> consumers_;
  int depth_ = 0;
  bool muted_ = false;
  bool wrap_allowed_ = true;
  // The running unit's effects, flat so steady state allocates nothing: the bytes of every
  // argument in one buffer, (offset, length) per argument, (db, args) per effect.
  std::string bytes_;
  std::vector<std::pair<std::size_t, std::size_t>> arg_spans_;
  std::vector<Pending> pending_;
  std::vector<std::string_view> views_;
};

}  // namespace listd::server
