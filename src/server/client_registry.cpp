#include "listd/server/client_registry.h"

#include <algorithm>

#include "listd/base/redis_text.h"
#include "listd/server/output_buffer_limits.h"

namespace listd::server {
namespace {

template <class T>
void erase_value(std::vector<T*>& v, const T* p) {
  v.erase(std::remove(v.begin(), v.end(), p), v.end());
}

}  // namespace

std::string format_monitor_line(const Client& c, std::int64_t unix_us,
                                std::span<const std::string_view> argv) {
  std::string line = "+" + std::to_string(unix_us / 1000000) + ".";
  std::string frac = std::to_string(unix_us % 1000000);
  line.append(6 - frac.size(), '0');
  line += frac + " [" + std::to_string(c.db) + " " + c.addr + "]";
  for (std::string_view a : argv) {
    line += ' ';
    base::append_repr(line, a);  // Redis sdscatrepr, as MONITOR prints each argument
  }
  line += "\r\n";
  return line;
}

Client& ClientRegistry::create() {
  auto owned = std::make_unique<Client>(next_id_++);
  Client& c = *owned;
  clients_.emplace(c.id, std::move(owned));
  return c;
}

void ClientRegistry::destroy(Client& c) {
  erase_value(flush_list_, &c);
  erase_value(resume_list_, &c);
  erase_value(kill_list_, &c);
  erase_value(close_asap_list_, &c);
  erase_value(monitors_, &c);
  clients_.erase(c.id);
}

Client* ClientRegistry::find(std::uint64_t id) noexcept {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second.get();
}

void ClientRegistry::queue_flush(Client& c, bool shows_data) {
  if (shows_data) c.out_needs_ack = true;
  if (guard_ && guard_->check_after_output(c)) schedule_close_asap(c);
  if (c.queued_for_flush) return;
  c.queued_for_flush = true;
  flush_list_.push_back(&c);
}

std::vector<Client*> ClientRegistry::take_flush_list() {
  std::vector<Client*> out;
  out.swap(flush_list_);
  for (Client* c : out) c->queued_for_flush = false;
  return out;
}

std::vector<Client*> ClientRegistry::take_resume_list() {
  std::vector<Client*> out;
  out.swap(resume_list_);
  return out;
}

void ClientRegistry::request_kill(Client& c) {
  c.close_after_reply = true;
  if (std::find(kill_list_.begin(), kill_list_.end(), &c) == kill_list_.end())
    kill_list_.push_back(&c);
}

std::vector<Client*> ClientRegistry::take_kill_list() {
  std::vector<Client*> out;
  out.swap(kill_list_);
  return out;
}

void ClientRegistry::schedule_close_asap(Client& c) {
  c.close_asap = true;
  if (std::find(close_asap_list_.begin(), close_asap_list_.end(), &c) == close_asap_list_.end())
    close_asap_list_.push_back(&c);
}

std::vector<Client*> ClientRegistry::take_close_asap_list() {
  std::vector<Client*> out;
  out.swap(close_asap_list_);
  return out;
}

void ClientRegistry::add_monitor(Client& c) {
  if (c.monitor) return;
  c.monitor = true;
  monitors_.push_back(&c);
}

void ClientRegistry::feed_monitors(const Client& c, std::int64_t unix_us,
                                   std::span<const std::string_view> argv) {
  const std::string line = format_monitor_line(c, unix_us, argv);
  for (Client* m : monitors_) {
    if (m == &c || m->close_asap) continue;
    m->out += line;
    queue_flush(*m);
  }
}

std::vector<Client*> ClientRegistry::idle_clients(std::uint64_t now_ms, std::uint64_t limit_ms) {
  std::vector<Client*> idle;
  for (auto& [id, c] : clients_) {
    if (!c->transport || c->waiting() || c->replica || c->master) continue;  // repl-timeout
    if (now_ms - c->last_interaction_ms > limit_ms) idle.push_back(c.get());
  }
  return idle;
}

}  // namespace listd::server
