// zset commands: registered in register_zset_commands (none yet).
#include "listd/server/blocking_service.h"
#include "listd/server/command_table.h"

namespace listd::server {

void register_zset_commands(CommandTable&) {}

// No sorted-set waiters can exist until BZPOPMIN/BZPOPMAX/BZMPOP are registered.
ServeResult serve_zset_waiter(Executor&, Client&, const blocking::BlockKey&) {
  return ServeResult::kNoData;
}

}  // namespace listd::server
