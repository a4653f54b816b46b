// The geohash arithmetic (store/geohash.h) against values redis-server 7.0.15 printed for the
// same points: GEOADD scores, GEODIST, GEOHASH, GEOPOS, a non-geo score's clamped decoding, and
// the search boxes' properties.
#include "listd/store/geohash.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "listd/base/number.h"

namespace geo = listd::store::geo;

namespace {

constexpr double kPalermo[2] = {13.361389, 38.115556};
constexpr double kCatania[2] = {15.087269, 37.502669};

TEST(Geohash, ScoresAreRedisFiftyTwoBitHashes) {
  EXPECT_EQ(geo::score_of(kPalermo[0], kPalermo[1]), 3479099956230698.0);
  EXPECT_EQ(geo::score_of(kCatania[0], kCatania[1]), 3479447370796909.0);
}

TEST(Geohash, DecodedCoordinatesPrintAsRedis) {
  std::array<double, 2> xy;
  ASSERT_TRUE(geo::decode_score(3479099956230698.0, xy));
  EXPECT_EQ(listd::base::format_long_double_human(xy[0]), "13.36138933897018433");
  EXPECT_EQ(listd::base::format_long_double_human(xy[1]), "38.11555639549629859");
  // A score that is no geohash decodes as Redis' (uint64_t) cast makes it, clamped.
  ASSERT_TRUE(geo::decode_score(-5, xy));
  EXPECT_EQ(listd::base::format_long_double_human(xy[0]), "180");
  EXPECT_EQ(listd::base::format_long_double_human(xy[1]), "85.0511287799999991");
}

TEST(Geohash, DistancesAndStandardHashesMatchRedis) {
  std::array<double, 2> a, b;
  ASSERT_TRUE(geo::decode_score(3479099956230698.0, a));
  ASSERT_TRUE(geo::decode_score(3479447370796909.0, b));
  EXPECT_EQ(geo::format_distance(geo::distance(a[0], a[1], b[0], b[1])), "166274.1516");
  EXPECT_EQ(geo::format_distance(geo::distance(15, 37, b[0], b[1]) / 1000), "56.4413");
  EXPECT_EQ(geo::standard_geohash(3479099956230698.0), "sqc8b49rny0");
  EXPECT_EQ(geo::standard_geohash(3479447370796909.0), "sqdtr74hyu0");
  EXPECT_EQ(geo::standard_geohash(-5), "bp05b5048p0");
}

TEST(Geohash, DistancesFormatWithFourDecimalsRounded) {
  EXPECT_EQ(geo::format_distance(0), "0.0000");
  EXPECT_EQ(geo::format_distance(0.00004), "0.0000");
  EXPECT_EQ(geo::format_distance(0.77506), "0.7751");
  EXPECT_EQ(geo::format_distance(0.77504), "0.7750");
  EXPECT_EQ(geo::format_distance(12345.5), "12345.5000");
  EXPECT_EQ(geo::format_distance(-1.25), "-1.2500");
}

TEST(Geohash, EncodingRefusesPointsOutsideTheLimits) {
  geo::HashBits h;
  EXPECT_FALSE(geo::encode_wgs84(0, 85.06, geo::kStepMax, h));
  EXPECT_FALSE(geo::encode_wgs84(-180.1, 0, geo::kStepMax, h));
  EXPECT_TRUE(geo::encode_wgs84(180, geo::kLatMax, geo::kStepMax, h));
  // The corner overflows 52 bits, in Redis too (GEOADD edge 180 85.05112878 m).
  EXPECT_EQ(geo::score_of(180, geo::kLatMax), 13510798882111488.0);
}

TEST(Geohash, SearchBoxesCoverThePointsOfTheShape) {
  geo::Shape shape;
  shape.xy = {15, 37};
  shape.radius = 200;
  shape.conversion = 1000;
  const geo::SearchAreas areas = geo::search_areas(shape);
  ASSERT_FALSE(areas.boxes[0].zero());
  const double score = geo::score_of(kCatania[0], kCatania[1]);
  bool covered = false;
  for (const geo::HashBits& box : areas.boxes) {
    if (box.zero()) continue;
    double min = 0, max = 0;
    geo::box_score_range(box, min, max);
    covered = covered || (score >= min && score < max);
  }
  EXPECT_TRUE(covered);
  std::array<double, 2> xy;
  double dist = 0;
  EXPECT_TRUE(geo::within_shape(shape, score, xy, dist));
  EXPECT_EQ(geo::format_distance(dist / 1000), "56.4413");
  shape.type = geo::Shape::Type::kBox;
  shape.width = shape.height = 100;  // km: Catania is 56 km away, 11 km east and 55 km north
  EXPECT_FALSE(geo::within_shape(shape, score, xy, dist));
  shape.height = 120;
  EXPECT_TRUE(geo::within_shape(shape, score, xy, dist));
}

}  // namespace
