#include "listd/persistence/rdb.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "listd/persistence/crc64.h"

using namespace listd;
using namespace listd::persistence;

namespace {

std::vector<std::string> list_items(const store::Value& v) {
  std::vector<std::string> out;
  v.as_list().scan_forward([&](std::size_t, std::string_view e) { out.emplace_back(e); });
  return out;
}

store::Keyspace sample() {
  store::Keyspace ks(16);
  store::Database& d0 = ks.db(0);
  d0.add("s", store::Value::make_string("hello"));
  d0.add("n", store::Value::make_string("12345"));
  d0.add("bin", store::Value::make_string(std::string("a\0\r\nb", 5)));
  store::Entry* l = d0.add("jobs", store::Value::make_list());
  for (int i = 0; i < 300; ++i) l->value.as_list().push_back("job-" + std::to_string(i));
  l->value.as_list().push_back(std::string(20000, 'x'));
  store::Entry* ttl = d0.add("ttl", store::Value::make_string("v"));
  d0.set_expire(*ttl, 1'900'000'000'000);
  store::Entry* gone = d0.add("gone", store::Value::make_string("v"));
  d0.set_expire(*gone, 1'000);
  store::Entry* h = ks.db(2).add("h", store::Value::make_hash());
  h->value.as_hash().set("f1", "v1");
  h->value.as_hash().set("f2", "v2");
  store::Entry* s = ks.db(2).add("set", store::Value::make_set());
  s->value.as_set().add("m1");
  s->value.as_set().add("42");
  store::Entry* z = ks.db(15).add("z", store::Value::make_zset());
  z->value.as_zset().insert("a", 1.5);
  z->value.as_zset().insert("b", -2);
  return ks;
}

RdbSaveOptions save_opts() {
  RdbSaveOptions o;
  o.now_ms = 1'700'000'000'000;
  return o;
}

}  // namespace

TEST(Crc64, MatchesRedisCheckValue) {
  EXPECT_EQ(crc64(0, "123456789"), 0xe9c6d914c4b8d9caull);
  // Incremental equals one shot, across the 8-byte fast path.
  const std::string s(1000, 'q');
  EXPECT_EQ(crc64(crc64(0, std::string_view(s).substr(0, 333)), std::string_view(s).substr(333)),
            crc64(0, s));
}

TEST(Rdb, HeaderIsVersion9AndTrailerIsTheCrc) {
  store::Keyspace ks(16);
  const std::string rdb = rdb_to_string(ks, save_opts());
  EXPECT_EQ(rdb.substr(0, 9), "REDIS0009");
  ASSERT_GE(rdb.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(rdb[rdb.size() - 9]), 0xFF);
  std::uint64_t trailer = 0;
  for (int i = 0; i < 8; ++i)
    trailer |= static_cast<std::uint64_t>(static_cast<unsigned char>(rdb[rdb.size() - 8 + i]))
               << (8 * i);
  EXPECT_EQ(trailer, crc64(0, std::string_view(rdb).substr(0, rdb.size() - 8)));
}

TEST(Rdb, ProgressIsReportedAtTheFirstKeyAndEvery1024After) {
  store::Keyspace ks(16);
  for (int i = 0; i < 2000; ++i)
    ks.db(i % 2).add("k" + std::to_string(i), store::Value::make_string("v"));
  EXPECT_EQ(key_count(ks), 2000u);
  RdbSaveOptions o = save_opts();
  std::vector<std::size_t> calls;
  o.progress = [&calls](std::size_t keys) { calls.push_back(keys); };
  rdb_to_string(ks, o);
  EXPECT_EQ(calls, (std::vector<std::size_t>{1, 1025}));  // counted across the databases
}

TEST(Rdb, ListIsThePlainListType) {
  store::Keyspace ks(16);
  store::Entry* l = ks.db(0).add("q", store::Value::make_list());
  l->value.as_list().push_back("a");
  l->value.as_list().push_back("bc");
  const std::string rdb = rdb_to_string(ks, save_opts());
  // SELECTDB 0, RESIZEDB 1 0, type 1, key "q", length 2, "a", "bc", EOF.
  const std::string body(
      "\xFE\x00\xFB\x01\x00\x01\x01q\x02\x01"
      "a\x02"
      "bc\xFF",
      15);
  EXPECT_NE(rdb.find(body), std::string::npos);
}

TEST(Rdb, RoundTripsEveryTypeWithExpiries) {
  store::Keyspace ks = sample();
  const std::string rdb = rdb_to_string(ks, save_opts());
  store::Keyspace back(16);
  RdbLoadOptions lo;
  lo.now_ms = save_opts().now_ms;
  const RdbLoadResult r = load_rdb(rdb, back, lo);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.checksum_checked);
  EXPECT_EQ(r.version, 9);
  EXPECT_EQ(r.consumed, rdb.size());
  EXPECT_EQ(r.keys, 8u);  // "gone" had expired: not written
  EXPECT_EQ(back.db(0).peek("s")->value.as_string().view(), "hello");
  EXPECT_EQ(back.db(0).peek("n")->value.as_string().view(), "12345");
  EXPECT_EQ(back.db(0).peek("bin")->value.as_string().view(), std::string_view("a\0\r\nb", 5));
  EXPECT_EQ(list_items(back.db(0).peek("jobs")->value), list_items(ks.db(0).peek("jobs")->value));
  EXPECT_EQ(back.db(0).peek("ttl")->expire_at_ms, 1'900'000'000'000);
  EXPECT_EQ(back.db(0).expires_count(), 1u);
  EXPECT_EQ(back.db(0).peek("gone"), nullptr);
  EXPECT_EQ(*back.db(2).peek("h")->value.as_hash().get("f2"), "v2");
  EXPECT_TRUE(back.db(2).peek("set")->value.as_set().contains("42"));
  EXPECT_EQ(*back.db(15).peek("z")->value.as_zset().score("b"), -2.0);
}

