// The value codec behind DUMP / RESTORE (persistence/value_codec.h): payloads that
// redis-server 7.0.15 produced (compact encodings, LZF strings, a stream with a group and a
// PEL) decode to the values Redis had, listd's payloads decode back to the same values, the
// footer checks give Redis' two errors, and thousands of mutated payloads never crash (run
// under ASan in the sanitizer build).
#include "listd/persistence/value_codec.h"

#include <gtest/gtest.h>

#include "listd/persistence/crc64.h"
#include "listd/store/encoding_limits.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace listd;
using namespace listd::persistence;

namespace {

std::string unhex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

// DUMP replies of redis-server 7.0.15 (OBJECT ENCODING in the comment).
struct RedisPayload {
  const char* name;
  const char* hex;
};
const RedisPayload kRedisPayloads[] = {
    {"embstr hello", "000568656c6c6f0a006372df766534200a"},
    {"int 12345", "00c139300a009d94ea2793fc08b9"},
    {"raw LZF 'ab' x 200", "00c30d419002616261e0ff01e07a010161620a003f03619433dd8d9a"},
    {"quicklist",
     "120102c31c405c145c0000000500816102826262030c01dff902e04678e03c000148ff0a004d664c"
     "b5be32fc2c"},
    {"listpack hash",
     "10c321390b39000000060082663103827620030a6632031601826633039e78e01400011fff0a"
     "00965f68b6180638b2"},
    {"intset",
     "0bc31d28040800000004200302d4feff60000001200b4000017011c0092000200a0a00f9717dc3822"
     "a9bdc"},
    {"hashtable set", "0202016201610a0075d99d835ef85f65"},
    {"listpack zset",
     "111d1d0000000600826d3203dffe02826d310383312e3504826d33030301ff0a00b40d8ecb"
     "3e643fe5"},
    {"stream",
     "1301100000000000000001000000000000000140404000000019000201010102018166028167020"
     "001020100010001817602010105010201010100018177020201050101010201dfff020101816802"
     "8178020601ff0203000101030003010367727002010201000000000000000200000000000000018a"
     "e4a234a2010000010105616c6963658ae4a234a201000001000000000000000200000000000000010"
     "a0008bd231a5bf0b43a"},
};

std::string payload(std::size_t i) { return unhex(kRedisPayloads[i].hex); }

store::Value decode_ok(const std::string& p) {
  DecodedDump d = decode_dump_payload(p);
  EXPECT_EQ(d.error, DumpPayloadError::kNone);
  return d.value ? std::move(*d.value) : store::Value::make_string("<failed>");
}

std::vector<std::string> list_items(const store::Value& v) {
  std::vector<std::string> out;
  v.as_list().scan_forward([&](std::size_t, std::string_view e) { out.emplace_back(e); });
  return out;
}

}  // namespace

TEST(ValueCodec, DecodesRedisStringsIntegersAndLzf) {
  EXPECT_EQ(decode_ok(payload(0)).as_string().view(), "hello");
  EXPECT_EQ(decode_ok(payload(1)).as_string().view(), "12345");
  std::string ab;
  for (int i = 0; i < 200; ++i) ab += "ab";
  EXPECT_EQ(decode_ok(payload(2)).as_string().view(), ab);
}

TEST(ValueCodec, DecodesRedisCompactEncodings) {
  const store::Value list = decode_ok(payload(3));
  EXPECT_EQ(list_items(list),
            (std::vector<std::string>{"a", "bb", "12", "-7", std::string(70, 'x')}));
  const store::Value hash = decode_ok(payload(4));
  EXPECT_EQ(hash.as_hash().size(), 3u);
  EXPECT_EQ(hash.as_hash().get("f2"), "22");
  EXPECT_EQ(hash.as_hash().get("f3"), std::string(30, 'x'));
  const store::Value intset = decode_ok(payload(5));
  EXPECT_EQ(intset.as_set().encoding_name(), "intset");
  for (const char* m : {"1", "-300", "70000", "1099511627776"})
    EXPECT_TRUE(intset.as_set().contains(m)) << m;
  EXPECT_TRUE(decode_ok(payload(6)).as_set().contains("b"));
  const store::Value zset = decode_ok(payload(7));
  EXPECT_EQ(zset.as_zset().score("m1"), 1.5);
  EXPECT_EQ(zset.as_zset().score("m2"), -2.0);
}

TEST(ValueCodec, DecodesARedisStreamWithItsGroupAndPel) {
  const store::Value v = decode_ok(payload(8));
  const store::StreamValue& s = v.as_stream();
  EXPECT_EQ(s.length(), 2u);
  EXPECT_EQ(s.last_id().ms, 3u);
  EXPECT_EQ(s.max_deleted_id().ms, 3u);
  ASSERT_EQ(s.groups().size(), 1u);
  const store::StreamGroup& g = s.groups().begin()->second;
  EXPECT_EQ(g.pel.size(), 1u);  // 2-1 delivered to alice, 1-1 acknowledged
  EXPECT_EQ(g.consumers.size(), 1u);
}

