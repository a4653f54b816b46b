#include "listd/persistence/aof_encoder.h"

#include <charconv>

namespace listd::persistence {
namespace {

void append_header(std::string& out, char prefix, std::size_t n) {
  char buf[24];
  buf[0] = prefix;
  auto [end, ec] = std::to_chars(buf + 1, buf + sizeof buf - 2, n);
  *end++ = '\r';
  *end++ = '\n';
  out.append(buf, static_cast<std::size_t>(end - buf));
}

}  // namespace

void append_resp_command(std::string& out, std::span<const std::string_view> argv) {
  std::size_t need = 16;
  for (std::string_view a : argv) need += a.size() + 16;
  out.reserve(out.size() + need);
  append_header(out, '*', argv.size());
  for (std::string_view a : argv) {
    append_header(out, '$', a.size());
    out.append(a);
    out.append("\r\n", 2);
  }
}

void AofEncoder::annotate_timestamp(long long unix_s) {
  char num[24];
  auto [end, ec] = std::to_chars(num, num + sizeof num, unix_s);
  buf_.append("#TS:", 4);
  buf_.append(num, static_cast<std::size_t>(end - num));
  buf_.append("\r\n", 2);
}

void AofEncoder::append(int db, std::span<const std::string_view> argv) {
  if (db != selected_db_) {
    char num[16];
    auto [end, ec] = std::to_chars(num, num + sizeof num, db);
    const std::string_view select[] = {"SELECT",
                                       std::string_view(num, static_cast<std::size_t>(end - num))};
    append_resp_command(buf_, select);
    selected_db_ = db;
  }
  append_resp_command(buf_, argv);
}

}  // namespace listd::persistence
