#include "listd/protocol/http_request.h"

#include "listd/base/redis_text.h"

namespace listd::protocol {
namespace {

std::string_view http_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "GET /path?q HTTP/1.1"
bool parse_request_line(std::string_view line, HttpRequest& out) {
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == 0 || sp2 == std::string_view::npos || sp2 == sp1 + 1) return false;
  const std::string_view version = line.substr(sp2 + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return false;
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (target.front() != '/') return false;
  target = target.substr(0, target.find('?'));
  out.method = line.substr(0, sp1);
  out.path = target;
  out.minor_version = version.back() - '0';
  out.keep_alive = out.minor_version == 1;
  return true;
}

// One header field; only Connection and the body's framing matter here.
bool apply_header(std::string_view line, HttpRequest& out) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view name = line.substr(0, colon);
  if (name.back() == ' ' || name.back() == '\t') return false;  // RFC 9112 5.1
  const std::string_view value = http_trim(line.substr(colon + 1));
  if (base::iequals(name, "connection")) {
    if (base::iequals(value, "close")) out.keep_alive = false;
    if (base::iequals(value, "keep-alive")) out.keep_alive = true;
  } else if (base::iequals(name, "transfer-encoding")) {
    return false;
  } else if (base::iequals(name, "content-length")) {
    return value == "0";
  }
  return true;
}

}  // namespace

HttpParse parse_http_request(std::string_view buffer, std::size_t max_head_bytes,
                             HttpRequest& out) {
  // RFC 9112 2.2: empty lines before the request line are ignored.
  std::size_t start = 0;
  while (buffer.substr(start, 2) == "\r\n") start += 2;
  const std::size_t end = buffer.find("\r\n\r\n", start);
  if (end == std::string_view::npos)
    return buffer.size() > max_head_bytes ? HttpParse::kTooLarge : HttpParse::kIncomplete;
  if (end + 4 > max_head_bytes) return HttpParse::kTooLarge;
  std::string_view head = buffer.substr(start, end - start);
  out = HttpRequest{};
  const std::size_t first_eol = head.find("\r\n");
  if (!parse_request_line(head.substr(0, first_eol), out)) return HttpParse::kBad;
  std::string_view rest = first_eol == std::string_view::npos ? "" : head.substr(first_eol + 2);
  while (!rest.empty()) {
    const std::size_t eol = rest.find("\r\n");
    if (!apply_header(rest.substr(0, eol), out)) return HttpParse::kBad;
    rest = eol == std::string_view::npos ? "" : rest.substr(eol + 2);
  }
  out.consumed = end + 4;
  return HttpParse::kComplete;
}

}  // namespace listd::protocol
