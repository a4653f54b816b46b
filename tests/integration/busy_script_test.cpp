// Busy scripts against Redis' own behaviour: a script that runs past busy-reply-threshold
// (100 ms here) lets other clients in from its hook. The same steps run on a real listd and a
// real redis-server 7.0.15 and must give the same reply bytes: -BUSY for everything but the
// allow-busy commands, a waiter that is not timed out while busy, SCRIPT KILL stopping a
// read-only script (its caller gets the killed error, then its pipelined PING), -UNKILLABLE for
// a script that wrote, and SHUTDOWN NOSAVE ending the server without logging the script.
// The BUSY state is found by bounded polling, never by sleeping and hoping.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/resp_client.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace listd::testing {
namespace {

using Ms = RespClient::Ms;
using Transcript = std::vector<std::string>;

constexpr std::string_view kSpin = "while true do end";

// PINGs until the server answers -BUSY (each PING waits while the script runs unyielding).
std::string wait_until_busy(RespClient& c) {
  for (int i = 0; i < 500; ++i) {
    std::string r = c.call({"PING"});
    if (r.rfind("-BUSY", 0) == 0) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "never busy";
}

void wait_until_blocked(RespClient& c, int n) {
  const std::string want = "blocked_clients:" + std::to_string(n) + "\r\n";
  for (int i = 0; i < 500; ++i) {
    if (c.call({"INFO", "clients"}).find(want) != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "never " << want;
}

// A read-only script: BUSY texts, the allowed commands, a waiter left alone, SCRIPT KILL.
Transcript killable_script(int port) {
  Transcript t;
  RespClient caller(port), other(port), waiter(port);
  t.push_back(other.call({"CONFIG", "SET", "busy-reply-threshold", "100"}));
  t.push_back(other.call({"CONFIG", "GET", "lua-time-limit"}));
  t.push_back(other.call({"SCRIPT", "KILL"}));
  // The BLPOP's 2 s leave the set-up below (about 150 ms) a wide margin to make the script busy
  // before the deadline, on a slow machine too.
  const auto blpop_sent = std::chrono::steady_clock::now();
  waiter.send_command({"BLPOP", "q", "2"});
  wait_until_blocked(other, 1);
  // The caller's PING waits in its buffer and is answered after the killed script's error.
  caller.send(encode_command({"EVAL", std::string(kSpin), "0"}) + encode_command({"PING"}));
  t.push_back(wait_until_busy(other));
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"GET", "k"},
           {"EVAL", "return 1", "0"},
           {"CLIENT", "LIST"},
           {"SCRIPT", "KILL", "x"},
           {"SHUTDOWN"},
           {"AUTH", "pw"},
           {"WATCH", "k"},
           {"UNWATCH"},
           {"MULTI"},
           {"GET", "k"},
           {"EXEC"},
       })
    t.push_back(other.call(cmd));
  // Past the BLPOP's deadline while the script is busy: the waiter is not answered yet.
  const auto past_deadline = blpop_sent + std::chrono::milliseconds(2300);
  const auto wait =
      std::chrono::duration_cast<Ms>(past_deadline - std::chrono::steady_clock::now());
  t.push_back(waiter.try_read_reply(std::max(wait, Ms(0))).value_or("(no reply while busy)"));
  t.push_back(other.call({"SCRIPT", "KILL"}));
  t.push_back(caller.read_reply());
  t.push_back(caller.read_reply());
  t.push_back(waiter.read_reply());  // timed out once the script is over
  t.push_back(other.call({"SCRIPT", "KILL"}));
  t.push_back(other.call({"PING"}));
  return t;
}

// Waits (bounded) for the server to exit without being signalled, then reaps it: status 0.
bool exited_by_itself(ServerProcess& p) {
  for (int i = 0; i < 500; ++i) {
    siginfo_t info{};
    // WNOWAIT: only look; stop() reaps it (its SIGTERM to a zombie is harmless).
    if (::waitid(P_PID, static_cast<id_t>(p.pid()), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == p.pid())
      return p.stop() == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// A script that wrote: UNKILLABLE, then SHUTDOWN NOSAVE ends the server; neither the caller nor
// the SHUTDOWN client gets a reply.
Transcript unkillable_script(int port) {
  Transcript t;
  RespClient caller(port), other(port);
  t.push_back(other.call({"CONFIG", "SET", "lua-time-limit", "100"}));
  t.push_back(caller.call({"SET", "before", "1"}));
  caller.send_command({"EVAL", "redis.call('set','k','v') " + std::string(kSpin), "0"});
  t.push_back(wait_until_busy(other));
  t.push_back(other.call({"SCRIPT", "KILL"}));
  t.push_back(other.call({"SHUTDOWN", "SAVE"}));
  other.send_command({"SHUTDOWN", "NOSAVE"});
  t.push_back(other.try_read_reply(Ms(5000)).value_or("(closed)"));
  t.push_back(caller.try_read_reply(Ms(5000)).value_or("(closed)"));
  return t;
}

// SIGTERM while a script is busy: the server stays up (still -BUSY) and shuts down once the
// script ends, as Redis' shutdown_asap. The caller's reply is not compared: Redis closes its
// connection first, listd sends it the killed error.
Transcript sigterm_while_busy(ServerProcess& p) {
  Transcript t;
  RespClient caller(p.port()), other(p.port());
  t.push_back(other.call({"CONFIG", "SET", "busy-reply-threshold", "100"}));
  caller.send_command({"EVAL", std::string(kSpin), "0"});
  t.push_back(wait_until_busy(other));
  ::kill(p.pid(), SIGTERM);
  t.push_back(other.call({"PING"}));
  t.push_back(other.call({"SCRIPT", "KILL"}));
  t.push_back(exited_by_itself(p) ? "exited" : "still running");
  return t;
}

TEST(BusyScript, KillableScriptMatchesRedis) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  const Transcript ours = killable_script(listd.port());
  const Transcript theirs = killable_script(redis.port());
  ASSERT_EQ(ours.size(), theirs.size());
  for (std::size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(ours[i], theirs[i]) << "step " << i;
  EXPECT_EQ(ours[3],
            "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
            "SHUTDOWN NOSAVE.\r\n");
}

TEST(BusyScript, UnkillableScriptEndsWithShutdownNosave) {
  TempDir dir;
  ServerProcess listd = ServerProcess::start_listd({"--appendonly", "yes", "--dir", dir.path()});
  ServerProcess redis = ServerProcess::start_redis();
  const Transcript ours = unkillable_script(listd.port());
  EXPECT_TRUE(exited_by_itself(listd));
  const Transcript theirs = unkillable_script(redis.port());
  EXPECT_TRUE(exited_by_itself(redis));
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(ours[3].rfind("-UNKILLABLE Sorry the script already executed write commands", 0), 0u)
      << ours[3];
  // The AOF holds what came before the script and nothing of it.
  ServerProcess again = ServerProcess::start_listd({"--appendonly", "yes", "--dir", dir.path()});
  RespClient c(again.port());
  EXPECT_EQ(c.call({"GET", "before"}), "$1\r\n1\r\n");
  EXPECT_EQ(c.call({"EXISTS", "k"}), ":0\r\n");
}

TEST(BusyScript, SigtermWaitsForTheScriptToEnd) {
  ServerProcess listd = ServerProcess::start_listd();
  ServerProcess redis = ServerProcess::start_redis();
  const Transcript ours = sigterm_while_busy(listd);
  const Transcript theirs = sigterm_while_busy(redis);
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(ours.back(), "exited");
}

}  // namespace
}  // namespace listd::testing
