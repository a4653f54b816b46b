// Geo commands through the executor: the values redis-server 7.0.15 printed for the same
// commands, the RESP3 shapes (coordinates as doubles, distances as bulks), Redis' error texts
// and check order, and the STORE forms' destination. Random searches byte for byte against
// redis-server are integration.GeoOracle's job.
#include <gtest/gtest.h>

#include <string>

#include "support/resp.h"
#include "support/test_server.h"

using listd::testing::TestServer;
using namespace listd::testing::resp;

namespace {

class GeoCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(t.run(c, {"GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269",
                        "37.502669", "Catania"}),
              integer(2));
  }
  TestServer t;
  listd::server::Client& c = t.client();
};

TEST_F(GeoCommandsTest, ReadsPrintRedisDigits) {
  EXPECT_EQ(t.run(c, {"ZSCORE", "Sicily", "Palermo"}), bulk("3479099956230698"));
  EXPECT_EQ(t.run(c, {"GEODIST", "Sicily", "Palermo", "Catania"}), bulk("166274.1516"));
  EXPECT_EQ(t.run(c, {"GEODIST", "Sicily", "Palermo", "Catania", "km"}), bulk("166.2742"));
  EXPECT_EQ(t.run(c, {"GEODIST", "Sicily", "Palermo", "nope"}), kNullBulk);
  EXPECT_EQ(t.run(c, {"GEOHASH", "Sicily", "Palermo", "nope"}),
            "*2\r\n" + bulk("sqc8b49rny0") + kNullBulk);
  EXPECT_EQ(
      t.run(c, {"GEOPOS", "Sicily", "Palermo", "nope"}),
      "*2\r\n*2\r\n" + bulk("13.36138933897018433") + bulk("38.11555639549629859") + kNullArray);
  EXPECT_EQ(t.run(c, {"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHHASH"}),
            "*2\r\n*3\r\n" + bulk("Palermo") + bulk("190.4424") + integer(3479099956230698) +
                "*3\r\n" + bulk("Catania") + bulk("56.4413") + integer(3479447370796909));
  EXPECT_EQ(t.run(c, {"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYBOX", "400", "400", "km",
                      "DESC", "COUNT", "1"}),
            array({"Catania"}));
}

TEST_F(GeoCommandsTest, Resp3CoordinatesAreDoubles) {
  ASSERT_EQ(t.run(c, {"HELLO", "3"}).substr(0, 1), "%");
  EXPECT_EQ(t.run(c, {"GEOPOS", "Sicily", "Catania", "nope"}),
            "*2\r\n*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n_\r\n");
  EXPECT_EQ(t.run(c, {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "100", "km",
                      "WITHCOORD", "WITHDIST"}),
            "*1\r\n*3\r\n" + bulk("Catania") + bulk("56.4413") +
                "*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n");
}

TEST_F(GeoCommandsTest, GeoaddOptionsAndErrors) {
  EXPECT_EQ(t.run(c, {"GEOADD", "Sicily", "CH", "13.4", "38.1", "Palermo", "1", "1", "x"}),
            integer(2));
  EXPECT_EQ(t.run(c, {"GEOADD", "Sicily", "XX", "2", "2", "y"}), integer(0));
  EXPECT_EQ(t.run(c, {"GEOADD", "Sicily", "NX", "2", "2", "x"}), integer(0));
  EXPECT_EQ(t.run(c, {"GEOADD", "Sicily", "NX", "XX", "2", "2", "x"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"GEOADD", "Sicily", "CH", "2", "2"}), error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"GEOADD", "Sicily", "181", "2", "x"}),
            error("ERR invalid longitude,latitude pair 181.000000,2.000000"));
  EXPECT_EQ(t.run(c, {"GEOADD", "Sicily", "1", "x", "m"}), error("ERR value is not a valid float"));
  ASSERT_EQ(t.run(c, {"SET", "str", "v"}), kOk);
  EXPECT_EQ(t.run(c, {"GEOADD", "str", "1", "181", "m"}),
            error("ERR invalid longitude,latitude pair 1.000000,181.000000"))
      << "the coordinates are checked before the key";
  EXPECT_EQ(t.run(c, {"GEOADD", "str", "1", "1", "m"}).substr(0, 10), "-WRONGTYPE");
}

