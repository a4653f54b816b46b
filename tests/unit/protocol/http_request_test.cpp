// The queue view endpoint's HTTP/1.x request heads: what is accepted, what is refused, bounds.
#include "listd/protocol/http_request.h"

#include <gtest/gtest.h>

#include <string>

using listd::protocol::HttpParse;
using listd::protocol::HttpRequest;
using listd::protocol::parse_http_request;

TEST(HttpRequest, ParsesAGetWithItsHeadersAndLeavesTheNextRequest) {
  const std::string two =
      "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\nGET / HTTP/1.1\r\n\r\n";
  HttpRequest r;
  ASSERT_EQ(parse_http_request(two, 8192, r), HttpParse::kComplete);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_TRUE(r.keep_alive);
  ASSERT_EQ(parse_http_request(std::string_view(two).substr(r.consumed), 8192, r),
            HttpParse::kComplete);
  EXPECT_EQ(r.path, "/");
}

TEST(HttpRequest, ConnectionHeaderDecidesKeepAlive) {
  HttpRequest r;
  ASSERT_EQ(parse_http_request("GET / HTTP/1.1\r\nconnection: Close\r\n\r\n", 8192, r),
            HttpParse::kComplete);
  EXPECT_FALSE(r.keep_alive);
  ASSERT_EQ(parse_http_request("GET / HTTP/1.0\r\n\r\n", 8192, r), HttpParse::kComplete);
  EXPECT_FALSE(r.keep_alive);
  ASSERT_EQ(parse_http_request("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 8192, r),
            HttpParse::kComplete);
  EXPECT_TRUE(r.keep_alive);
}

TEST(HttpRequest, WaitsForTheBlankLineWithinTheBound) {
  HttpRequest r;
  EXPECT_EQ(parse_http_request("GET / HTTP/1.1\r\nHost: a\r\n", 8192, r), HttpParse::kIncomplete);
  EXPECT_EQ(parse_http_request(std::string(100, 'a'), 64, r), HttpParse::kTooLarge);
  EXPECT_EQ(parse_http_request("GET / HTTP/1.1\r\nX: " + std::string(100, 'a') + "\r\n\r\n", 64, r),
            HttpParse::kTooLarge);
}

TEST(HttpRequest, RefusesMalformedHeadsAndBodies) {
  HttpRequest r;
  for (const char* bad :
       {"GET /\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n", "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"})
    EXPECT_EQ(parse_http_request(bad, 8192, r), HttpParse::kBad) << bad;
  ASSERT_EQ(parse_http_request("HEAD / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 8192, r),
            HttpParse::kComplete);
  EXPECT_EQ(r.method, "HEAD");
}
