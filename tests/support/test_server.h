// In-process executor for unit tests: no sockets, no threads, a manual clock.
//
//   TestServer t;
//   auto& a = t.client();
//   EXPECT_EQ(t.run(a, {"LPUSH", "k", "x"}), ":1\r\n");
//   t.advance_ms(1500);           // moves the clock and fires due timers (tick)
//   EXPECT_EQ(t.take_output(b), "*-1\r\n");
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "listd/config/config.h"
#include "listd/server/clock.h"
#include "listd/server/executor.h"

namespace listd::testing {

/// A transport whose liveness the test controls.
class FakeTransport final : public server::ClientTransport {
 public:
  bool peer_gone() override {
    ++peer_checks;
    return gone;
  }
  std::size_t query_buffer_bytes() const override { return 0; }
  std::size_t query_buffer_free() const override { return qbuf_free; }
  std::size_t pending_output_bytes() const override { return pending; }
  int raw_socket() const override { return socket; }
  void flush() override {}
  void resume() override {}
  void close() override { closed = true; }
  bool gone = false;
  int peer_checks = 0;  ///< peer_gone() calls: each is a system call on a real connection
  bool closed = false;
  std::size_t pending = 0;    ///< bytes the transport holds unwritten (output-buffer limits)
  std::size_t qbuf_free = 0;  ///< the read buffer's spare room (CLIENT LIST qbuf-free)
  int socket = -1;            ///< a socket a diskless sync's child may write to (a test's pair)
};

class TestServer {
 public:
  TestServer() : exec_(std::make_unique<server::Executor>(config_, clock_)) {}
  explicit TestServer(const std::vector<std::pair<std::string, std::string>>& settings) {
    for (const auto& [k, v] : settings) config_.set(k, v);
    exec_ = std::make_unique<server::Executor>(config_, clock_);
  }

  server::Client& client() {
    transports_.push_back(std::make_unique<FakeTransport>());
    auto& c =
        exec_->create_client(transports_.back().get(), "127.0.0.1:40000", "127.0.0.1:6379", -1);
    return c;
  }
  FakeTransport& transport(server::Client& c) { return *static_cast<FakeTransport*>(c.transport); }

  /// Runs one command and returns the bytes it appended to this client's output (which is then
  /// cleared). Blocking commands return "" until served.
  std::string run(server::Client& c, std::initializer_list<std::string_view> argv) {
    std::vector<std::string_view> v(argv);
    return run(c, v);
  }
  std::string run(server::Client& c, const std::vector<std::string_view>& argv) {
    exec_->execute(c, argv);
    return take_output(c);
  }
  std::string run_strings(server::Client& c, const std::vector<std::string>& argv) {
    std::vector<std::string_view> v(argv.begin(), argv.end());
    return run(c, v);
  }
  std::string take_output(server::Client& c) {
    std::string out;
    out.swap(c.out);
    return out;
  }
  void advance_ms(std::uint64_t ms) {
    clock_.advance_ms(ms);
    exec_->tick();
  }
  /// The server drops a client as the transport does on disconnect.
  void disconnect(server::Client& c) { exec_->destroy_client(c); }

  server::Executor& exec() { return *exec_; }
  server::ManualClock& clock() { return clock_; }
  config::Config& config() { return config_; }

 private:
  server::ManualClock clock_;
  config::Config config_;
  std::vector<std::unique_ptr<FakeTransport>> transports_;
  std::unique_ptr<server::Executor> exec_;
};

}  // namespace listd::testing