TEST_F(GeoCommandsTest, SearchErrorsFollowRedisOrder) {
  EXPECT_EQ(t.run(c, {"GEOSEARCH", "Sicily", "BYRADIUS", "1", "km", "ASC", "ASC"}),
            error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH"));
  EXPECT_EQ(t.run(c, {"geosearch", "Sicily", "FROMLONLAT", "1", "1", "ASC", "ASC"}),
            error("ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch"));
  EXPECT_EQ(t.run(c, {"GEOSEARCH", "Sicily", "FROMMEMBER", "nope", "BYRADIUS", "1", "km"}),
            error("ERR could not decode requested zset member"));
  EXPECT_EQ(t.run(c, {"GEOSEARCH", "Sicily", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km", "BYBOX",
                      "1", "1", "km"}),
            error("ERR syntax error"));
  EXPECT_EQ(t.run(c, {"GEOSEARCH", "Sicily", "FROMLONLAT", "1", "1", "BYBOX", "-1", "1", "km"}),
            error("ERR height or width cannot be negative"));
  EXPECT_EQ(t.run(c, {"GEORADIUS", "Sicily", "1", "1", "x", "km"}),
            error("ERR need numeric radius"));
  EXPECT_EQ(t.run(c, {"GEORADIUS", "Sicily", "1", "1", "1", "yd"}),
            error("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(t.run(c, {"GEORADIUS", "Sicily", "1", "1", "1", "km", "COUNT", "0"}),
            error("ERR COUNT must be > 0"));
  EXPECT_EQ(t.run(c, {"GEORADIUS", "Sicily", "1", "1", "1", "km", "ANY"}),
            error("ERR the ANY argument requires COUNT argument"));
  EXPECT_EQ(t.run(c, {"GEORADIUS", "Sicily", "1", "1", "1", "km", "WITHDIST", "STORE", "d"}),
            error("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
                  "WITHCOORD options"));
  EXPECT_EQ(t.run(c, {"GEORADIUS_RO", "Sicily", "1", "1", "1", "km", "STORE", "d"}),
            error("ERR syntax error"));
  // A missing source skips the member's decoding and the radius, not the options' checks.
  EXPECT_EQ(t.run(c, {"GEORADIUSBYMEMBER", "nokey", "m", "x", "km"}), kEmptyArray);
  EXPECT_EQ(t.run(c, {"GEORADIUSBYMEMBER", "nokey", "m", "x", "km", "ANY"}),
            error("ERR the ANY argument requires COUNT argument"));
}

TEST_F(GeoCommandsTest, StoreFormsWriteScoresOrDistances) {
  EXPECT_EQ(t.run(c, {"GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200",
                      "km", "STOREDIST"}),
            integer(2));
  EXPECT_EQ(t.run(c, {"ZRANGE", "d", "0", "-1", "WITHSCORES"}),
            array({"Catania", "56.441257870158204", "Palermo", "190.44242984775784"}));
  EXPECT_EQ(t.run(c, {"GEORADIUS", "Sicily", "15", "37", "100", "km", "STORE", "d"}), integer(1));
  EXPECT_EQ(t.run(c, {"ZRANGE", "d", "0", "-1", "WITHSCORES"}),
            array({"Catania", "3479447370796909"}));
  EXPECT_EQ(t.run(c, {"GEORADIUS", "Sicily", "0", "0", "1", "km", "STORE", "d"}), integer(0));
  EXPECT_EQ(t.run(c, {"EXISTS", "d"}), integer(0));
}

}  // namespace