// What a value holds, independent of the order a hashtable happens to visit it in: slot order
// follows the process's random hash seed and the insertion history, so two equal hashtable sets
// can serialize their members in different orders. Other values: their uncompressed payload
// (listd's LZF bytes, like liblzf's, depend on the encoder; the content does not).
std::string contents_of(const store::Value& v) {
  std::vector<std::string> items;
  if (v.type() == store::ValueType::kSet) {
    v.as_set().for_each([&](std::string_view m) { items.emplace_back(m); });
  } else if (v.type() == store::ValueType::kHash) {
    v.as_hash().for_each([&](std::string_view f, std::string_view val) {
      items.push_back(std::string(f) + '\0' + std::string(val));
    });
  } else {
    return encode_dump_payload(v, false);  // lists, sorted sets, strings, streams: one order
  }
  std::sort(items.begin(), items.end());
  std::string out;
  for (const std::string& item : items) out += item + '\n';
  return out;
}

TEST(ValueCodec, StringAndStreamPayloadsAreRedisOwnBytes) {
  // Plain strings and streams have one RDB form. Redis left these two raw (too short, or its
  // LZF saved less than 4 bytes), so listd's DUMP without compression is byte for byte Redis';
  // with it (listd's LZF may find what liblzf did not) it holds the same value.
  EXPECT_EQ(encode_dump_payload(store::Value::make_string("hello")), payload(0));
  const store::Value stream = decode_ok(payload(8));
  EXPECT_EQ(encode_dump_payload(stream, false), payload(8));
  EXPECT_EQ(contents_of(decode_ok(encode_dump_payload(stream, true))), contents_of(stream));
}

TEST(ValueCodec, ListdPayloadsDecodeToTheSameValues) {
  for (std::size_t i = 0; i < std::size(kRedisPayloads); ++i) {
    SCOPED_TRACE(kRedisPayloads[i].name);
    const store::Value v = decode_ok(payload(i));
    const std::string mine = encode_dump_payload(v);
    const store::Value back = decode_ok(mine);
    EXPECT_EQ(back.type(), v.type());
    EXPECT_EQ(back.encoding_name(), v.encoding_name());
    EXPECT_EQ(contents_of(back), contents_of(v));
  }
}

TEST(ValueCodec, FooterChecksAreRedisVerifyDumpPayload) {
  const std::string p = payload(0);
  std::string body = p.substr(0, p.size() - 10);
  append_dump_footer(body);
  EXPECT_EQ(body, p);  // version 10 little-endian, then the CRC-64 of all before it
  EXPECT_TRUE(verify_dump_payload(p));
  EXPECT_EQ(decode_dump_payload(p.substr(0, 9)).error, DumpPayloadError::kVersionOrChecksum);
  std::string flipped = p;
  flipped[3] ^= 1;
  EXPECT_EQ(decode_dump_payload(flipped).error, DumpPayloadError::kVersionOrChecksum);
  // An older RDB version is accepted, a newer one is not (the CRC covers the version).
  for (const auto& [version, ok] : {std::pair{9, true}, std::pair{11, false}}) {
    std::string v = p.substr(0, p.size() - 10);
    v.push_back(static_cast<char>(version));
    v.push_back('\0');
    const std::uint64_t crc = listd::persistence::crc64(0, v);
    for (int i = 0; i < 8; ++i) v.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
    EXPECT_EQ(decode_dump_payload(v).error,
              ok ? DumpPayloadError::kNone : DumpPayloadError::kVersionOrChecksum)
        << version;
  }
}

TEST(ValueCodec, BadObjectsAreBadFormat) {
  auto with_footer = [](std::string body) {
    append_dump_footer(body);
    return body;
  };
  EXPECT_EQ(decode_dump_payload(with_footer("")).error, DumpPayloadError::kBadFormat);
  EXPECT_EQ(decode_dump_payload(with_footer(std::string("\x01\x00", 2))).error,
            DumpPayloadError::kBadFormat);  // an empty list: Redis' emptykey
  EXPECT_EQ(decode_dump_payload(with_footer("\xf5\x01x")).error,
            DumpPayloadError::kBadFormat);  // a FUNCTION record is not an object
  EXPECT_EQ(decode_dump_payload(with_footer("\x07")).error,
            DumpPayloadError::kBadFormat);  // a module type listd cannot hold
  EXPECT_EQ(decode_dump_payload(with_footer(std::string("\x02\x02\x01"
                                                        "a\x01"
                                                        "a",
                                                        7)))
                .error,
            DumpPayloadError::kBadFormat);  // a set with a duplicate member
}

