// Owning handles for hiredis objects and binary-safe argv commands, shared by the integration
// tests.
#pragma once

#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <vector>

namespace listd::testing {

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

struct ContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};
using ContextPtr = std::unique_ptr<redisContext, ContextDeleter>;

/// Queues `args` as one request (binary safe) without reading its reply.
inline void append_command(redisContext* c, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  redisAppendCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data());
}

/// Sends `args` and reads its reply (null on a connection error).
inline ReplyPtr command(redisContext* c, const std::vector<std::string>& args) {
  append_command(c, args);
  void* reply = nullptr;
  if (redisGetReply(c, &reply) != REDIS_OK) return nullptr;
  return ReplyPtr(static_cast<redisReply*>(reply));
}

}  // namespace listd::testing
