// The head of one HTTP/1.x request, for the queue view's small endpoint (metrics-port): enough
// of RFC 9112 for GET and HEAD from Prometheus, curl and a browser, bounded and strict.
//
// API: parse_http_request (incremental: call again with more bytes until it is not kIncomplete).
// Invariants: never reads past `buffer`, never accepts a head longer than `max_head_bytes`; a
// request with a body is refused (kBad): the endpoint serves GET and HEAD only, and a body it
// did not read would be parsed as the next request.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace listd::protocol {

struct HttpRequest {
  std::string method;
  std::string path;  ///< the target without its query string
  int minor_version = 1;
  bool keep_alive = true;    ///< HTTP/1.1 unless `Connection: close`; 1.0 only with keep-alive
  std::size_t consumed = 0;  ///< bytes of the buffer this request took (its head)
};

enum class HttpParse {
  kIncomplete,  ///< no blank line yet: read more
  kComplete,    ///< `out` is filled
  kBad,         ///< malformed (answer 400 and close)
  kTooLarge,    ///< the head passes max_head_bytes (answer 431 and close)
};

HttpParse parse_http_request(std::string_view buffer, std::size_t max_head_bytes, HttpRequest& out);

}  // namespace listd::protocol