// Random edits of every Redis payload, each given a valid footer so it reaches the decoder:
// flipped bytes, inserted and removed bytes, truncations. A decoded value must encode again.
TEST(ValueCodec, MutatedPayloadsNeverCrash) {
  std::mt19937 rng(20);
  int decoded = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::string p = payload(static_cast<std::size_t>(round) % std::size(kRedisPayloads));
    std::string body = p.substr(0, p.size() - 10);
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !body.empty(); ++e) {
      const std::size_t at = rng() % body.size();
      switch (rng() % 4) {
        case 0: body[at] = static_cast<char>(body[at] ^ (1 << (rng() % 8))); break;
        case 1: body[at] = static_cast<char>(rng()); break;
        case 2: body.insert(at, 1, static_cast<char>(rng())); break;
        default: body.resize(at); break;
      }
    }
    append_dump_footer(body);
    DecodedDump d = decode_dump_payload(body);
    if (d.error != DumpPayloadError::kNone) continue;
    ++decoded;
    EXPECT_EQ(decode_dump_payload(encode_dump_payload(*d.value)).error, DumpPayloadError::kNone);
  }
  EXPECT_GT(decoded, 0);  // some edits (a string's bytes) leave a valid object
}

TEST(ValueCodec, ListpackZsetPayloadIsRedisOwnBytes) {
  // Redis left this 29-byte listpack raw (its LZF saved less than 4 bytes): without compression
  // listd's bytes are Redis' (members, integer scores as listpack integers, the others in
  // d2string's text); with it, the same sorted set.
  const store::Value z = decode_ok(payload(7));
  EXPECT_EQ(encode_dump_payload(z, false), payload(7));
  EXPECT_EQ(contents_of(decode_ok(encode_dump_payload(z, true))), contents_of(z));
}

namespace {

// Limits for one test; Redis' defaults again afterwards.
class LoadLimits {
 public:
  LoadLimits(std::size_t entries, std::size_t value, std::size_t intset) {
    store::EncodingLimits l;
    l.hash_max_listpack_entries = l.zset_max_listpack_entries = entries;
    l.hash_max_listpack_value = l.zset_max_listpack_value = value;
    l.set_max_intset_entries = intset;
    store::set_encoding_limits(l);
  }
  ~LoadLimits() { store::set_encoding_limits(store::EncodingLimits{}); }
};

std::string encoding_after_restore(const store::Value& v, std::size_t entries, std::size_t value,
                                   std::size_t intset) {
  const std::string p = encode_dump_payload(v);
  LoadLimits limits(entries, value, intset);
  return std::string(decode_ok(p).encoding_name());
}

}  // namespace

TEST(ValueCodec, LoadFollowsRdbLoadObjectUnderTheLimits) {
  store::Value h = store::Value::make_hash();
  h.as_hash().set("a", std::string(20, 'x'));
  h.as_hash().set("b", "y");
  store::Value z = store::Value::make_zset();
  z.as_zset().insert(std::string(20, 'm'), 1.5);
  z.as_zset().insert("n", 2);
  store::Value s = store::Value::make_set();
  for (const char* m : {"1", "2", "3"}) s.as_set().add(m);
  ASSERT_EQ(h.encoding_name(), "listpack");
  ASSERT_EQ(z.encoding_name(), "listpack");
  // A listpack blob: only the count decides, however long the values.
  EXPECT_EQ(encoding_after_restore(h, 2, 5, 512), "listpack");
  EXPECT_EQ(encoding_after_restore(z, 2, 5, 512), "listpack");
  EXPECT_EQ(encoding_after_restore(h, 1, 64, 512), "hashtable");
  EXPECT_EQ(encoding_after_restore(z, 1, 64, 512), "skiplist");
  // The set is written plain: over the intset count it is a hash table.
  EXPECT_EQ(encoding_after_restore(s, 128, 64, 3), "intset");
  EXPECT_EQ(encoding_after_restore(s, 128, 64, 2), "hashtable");
  // Plain types (a hashtable, a skip list) come back as listpacks when they fit, every length
  // checked.
  h.as_hash().convert_to_table();
  store::Value skip(store::ZSetValue::create_skiplist());
  skip.as_zset().insert("a", 1);
  skip.as_zset().insert(std::string(20, 'b'), -0.5);
  EXPECT_EQ(encoding_after_restore(h, 512, 64, 512), "listpack");
  EXPECT_EQ(encoding_after_restore(skip, 128, 64, 512), "listpack");
  EXPECT_EQ(encoding_after_restore(h, 512, 19, 512), "hashtable");
  EXPECT_EQ(encoding_after_restore(skip, 128, 19, 512), "skiplist");
  const store::Value back = decode_ok(encode_dump_payload(skip));
  EXPECT_EQ(back.as_zset().score(std::string(20, 'b')), -0.5);
}

