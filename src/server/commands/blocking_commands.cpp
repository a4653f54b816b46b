// Blocking commands: registered in register_blocking_commands (none yet).
#include "listd/server/blocking_service.h"
#include "listd/server/command_table.h"
#include "listd/server/executor.h"

namespace listd::server {

void register_blocking_commands(CommandTable&) {}

ServeResult serve_blocked_client(Executor&, Client&, const blocking::BlockKey&) {
  return ServeResult::kNoData;
}

}  // namespace listd::server
