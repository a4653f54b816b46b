// A listd or redis-server with appendonly yes (appendfsync always) in its own temporary
// directory, and the commands of its incr AOF file, for tests that compare effects with
// Redis' own (effects_test.cpp, script_effects_test.cpp). Waiters are ordered by polling INFO
// blocked_clients.
#pragma once

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/hiredis_ptr.h"
#include "support/server_process.h"

namespace listd::testing {

using AofArgs = std::vector<std::string>;

/// Commands of an AOF file, each as its argv.
inline std::vector<AofArgs> parse_aof(const std::string& bytes) {
  std::vector<AofArgs> out;
  std::size_t p = 0;
  auto number = [&](char lead) {
    EXPECT_EQ(bytes.at(p), lead) << "at offset " << p;
    const std::size_t nl = bytes.find("\r\n", p);
    const long long n = std::atoll(bytes.substr(p + 1, nl - p - 1).c_str());
    p = nl + 2;
    return static_cast<std::size_t>(n);
  };
  while (p < bytes.size()) {
    const std::size_t argc = number('*');
    AofArgs a;
    for (std::size_t i = 0; i < argc; ++i) {
      const std::size_t len = number('$');
      a.push_back(bytes.substr(p, len));
      p += len + 2;
    }
    out.push_back(std::move(a));
  }
  return out;
}

inline long long blocked_clients(redisContext* c) {
  ReplyPtr r = command(c, {"INFO", "clients"});
  const std::string info(r->str, r->len);
  const auto at = info.find("blocked_clients:");
  return at == std::string::npos ? -1 : std::atoll(info.c_str() + at + 16);
}

/// Bounded polling until INFO reports `n` blocked clients.
inline bool wait_blocked(redisContext* c, long long n) {
  for (int i = 0; i < 2000; ++i) {
    if (blocked_clients(c) == n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

struct LoggedServer {
  explicit LoggedServer(bool redis) : dir(make_dir(redis)) {
    const AofArgs args{"--dir", dir.string(), "--appendonly", "yes", "--appendfsync", "always"};
    server.emplace(redis ? ServerProcess::start_redis(args) : ServerProcess::start_listd(args));
    conn.reset(server->connect());
    waiter.reset(server->connect());
  }
  ~LoggedServer() {
    conn.reset();
    waiter.reset();
    if (server) {
      EXPECT_EQ(server->stop(), 0);
    }
    std::filesystem::remove_all(dir);
  }
  std::vector<AofArgs> effects() const {
    std::ifstream in(dir / "appendonlydir" / "appendonly.aof.1.incr.aof", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_aof(ss.str());
  }
  static std::filesystem::path make_dir(bool redis) {
    static int n = 0;
    auto d = std::filesystem::temp_directory_path() /
             ("listd_logged_" + std::to_string(::getpid()) + "_" + std::to_string(n++) +
              (redis ? "_redis" : "_listd"));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
  }

  std::filesystem::path dir;
  std::optional<ServerProcess> server;
  ContextPtr conn;
  ContextPtr waiter;
};

}  // namespace listd::testing