// Redis rdbSaveRawString under rdbcompression: every string of more than 20 bytes that LZF
// shortens by 4 bytes or more (keys, values, elements, AUX fields, FUNCTION code) is written
// RDB_ENC_LZF; without it every string is raw. Both load back the same data.
TEST(Rdb, CompressionWritesLongStringsLzfAndTheFileLoadsBack) {
  store::Keyspace ks(16);
  const std::string long_key(30, 'k');
  std::string ab;
  for (int i = 0; i < 100; ++i) ab += "ab";
  ks.db(0).add(long_key, store::Value::make_string(ab));
  store::Entry* l = ks.db(3).add("q", store::Value::make_list());
  for (int i = 0; i < 50; ++i) l->value.as_list().push_back("element-" + std::string(40, 'e'));
  l->value.as_list().push_back("short");
  const std::string code = "#!lua name=lib\n-- " + std::string(200, '-');
  std::string files[2];
  for (const bool compress : {true, false}) {
    SCOPED_TRACE(compress);
    RdbSaveOptions o = save_opts();
    o.compress = compress;
    o.functions = {code};
    const std::string rdb = rdb_to_string(ks, o);
    files[compress ? 0 : 1] = rdb;
    EXPECT_EQ(rdb.find(long_key) != std::string::npos, !compress);
    EXPECT_EQ(rdb.find(ab) != std::string::npos, !compress);
    EXPECT_EQ(rdb.find(code) != std::string::npos, !compress);
    EXPECT_EQ(rdb.find(std::string(40, 'e')) != std::string::npos, !compress);
    EXPECT_NE(rdb.find("\x05short"), std::string::npos);  // 20 bytes or less: raw either way
    store::Keyspace back(16);
    RdbLoadOptions lo;
    lo.now_ms = o.now_ms;
    const RdbLoadResult r = load_rdb(rdb, back, lo);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.checksum_checked);
    EXPECT_EQ(back.db(0).peek(long_key)->value.as_string().view(), ab);
    EXPECT_EQ(list_items(back.db(3).peek("q")->value), list_items(l->value));
    EXPECT_EQ(r.functions, std::vector<std::string>{code});
  }
  EXPECT_LT(files[0].size() * 3, files[1].size());
}