namespace {

// The object of a string's DUMP payload: the type byte and the footer taken off.
std::string string_object(const std::string& s, bool compress) {
  const std::string p = encode_dump_payload(store::Value::make_string(s), compress);
  EXPECT_EQ(p[0], '\0');
  return p.substr(1, p.size() - 11);
}

// RDB_ENC_LZF (0xC3), then the compressed and the original length.
bool is_lzf(const std::string& object) {
  return !object.empty() && static_cast<unsigned char>(object[0]) == 0xC3;
}

std::string raw_object(const std::string& s) {
  std::string out;
  if (s.size() < 64) {
    out.push_back(static_cast<char>(s.size()));
  } else {
    out.push_back(static_cast<char>(0x40 | (s.size() >> 8)));
    out.push_back(static_cast<char>(s.size() & 0xff));
  }
  return out + s;
}

std::string ab_times(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "ab";
  return s;
}

}  // namespace

TEST(ValueCodec, ALongCompressibleStringIsWrittenLzfAndRoundTrips) {
  const std::string ab = ab_times(200);
  const std::string object = string_object(ab, true);
  ASSERT_TRUE(is_lzf(object));
  // The compressed length (one byte), then the original one (400: 14-bit) and the LZF bytes;
  // Redis' own object is 17 bytes (payload 2, "raw LZF").
  EXPECT_LT(object.size(), 40u);
  EXPECT_EQ(object.substr(2, 2), "\x41\x90");
  EXPECT_EQ(object.size(), 4 + static_cast<std::size_t>(object[1]));
  const std::string p = encode_dump_payload(store::Value::make_string(ab), true);
  EXPECT_EQ(decode_ok(p).as_string().view(), ab);
  // Past the encoder's kept scratch (64 KB), and a short one after it.
  std::string big;
  for (int i = 0; big.size() < 300000; ++i) big += "line " + std::to_string(i % 1000) + "\n";
  for (const std::string& s : {big, ab}) {
    const std::string object = string_object(s, true);
    EXPECT_TRUE(is_lzf(object));
    EXPECT_LT(object.size(), s.size() / 2);
    EXPECT_EQ(decode_ok(encode_dump_payload(store::Value::make_string(s), true)).as_string().view(),
              s);
  }
  // Inside collections too: list elements, hash fields and values, a listpack hash's blob.
  store::Value list = store::Value::make_list();
  list.as_list().push_back(ab);
  list.as_list().push_back("short");
  store::Value hash = store::Value::make_hash();
  hash.as_hash().set(std::string(30, 'f'), std::string(40, 'v'));
  for (const store::Value* v : {&list, &hash}) {
    const std::string compressed = encode_dump_payload(*v, true);
    EXPECT_LT(compressed.size(), encode_dump_payload(*v, false).size());
    EXPECT_EQ(contents_of(decode_ok(compressed)), contents_of(*v));
  }
}

TEST(ValueCodec, ShortAndIncompressibleStringsStayRaw) {
  // 20 bytes or less: never compressed, however repetitive (Redis' len > 20 rule).
  EXPECT_EQ(string_object(std::string(20, 'a'), true), raw_object(std::string(20, 'a')));
  EXPECT_TRUE(is_lzf(string_object(std::string(21, 'a'), true)));
  // Random bytes: LZF cannot save 4 bytes.
  std::mt19937 rng(7);
  std::string noise(300, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  EXPECT_EQ(string_object(noise, true), raw_object(noise));
  // The saving must be 4 bytes at least: twenty distinct letters (a 21-byte literal run) then a
  // run of the last one (a 2-byte back reference) compress 26 bytes to 23 (kept raw) and 27 to
  // 23 (compressed).
  const std::string letters = "ABCDEFGHIJKLMNOPQRST";
  EXPECT_EQ(string_object(letters + "TTTTTT", true), raw_object(letters + "TTTTTT"));
  const std::string saves_four = string_object(letters + "TTTTTTT", true);
  ASSERT_TRUE(is_lzf(saves_four));
  EXPECT_EQ(saves_four.substr(0, 3), "\xC3\x17\x1B");  // 23 bytes of LZF for 27
  EXPECT_EQ(decode_ok(encode_dump_payload(store::Value::make_string(letters + "TTTTTTT"), true))
                .as_string()
                .view(),
            letters + "TTTTTTT");
}

TEST(ValueCodec, WithoutCompressionEveryStringIsRaw) {
  const std::string ab = ab_times(200);
  EXPECT_EQ(string_object(ab, false), raw_object(ab));
  EXPECT_EQ(decode_ok(encode_dump_payload(store::Value::make_string(ab), false)).as_string().view(),
            ab);
}
