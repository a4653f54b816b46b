// HDEL, SREM and ZREM share one shape: remove the named members (argv[2..]) of a container
// key, notify `event` if any went, and delete the key (notifying `del`) once it is empty, as
// Redis does for every container type.
#pragma once

#include <cstddef>
#include <string_view>

#include "listd/config/config.h"
#include "listd/server/command_context.h"

namespace listd::server {

/// `Erase` is the container's `bool (std::string_view) noexcept` member that removes one
/// member; `access` maps the key's value to that container.
template <auto Erase, class Access>
void remove_members(CommandContext& ctx, store::ValueType type, Access access, int notify_class,
                    std::string_view event) {
  auto [e, wrong_type] = ctx.write(ctx.arg(1), type);
  if (wrong_type) return;
  long long removed = 0;
  if (e) {
    auto& container = access(e->value);
    for (std::size_t i = 2; i < ctx.argc() && !container.empty(); ++i)
      if ((container.*Erase)(ctx.arg(i))) ++removed;
    if (removed != 0) ctx.notify(notify_class, event, ctx.arg(1));
    if (container.empty()) {
      ctx.notify(config::kNotifyGeneric, "del", ctx.arg(1));
      ctx.delete_key(ctx.arg(1));
    }
  }
  ctx.mark_dirty(removed);
  ctx.reply().integer(removed);
}

}  // namespace listd::server