// A replica's REPLCONF rdb-filter-only (Redis rdbSaveRio under SLAVE_REQ_RDB_EXCLUDE_*): the
// header and AUX fields stay, keys of every database and/or the FUNCTION records go.
TEST(Rdb, AFilterLeavesOutTheKeysOfEveryDatabaseOrTheFunctions) {
  store::Keyspace ks(16);
  ks.db(0).add("k0", store::Value::make_string("v"));
  ks.db(5).add("k5", store::Value::make_string("v"));
  const std::string code = "#!lua name=lib\nreturn 1";
  RdbSaveOptions o = save_opts();
  o.compress = false;  // the replid is looked for in the bytes
  o.functions = {code};
  o.repl = RdbReplInfo{0, std::string(40, 'a'), 7};
  for (const bool keep_functions : {false, true}) {
    SCOPED_TRACE(keep_functions);
    o.filter = RdbFilter{.exclude_data = true, .exclude_functions = !keep_functions};
    const std::string rdb = rdb_to_string(ks, o);
    store::Keyspace back(16);
    RdbLoadOptions lo;
    lo.now_ms = o.now_ms;
    const RdbLoadResult r = load_rdb(rdb, back, lo);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.keys, 0u);
    EXPECT_EQ(r.repl_stream_db, 0);  // the AUX fields are kept
    EXPECT_NE(rdb.find(std::string(40, 'a')), std::string::npos);
    EXPECT_EQ(r.functions,
              keep_functions ? std::vector<std::string>{code} : std::vector<std::string>{});
  }
  o.filter = RdbFilter{.exclude_data = false, .exclude_functions = true};
  store::Keyspace back(16);
  RdbLoadOptions lo;
  lo.now_ms = o.now_ms;
  const RdbLoadResult r = load_rdb(rdb_to_string(ks, o), back, lo);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.keys, 2u);
  EXPECT_TRUE(r.functions.empty());
}

TEST(Rdb, FunctionPayloadCompressesItsCodeUnderCompression) {
  const std::string code = "#!lua name=lib\n" + std::string(300, ' ') + "return 1";
  for (const bool compress : {true, false}) {
    const std::string payload = encode_function_payload({code}, compress);
    EXPECT_EQ(payload.find(code) == std::string::npos, compress);
    std::vector<std::string> codes;
    EXPECT_EQ(decode_function_payload(payload, codes), "");
    EXPECT_EQ(codes, std::vector<std::string>{code});
  }
}

TEST(Rdb, AFlippedByteIsACrcError) {
  store::Keyspace ks = sample();
  std::string rdb = rdb_to_string(ks, save_opts());
  const std::size_t at = rdb.find("job-17");
  ASSERT_NE(at, std::string::npos);
  rdb[at + 4] = '9';
  store::Keyspace back(16);
  const RdbLoadResult r = load_rdb(rdb, back, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "Wrong RDB checksum. Aborting now.");
}

TEST(Rdb, EveryTruncationIsAnError) {
  store::Keyspace ks(16);
  store::Entry* l = ks.db(1).add("q", store::Value::make_list());
  l->value.as_list().push_back("a");
  ks.db(0).add("s", store::Value::make_string("x"));
  const std::string rdb = rdb_to_string(ks, save_opts());
  for (std::size_t n = 0; n < rdb.size(); ++n) {
    store::Keyspace back(16);
    EXPECT_FALSE(load_rdb(std::string_view(rdb).substr(0, n), back, {}).ok) << n;
  }
}

