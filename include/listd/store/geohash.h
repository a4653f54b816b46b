// The geo encoding of sorted-set scores, Redis 7.0's geohash.c / geohash_helper.c arithmetic
// step for step, so scores, distances and coordinates come out with Redis' digits.
//
// A point is a 52-bit interleaved geohash (26 steps of longitude and latitude bits, latitude
// limited to +-85.05112878 as EPSG:900913) stored as the member's score. A search covers the
// geohash box of the centre and its eight neighbours at a step chosen from the radius (Redis
// geohashCalculateAreasByShapeWGS84), then filters by the exact haversine distance on a sphere
// of radius 6372797.560856 m, or by the box's half sides. Pure: no server, no allocation.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace listd::store::geo {

inline constexpr double kLongMin = -180;
inline constexpr double kLongMax = 180;
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr std::uint8_t kStepMax = 26;  ///< 26 * 2 = 52 bits

struct HashBits {
  std::uint64_t bits = 0;
  std::uint8_t step = 0;
  bool zero() const noexcept { return bits == 0 && step == 0; }
};

struct Range {
  double min = 0, max = 0;
};

struct Area {
  HashBits hash;
  Range longitude, latitude;
};

/// Redis geohashEncode over the given ranges; false outside them or the WGS84 limits.
bool encode(Range long_range, Range lat_range, double longitude, double latitude, std::uint8_t step,
            HashBits& out) noexcept;
/// Redis geohashEncodeWGS84: the ranges above.
bool encode_wgs84(double longitude, double latitude, std::uint8_t step, HashBits& out) noexcept;
/// Redis geohashDecode; false for a zero hash.
bool decode(Range long_range, Range lat_range, HashBits hash, Area& out) noexcept;
/// Redis geohashAlign52Bits: the hash shifted to 52 bits (the sorted-set score).
std::uint64_t align_52_bits(HashBits hash) noexcept;

/// The score GEOADD stores for a point (validated by the caller).
double score_of(double longitude, double latitude) noexcept;
/// Redis decodeGeohash: a score back to {longitude, latitude} (the centre of its box, clamped).
bool decode_score(double score, std::array<double, 2>& xy) noexcept;
/// GEOHASH's 11-character standard geohash (latitude re-encoded over -90..90) of a score.
std::string standard_geohash(double score);

/// Redis geohashGetDistance: haversine in meters.
double distance(double lon1, double lat1, double lon2, double lat2) noexcept;

/// A search shape (Redis GeoShape): centre, radius or box (in the unit), meters per unit.
struct Shape {
  enum class Type : std::uint8_t { kCircle, kBox };
  Type type = Type::kCircle;
  std::array<double, 2> xy{};  ///< longitude, latitude of the centre
  double conversion = 1;       ///< meters per unit
  double radius = 0;
  double width = 0, height = 0;
};

/// The boxes to scan: the centre's box first, then north, south, east, west, north-east,
/// north-west, south-east, south-west (zero hashes for those that cannot hold a result).
struct SearchAreas {
  std::array<HashBits, 9> boxes{};
};
/// Redis geohashCalculateAreasByShapeWGS84.
SearchAreas search_areas(const Shape& shape) noexcept;

/// Redis scoresOfGeoHashBox: the score range [min, max) of a box.
void box_score_range(HashBits box, double& min, double& max) noexcept;

/// Redis geoWithinShape: decodes `score` into `xy` and tells whether it lies in `shape`, with
/// its distance to the centre in meters.
bool within_shape(const Shape& shape, double score, std::array<double, 2>& xy,
                  double& dist) noexcept;

/// Redis fixedpoint_d2string(d, 4): a distance as GEODIST and WITHDIST print it ("12.3457").
std::string format_distance(double d);

}  // namespace listd::store::geo
