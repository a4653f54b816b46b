// Effects, not requests: what the executor writes to the AOF for a command that changed data.
//
// Most commands are deterministic and are written as received. The exceptions are rewritten
// into the effect they had, as Redis 7.0 does (and a little more strictly):
//  - relative or absolute expiry becomes the absolute deadline the key now has:
//    EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT -> PEXPIREAT key <ms> (DEL key if it is gone),
//    SET ... EX|PX|EXAT|PXAT|KEEPTTL, SETEX, PSETEX -> SET key value [PXAT <ms>],
//    GETEX -> PEXPIREAT key <ms> | PERSIST key, GETDEL -> DEL key;
//  - INCRBYFLOAT -> SET key <new value> KEEPTTL (no float formatting differences on replay);
//  - SPOP -> SREM key <the members it popped>;
//  - a blocking command answered at once -> its non-blocking form on the key it served:
//    BLPOP/BRPOP -> LPOP/RPOP key, BLMOVE -> LMOVE, BRPOPLPUSH -> RPOPLPUSH, BLMPOP -> LMPOP,
//    BZPOPMIN/BZPOPMAX -> ZPOPMIN/ZPOPMAX key, BZMPOP -> ZMPOP;
//  - a waiter served by a push -> the pop it performed, right after that push:
//    LPOP|RPOP key, LPOP|RPOP key <n> (BLMPOP), LMOVE src dst from to, RPOPLPUSH src dst,
//    ZPOPMIN|ZPOPMAX key [n].
// Expired keys are written as DEL by the executor's expiry hook.
//
// API: probe_before (cheap, only blocking pops look at the keyspace), propagate_command,
// probe_waiter / propagate_served_waiter (the drain path).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "listd/blocking/waiter_registry.h"
#include "listd/server/client.h"
#include "listd/server/command_table.h"

namespace listd::server {

class Executor;

/// What must be known before a command runs to write its effect afterwards.
struct PropagationProbe {
  std::string served_key;  ///< BLPOP/BRPOP/BZPOP*: the first existing key (the one served)
};

/// Looks at the keyspace before `spec` runs (only for blocking pops; otherwise free).
PropagationProbe probe_before(Executor& exec, int db, const CommandSpec& spec,
                              std::span<const std::string_view> argv);

/// Writes the effect of a command that changed data (ctx.dirty() > 0) through
/// Executor::propagate. `reply` is what the command wrote to its client (SPOP reads it).
void propagate_command(Executor& exec, int db, const CommandSpec& spec,
                       std::span<const std::string_view> argv, const PropagationProbe& probe,
                       std::string_view reply);

/// Size of the waited key before a waiter is served (0 if absent).
std::size_t probe_waiter(Executor& exec, const blocking::BlockKey& key);
/// Writes the pop a served waiter performed. `size_before` comes from probe_waiter.
void propagate_served_waiter(Executor& exec, const Client& client, const blocking::BlockKey& key,
                             std::size_t size_before);

}  // namespace listd::server