TEST(Rdb, ChecksumZeroIsNotChecked) {
  store::Keyspace ks = sample();
  std::string rdb = rdb_to_string(ks, save_opts());
  for (std::size_t i = rdb.size() - 8; i < rdb.size(); ++i) rdb[i] = '\0';
  store::Keyspace back(16);
  const RdbLoadResult r = load_rdb(rdb, back, {});
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.checksum_checked);
}

TEST(Rdb, RefusesVersion11AndBadMagic) {
  store::Keyspace back(16);
  EXPECT_EQ(load_rdb("REDIS0011\xFF", back, {}).error, "Can't handle RDB format version 11");
  EXPECT_FALSE(load_rdb("RUDIS0009\xFF", back, {}).ok);
}

TEST(Rdb, ReadsRedisCompactEncodings) {
  // A hand-made Redis 7.0 style file: a quicklist2 list (one packed listpack node holding
  // "a", 5, "hello"), an intset set {1, 300}, an LZF string and an int-encoded string.
  std::string f = "REDIS0010";
  auto lp_entry_str = [](std::string_view s) {
    std::string e;
    e += static_cast<char>(0x80 | s.size());
    e += s;
    e += static_cast<char>(1 + s.size());
    return e;
  };
  std::string lp_body = lp_entry_str("a") + std::string("\x05\x01", 2) + lp_entry_str("hello");
  std::string lp(4, '\0');
  lp += std::string("\x03\x00", 2);
  lp += lp_body;
  lp += '\xFF';
  const std::uint32_t total = static_cast<std::uint32_t>(lp.size());
  for (int i = 0; i < 4; ++i)
    lp[static_cast<std::size_t>(i)] = static_cast<char>((total >> (8 * i)) & 0xff);
  f += std::string("\xFE\x00", 2);
  f += static_cast<char>(18);
  f += "\x01q";
  f += "\x01";  // one node
  f += "\x02";  // packed container
  f += static_cast<char>(lp.size());
  f += lp;
  // intset: encoding 2, length 2, values 1 and 300 (int16 LE)
  f += static_cast<char>(11);
  f += "\x03set";
  std::string is("\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x2c\x01", 12);
  f += static_cast<char>(is.size());
  f += is;
  // int-encoded string 0xC1 = int16 LE 1000
  f += static_cast<char>(0);
  f += "\x01n";
  f += std::string("\xC1\xE8\x03", 3);
  // LZF string: literal run "abc" then a back reference of length 3 at distance 3 ("abcabc")
  f += static_cast<char>(0);
  f += "\x01z";
  f += std::string(
      "\xC3\x06\x06\x02"
      "abc\x20\x02",
      9);
  f += '\xFF';
  f += std::string(8, '\0');
  store::Keyspace ks(16);
  const RdbLoadResult r = load_rdb(f, ks, {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(list_items(ks.db(0).peek("q")->value), (std::vector<std::string>{"a", "5", "hello"}));
  EXPECT_TRUE(ks.db(0).peek("set")->value.as_set().contains("300"));
  EXPECT_TRUE(ks.db(0).peek("set")->value.as_set().contains("1"));
  EXPECT_EQ(ks.db(0).peek("n")->value.as_string().view(), "1000");
  EXPECT_EQ(ks.db(0).peek("z")->value.as_string().view(), "abcabc");
}

TEST(Rdb, DuplicateKeyIsAnError) {
  store::Keyspace ks(16);
  ks.db(0).add("s", store::Value::make_string("x"));
  const std::string rdb = rdb_to_string(ks, save_opts());
  store::Keyspace back(16);
  back.db(0).add("s", store::Value::make_string("y"));
  const RdbLoadResult r = load_rdb(rdb, back, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "RDB has duplicated key 's' in DB 0");
}

// Redis rdbSaveKeyValuePair: IDLE (248, a length) or FREQ (249, one byte) after the expiry and
// before the type byte; the reader hands both to access_word, -1 where a key has none.
TEST(Rdb, AccessRecordsGoBeforeEachKeyAndComeBackToTheLoader) {
  using Record = RdbSaveOptions::AccessRecord;
  for (const Record record : {Record::kIdle, Record::kFreq}) {
    store::Keyspace ks(16);
    store::Entry* e = ks.db(0).add("k", store::Value::make_string("v"));
    e->lru = 300;
    RdbSaveOptions o = save_opts();
    o.access_record = record;
    o.access_value = [](std::uint32_t lru) -> std::uint64_t { return lru / 3; };
    const std::string rdb = rdb_to_string(ks, o);
    const std::string expected_record = record == Record::kIdle
                                            ? std::string("\xf8\x40\x64\x00\x01k", 6)
                                            : std::string("\xf9\x64\x00\x01k", 5);
    EXPECT_NE(rdb.find(expected_record), std::string::npos);
    store::Keyspace back(16);
    RdbLoadOptions lo;
    lo.now_ms = o.now_ms;
    long long seen_idle = -2, seen_freq = -2;
    lo.access_word = [&](long long idle_s, long long freq) {
      seen_idle = idle_s;
      seen_freq = freq;
      return std::uint32_t{42};
    };
    ASSERT_TRUE(load_rdb(rdb, back, lo).ok);
    EXPECT_EQ(seen_idle, record == Record::kIdle ? 100 : -1);
    EXPECT_EQ(seen_freq, record == Record::kFreq ? 100 : -1);
    EXPECT_EQ(back.db(0).peek("k")->lru, 42u);
  }
}

// Redis rdbLoadProgressCallback: a call each time another interval of the input was read.
TEST(Rdb, LoadReportsProgressEveryIntervalAndStopsWhenAsked) {
  store::Keyspace ks(16);
  for (int i = 0; i < 500; ++i)
    ks.db(0).add("key:" + std::to_string(i), store::Value::make_string(std::string(100, 'v')));
  RdbSaveOptions raw = save_opts();
  raw.compress = false;  // 50 KB: a dozen intervals
  const std::string rdb = rdb_to_string(ks, raw);
  std::vector<std::size_t> points;
  std::vector<std::uint64_t> keys;
  RdbLoadOptions o;
  o.progress_interval_bytes = 4096;
  o.progress = [&](std::size_t loaded, const RdbLoadResult& so_far) {
    points.push_back(loaded);
    keys.push_back(so_far.keys);
    return true;
  };
  store::Keyspace back(16);
  const RdbLoadResult r = load_rdb(rdb, back, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(points.size(), rdb.size() / 4096);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_GE(points[i], (i + 1) * 4096);  // between two records: just past each interval
    EXPECT_LT(points[i], (i + 1) * 4096 + 200);
    if (i > 0) EXPECT_GT(keys[i], keys[i - 1]);
  }
  o.progress = [&](std::size_t, const RdbLoadResult&) { return false; };
  store::Keyspace stopped(16);
  const RdbLoadResult s = load_rdb(rdb, stopped, o);
  EXPECT_FALSE(s.ok);
  EXPECT_TRUE(s.interrupted);
  EXPECT_LT(stopped.db(0).size(), 500u);
}

TEST(Rdb, LoadRecordsTheUsedMemAuxField) {
  // REDIS0009, AUX used-mem 123456, EOF, no checksum (zero).
  std::string rdb = "REDIS0009";
  rdb += '\xfa';
  rdb += '\x08';
  rdb += "used-mem";
  rdb += '\x06';
  rdb += "123456";
  rdb += '\xff';
  rdb += std::string(8, '\0');
  store::Keyspace ks(16);
  const RdbLoadResult r = load_rdb(rdb, ks, RdbLoadOptions{});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.rdb_used_mem, 123456u);
}
