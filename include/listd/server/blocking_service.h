// How a parked client is served once one of its keys is ready. Implemented next to the
// blocking commands (src/server/commands/blocking_commands.cpp) so the serving path and the
// non-blocking commands share one pop implementation.
#pragma once

#include "listd/blocking/waiter_registry.h"
#include "listd/server/client.h"

namespace listd::server {

class Executor;

enum class ServeResult {
  kServed,  ///< the client got its reply and is no longer blocked
  kNoData,  ///< the key is gone: stop serving this key
  kSkip,    ///< the key holds the other kind (list vs sorted set): try the next waiter
};

/// Serves `client` (the oldest waiter on `key`) from `key`, replying exactly what its command
/// would have replied had the data been there. Called only by Executor::drain_ready_keys.
ServeResult serve_blocked_client(Executor& exec, Client& client, const blocking::BlockKey& key);

/// The sorted-set half of serving (BZPOPMIN/BZPOPMAX/BZMPOP), implemented with the sorted-set
/// commands; serve_blocked_client delegates kZPop/kZMultiPop waiters to it.
ServeResult serve_zset_waiter(Executor& exec, Client& client, const blocking::BlockKey& key);

}  // namespace listd::server
