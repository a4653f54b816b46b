// The queue snapshot as text for the metrics endpoint: Prometheus' exposition format and the
// JSON the HTML page polls (declared in queue_view.h).
#include <fmt/format.h>

#include "listd/server/queue_view.h"

namespace listd::server {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not one (overlong
// forms, surrogates and code points past U+10FFFF included).
std::size_t queue_text_utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(k) & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
  if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
  if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
  if (c == 0xF4 && b(1) >= 0x90) return 0;  // past U+10FFFF
  return n;
}

// A Prometheus label value: backslash, double quote and newline escaped; the format is UTF-8
// with no byte escape, so a byte that is not UTF-8 becomes U+FFFD.
void append_label_value(std::string& out, std::string_view v) {
  for (std::size_t i = 0; i < v.size();) {
    const std::size_t n = queue_text_utf8_length(v, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (v[i] == '\\')
      out += "\\\\";
    else if (v[i] == '"')
      out += "\\\"";
    else if (v[i] == '\n')
      out += "\\n";
    else
      out.append(v.substr(i, n));
    i += n;
  }
}

void append_json_string(std::string& out, std::string_view v) {
  out += '"';
  for (std::size_t i = 0; i < v.size();) {
    const std::size_t n = queue_text_utf8_length(v, i);
    const auto c = static_cast<unsigned char>(v[i]);
    if (n == 0 || c < 0x20) {
      out += fmt::format("\\u{:04x}", c);  // a control character, or a byte that is not UTF-8
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out.append(v.substr(i, n));
    i += n;
  }
  out += '"';
}

struct QueueFigure {
  std::string_view name;
  std::string_view help;
  double (*value)(const QueueSnapshot&);
};

constexpr QueueFigure kQueueFigures[] = {
    {"listd_queue_length", "Elements in the key (list length, stream entries, zset members).",
     [](const QueueSnapshot& q) { return static_cast<double>(q.length); }},
    {"listd_queue_waiters", "Clients blocked waiting on the key.",
     [](const QueueSnapshot& q) { return static_cast<double>(q.waiters); }},
    {"listd_queue_oldest_wait_seconds", "How long the key's oldest waiter has been blocked.",
     [](const QueueSnapshot& q) { return static_cast<double>(q.oldest_wait_ms) / 1000.0; }},
    {"listd_queue_pushes_per_second", "Elements pushed per second over the last minute.",
     [](const QueueSnapshot& q) { return q.rates.pushes; }},
    {"listd_queue_pops_per_second",
     "Elements popped per second over the last minute (hand-offs included).",
     [](const QueueSnapshot& q) { return q.rates.pops; }},
    {"listd_queue_handoffs_per_second", "Blocked clients served per second over the last minute.",
     [](const QueueSnapshot& q) { return q.rates.handoffs; }},
};

}  // namespace

std::string prometheus_queue_metrics(const std::vector<QueueSnapshot>& queues) {
  std::string out;
  for (const QueueFigure& f : kQueueFigures) {
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", f.name, f.help, f.name);
    for (const QueueSnapshot& q : queues) {
      out += fmt::format("{}{{db=\"{}\",key=\"", f.name, q.db);
      append_label_value(out, q.key);
      out += fmt::format("\"}} {}\n", f.value(q));
    }
  }
  return out;
}

std::string json_queue_metrics(const std::vector<QueueSnapshot>& queues) {
  std::string out = "{\"queues\":[";
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const QueueSnapshot& q = queues[i];
    if (i) out += ',';
    out += fmt::format("{{\"db\":{},\"key\":", q.db);
    append_json_string(out, q.key);
    out += fmt::format(
        ",\"length\":{},\"waiters\":{},\"oldest_wait_seconds\":{},\"pushes_per_second\":{},"
        "\"pops_per_second\":{},\"handoffs_per_second\":{}}}",
        q.length, q.waiters, static_cast<double>(q.oldest_wait_ms) / 1000.0, q.rates.pushes,
        q.rates.pops, q.rates.handoffs);
  }
  out += "]}";
  return out;
}

}  // namespace listd::server
