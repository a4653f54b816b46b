// Owning handles for hiredis objects, shared by the integration tests.
#pragma once

#include <hiredis/hiredis.h>

#include <memory>

namespace listd::testing {

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

struct ContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};
using ContextPtr = std::unique_ptr<redisContext, ContextDeleter>;

}  // namespace listd::testing
