// cmsgpack and struct inside the engine: exact encodings (the bytes redis-server 7.0.15's
// lua-cmsgpack 0.4.0 and struct 0.2 give for the same calls), round trips at every size
// boundary, nesting, offsets, and the error texts.
#include <gtest/gtest.h>

#include <string>

#include "listd/script/engine.h"
#include "listd/script/sha1.h"

namespace listd::script {
namespace {

class NoCommands final : public CommandRunner {
 public:
  std::string call(std::span<const std::string_view>, protocol::RespVersion,
                   std::string&) override {
    return "Unknown Redis command called from script";
  }
  void log(int, std::string_view) override {}
  void set_repl(int) override {}
  std::optional<bool> acl_check(std::span<const std::string_view>) override { return std::nullopt; }
};

class Libraries : public ::testing::Test {
 protected:
  std::string eval(const std::string& body) {
    const std::string sha = sha1_hex(body);
    std::string out;
    protocol::ReplyWriter w(out, protocol::RespVersion::kResp2);
    if (!engine.has(sha)) {
      const std::string error = engine.compile(sha, body);
      if (!error.empty()) return "compile: " + error;
    }
    engine.run(sha, {}, {}, runner, w);
    return out;
  }
  /// The bulk payload of a one-string reply.
  std::string bulk(const std::string& body) {
    const std::string out = eval(body);
    const std::size_t nl = out.find("\r\n");
    if (out.empty() || out[0] != '$' || nl == std::string::npos) return "not a bulk: " + out;
    return out.substr(nl + 2, out.size() - nl - 4);
  }
  LuaEngine engine;
  NoCommands runner;
};

TEST_F(Libraries, CmsgpackIntegersUseTheSmallestForm) {
  const std::string want(
      "\x00\x7f\xcc\x80\xcc\xff\xcd\x01\x00\xcd\xff\xff\xce\x00\x01\x00\x00\xce\xff\xff\xff\xff"
      "\xcf\x00\x00\x00\x01\x00\x00\x00\x00\xff\xe0\xd0\xdf\xd0\x80\xd1\xff\x7f\xd1\x80\x00\xd2"
      "\xff\xff\x7f\xff\xd2\x80\x00\x00\x00\xd3\xff\xff\xff\xff\x7f\xff\xff\xff",
      62);
  EXPECT_EQ(bulk("return cmsgpack.pack(0,127,128,255,256,65535,65536,4294967295,4294967296,-1,"
                 "-32,-33,-128,-129,-32768,-32769,-2147483648,-2147483649)"),
            want);
}

TEST_F(Libraries, CmsgpackFloatsStringsTables) {
  const std::string want =
      std::string("\xca?\xc0\x00\x00\xcb?\xb9\x99\x99\x99\x99\x99\x9a\xbf", 15) +
      std::string(31, 'a') + "\xd9 " + std::string(32, 'b');
  EXPECT_EQ(bulk("return cmsgpack.pack(1.5, 0.1, string.rep('a',31), string.rep('b',32))"), want);
  EXPECT_EQ(bulk("return cmsgpack.pack({})"), "\x90");
  EXPECT_EQ(bulk("return cmsgpack.pack({1,2})"), "\x92\x01\x02");
  EXPECT_EQ(bulk("return cmsgpack.pack({a={b=1}})"),
            "\x81\xa1"
            "a\x81\xa1"
            "b\x01");
  EXPECT_EQ(bulk("return cmsgpack.pack({[1]=1, [3]=3})").substr(0, 1), "\x82");  // a hole: a map
  EXPECT_EQ(bulk("return cmsgpack.pack(nil, true, false)"), "\xc0\xc3\xc2");
}

TEST_F(Libraries, CmsgpackRoundTrips) {
  EXPECT_EQ(eval("for _, n in ipairs({0, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, "
                 "-1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, 1.5, 0.1, "
                 "-2.25, 1e300}) do if cmsgpack.unpack(cmsgpack.pack(n)) ~= n then return n end "
                 "end return 'same'"),
            "$4\r\nsame\r\n");
  EXPECT_EQ(eval("for _, n in ipairs({0, 31, 32, 255, 256, 65535, 65536}) do local s = "
                 "string.rep('x', n) if cmsgpack.unpack(cmsgpack.pack(s)) ~= s then return n end "
                 "end return 'same'"),
            "$4\r\nsame\r\n");
  EXPECT_EQ(eval("local t = {} for i = 1, 70000 do t[i] = i end local u = "
                 "cmsgpack.unpack(cmsgpack.pack(t)) return {#u, u[70000]}"),
            "*2\r\n:70000\r\n:70000\r\n");
  EXPECT_EQ(eval("local t = {} for i = 1, 20 do t['k' .. i] = i end local u = "
                 "cmsgpack.unpack(cmsgpack.pack(t)) return {u.k1, u.k20}"),
            "*2\r\n:1\r\n:20\r\n");
  EXPECT_EQ(eval("return {cmsgpack.unpack(cmsgpack.pack({1, {2, 3}}, 'x', 7))}"),
            "*3\r\n*2\r\n:1\r\n*2\r\n:2\r\n:3\r\n$1\r\nx\r\n:7\r\n");
}

TEST_F(Libraries, CmsgpackNestingPastSixteenIsNil) {
  EXPECT_EQ(eval("local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end "
                 "local u = cmsgpack.unpack(cmsgpack.pack(t)) local d = 0 "
                 "while type(u) == 'table' do d = d + 1 u = u[1] end return d"),
            ":16\r\n");
}

TEST_F(Libraries, CmsgpackOffsetsAndErrors) {
  EXPECT_EQ(eval("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2))}"), "*2\r\n:1\r\n:1\r\n");
  EXPECT_EQ(eval("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2), 1)}"), "*2\r\n:-1\r\n:2\r\n");
  EXPECT_EQ(eval("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}"),
            "*3\r\n:2\r\n:1\r\n:2\r\n");
  const auto error_of = [&](const std::string& body) {
    const std::string out = eval(body);
    return out.substr(0, out.find(" script: "));
  };
  EXPECT_EQ(error_of("return cmsgpack.unpack('\\196')"),
            "-ERR user_script:1: Bad data format in input.");
  EXPECT_EQ(error_of("return cmsgpack.unpack('\\205\\1')"),
            "-ERR user_script:1: Missing bytes in input.");
  EXPECT_EQ(error_of("return cmsgpack.unpack_one('\\1', 5)"),
            "-ERR user_script:1: Start offset 5 greater than input length 1.");
  EXPECT_EQ(error_of("return cmsgpack.pack()"),
            "-ERR user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.)");
  EXPECT_EQ(eval("return cmsgpack._VERSION"), "$18\r\nlua-cmsgpack 0.4.0\r\n");
}

TEST_F(Libraries, StructExactBytes) {
  EXPECT_EQ(bulk("return struct.pack('<i2 >I3 b B h H l L', -2, 65536*3+2, -1, 255, -300, 300, "
                 "-5, 5)"),
            std::string("\xfe\xff\x03\x00\x02\xff\xff\xfe\xd4\x01,\xff\xff\xff\xff\xff\xff\xff\xfb"
                        "\x00\x00\x00\x00\x00\x00\x00\x05",
                        27));
  EXPECT_EQ(bulk("return struct.pack('!4 b i4', 1, 2)"), std::string("\x01\0\0\0\x02\0\0\0", 8));
  EXPECT_EQ(bulk("return struct.pack('c3 s', 'abcdef', 'xy')"), std::string("abcxy\0", 6));
  EXPECT_EQ(bulk("return struct.pack('>f d', 1.5, -2.25)"),
            std::string("?\xc0\x00\x00\xc0\x02\x00\x00\x00\x00\x00\x00", 12));
}

TEST_F(Libraries, StructRoundTripsAndSizes) {
  EXPECT_EQ(eval("return {struct.unpack('<i2 >I3 b B', struct.pack('<i2 >I3 b B', -2, 196610, "
                 "-1, 255))}"),
            "*5\r\n:-2\r\n:196610\r\n:-1\r\n:255\r\n:8\r\n");
  EXPECT_EQ(eval("return {struct.unpack('s B c0', struct.pack('s B c0', 'hi', 3, 'abc'))}"),
            "*3\r\n$2\r\nhi\r\n$3\r\nabc\r\n:8\r\n");
  EXPECT_EQ(eval("return {struct.unpack('B c0', struct.pack('B c0', 3, 'abc'))}"),
            "*2\r\n$3\r\nabc\r\n:5\r\n");
  EXPECT_EQ(eval("return {struct.unpack('>d', struct.pack('>d', -2.25))}"),
            "*2\r\n:-2\r\n:9\r\n");  // -2.25 as a reply integer truncates toward 0
  EXPECT_EQ(eval("return {struct.unpack('h', struct.pack('h', 1), 1)}"), "*2\r\n:1\r\n:3\r\n");
  EXPECT_EQ(eval("return struct.size('>!4 b i4 d')"), ":16\r\n");
  EXPECT_EQ(eval("return struct.size('i16 x')"), ":17\r\n");
}

TEST_F(Libraries, StructErrors) {
  const auto error_of = [&](const std::string& body) {
    const std::string out = eval(body);
    return out.substr(0, out.find(" script: "));
  };
  EXPECT_EQ(error_of("return struct.pack('y', 1)"),
            "-ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'y')");
  EXPECT_EQ(error_of("return struct.pack('i33', 1)"),
            "-ERR user_script:1: integral size 33 is larger than limit of 32");
  EXPECT_EQ(error_of("return struct.pack('!3 i', 1)"),
            "-ERR user_script:1: alignment 3 is not a power of 2");
  EXPECT_EQ(error_of("return struct.unpack('i4', 'ab')"),
            "-ERR user_script:1: bad argument #2 to 'unpack' (data string too short)");
  EXPECT_EQ(error_of("return struct.unpack('s', 'ab')"),
            "-ERR user_script:1: unfinished string in data");
  EXPECT_EQ(error_of("return struct.unpack('c0', 'ab')"),
            "-ERR user_script:1: format 'c0' needs a previous size");
  EXPECT_EQ(error_of("return struct.size('s')"),
            "-ERR user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)");
  EXPECT_EQ(error_of("return struct.unpack('b', 'a', 0)"),
            "-ERR user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater)");
}

}  // namespace
}  // namespace listd::script
