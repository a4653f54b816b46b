#include "listd/store/geohash.h"

#include <cmath>
#include <cstdio>
#include <initializer_list>

namespace listd::store::geo {
namespace {

constexpr double kEarthRadiusMeters = 6372797.560856;  // WGS-84's quadratic mean radius
constexpr double kMercatorMax = 20037726.37;
constexpr double kDegToRad = M_PI / 180.0;

double deg_rad(double ang) noexcept { return ang * kDegToRad; }
double rad_deg(double ang) noexcept { return ang / kDegToRad; }

constexpr Range kWgs84Long{kLongMin, kLongMax};
constexpr Range kWgs84Lat{kLatMin, kLatMax};

bool range_zero(Range r) noexcept { return r.max == 0 && r.min == 0; }

std::uint64_t interleave64(std::uint32_t xlo, std::uint32_t ylo) noexcept {
  static constexpr std::uint64_t B[] = {0x5555555555555555ULL, 0x3333333333333333ULL,
                                        0x0F0F0F0F0F0F0F0FULL, 0x00FF00FF00FF00FFULL,
                                        0x0000FFFF0000FFFFULL};
  static constexpr unsigned S[] = {1, 2, 4, 8, 16};
  std::uint64_t x = xlo, y = ylo;
  for (int i = 4; i >= 0; --i) {
    x = (x | (x << S[i])) & B[i];
    y = (y | (y << S[i])) & B[i];
  }
  return x | (y << 1);
}

std::uint64_t deinterleave64(std::uint64_t interleaved) noexcept {
  static constexpr std::uint64_t B[] = {0x5555555555555555ULL, 0x3333333333333333ULL,
                                        0x0F0F0F0F0F0F0F0FULL, 0x00FF00FF00FF00FFULL,
                                        0x0000FFFF0000FFFFULL, 0x00000000FFFFFFFFULL};
  static constexpr unsigned S[] = {0, 1, 2, 4, 8, 16};
  std::uint64_t x = interleaved, y = interleaved >> 1;
  for (int i = 0; i < 6; ++i) {
    x = (x | (x >> S[i])) & B[i];
    y = (y | (y >> S[i])) & B[i];
  }
  return x | (y << 32);
}

/// C's (uint64_t) conversion of a double as x86-64 performs it, defined for every input: Redis
/// decodes any score this way, a non-geo one included.
std::uint64_t to_u64_as_x86(double d) noexcept {
  constexpr double kTwo63 = 9223372036854775808.0;
  const auto cvtt = [](double v) -> std::uint64_t {  // cvttsd2si: out of range -> 1 << 63
    if (!(v >= -kTwo63 && v < kTwo63)) return 1ULL << 63;
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  };
  if (!(d >= kTwo63)) return cvtt(d);
  return cvtt(d - kTwo63) ^ (1ULL << 63);
}

void move_x(HashBits& hash, int d) noexcept {
  if (d == 0) return;
  std::uint64_t x = hash.bits & 0xaaaaaaaaaaaaaaaaULL;
  const std::uint64_t y = hash.bits & 0x5555555555555555ULL;
  const std::uint64_t zz = 0x5555555555555555ULL >> (64 - hash.step * 2);
  if (d > 0) {
    x = x + (zz + 1);
  } else {
    x = x | zz;
    x = x - (zz + 1);
  }
  x &= (0xaaaaaaaaaaaaaaaaULL >> (64 - hash.step * 2));
  hash.bits = x | y;
}

void move_y(HashBits& hash, int d) noexcept {
  if (d == 0) return;
  const std::uint64_t x = hash.bits & 0xaaaaaaaaaaaaaaaaULL;
  std::uint64_t y = hash.bits & 0x5555555555555555ULL;
  const std::uint64_t zz = 0xaaaaaaaaaaaaaaaaULL >> (64 - hash.step * 2);
  if (d > 0) {
    y = y + (zz + 1);
  } else {
    y = y | zz;
    y = y - (zz + 1);
  }
  y &= (0x5555555555555555ULL >> (64 - hash.step * 2));
  hash.bits = x | y;
}

/// Neighbours in SearchAreas order after the centre: N, S, E, W, NE, NW, SE, SW.
std::array<HashBits, 8> neighbours(HashBits hash) noexcept {
  static constexpr int kMoves[8][2] = {{0, 1}, {0, -1}, {1, 0},  {-1, 0},
                                       {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
  std::array<HashBits, 8> out;
  for (int i = 0; i < 8; ++i) {
    out[i] = hash;
    move_x(out[i], kMoves[i][0]);
    move_y(out[i], kMoves[i][1]);
  }
  return out;
}

std::uint8_t estimate_steps(double range_meters, double lat) noexcept {
  if (range_meters == 0) return 26;
  int step = 1;
  while (range_meters < kMercatorMax) {
    range_meters *= 2;
    step++;
  }
  step -= 2;                    // make sure the range is included in most of the base cases
  if (lat > 66 || lat < -66) {  // wider boxes towards the poles
    step--;
    if (lat > 80 || lat < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > 26) step = 26;
  return static_cast<std::uint8_t>(step);
}

/// Redis geohashBoundingBox: min lon, min lat, max lon, max lat.
std::array<double, 4> bounding_box(const Shape& s) noexcept {
  const double longitude = s.xy[0], latitude = s.xy[1];
  const bool circle = s.type == Shape::Type::kCircle;
  const double height = s.conversion * (circle ? s.radius : s.height / 2);
  const double width = s.conversion * (circle ? s.radius : s.width / 2);
  const double lat_delta = rad_deg(height / kEarthRadiusMeters);
  const double long_delta_top =
      rad_deg(width / kEarthRadiusMeters / std::cos(deg_rad(latitude + lat_delta)));
  const double long_delta_bottom =
      rad_deg(width / kEarthRadiusMeters / std::cos(deg_rad(latitude - lat_delta)));
  // The hemispheres widen in opposite directions.
  const bool southern = latitude < 0;
  return {
      southern ? longitude - long_delta_bottom : longitude - long_delta_top, latitude - lat_delta,
      southern ? longitude + long_delta_bottom : longitude + long_delta_top, latitude + lat_delta};
}

double lat_distance(double lat1d, double lat2d) noexcept {
  return kEarthRadiusMeters * std::fabs(deg_rad(lat2d) - deg_rad(lat1d));
}

}  // namespace

bool encode(Range long_range, Range lat_range, double longitude, double latitude, std::uint8_t step,
            HashBits& out) noexcept {
  if (step > 32 || step == 0 || range_zero(lat_range) || range_zero(long_range)) return false;
  if (longitude > kLongMax || longitude < kLongMin || latitude > kLatMax || latitude < kLatMin)
    return false;
  out.bits = 0;
  out.step = step;
  if (latitude < lat_range.min || latitude > lat_range.max || longitude < long_range.min ||
      longitude > long_range.max)
    return false;
  double lat_offset = (latitude - lat_range.min) / (lat_range.max - lat_range.min);
  double long_offset = (longitude - long_range.min) / (long_range.max - long_range.min);
  lat_offset *= static_cast<double>(1ULL << step);
  long_offset *= static_cast<double>(1ULL << step);
  out.bits =
      interleave64(static_cast<std::uint32_t>(lat_offset), static_cast<std::uint32_t>(long_offset));
  return true;
}

bool encode_wgs84(double longitude, double latitude, std::uint8_t step, HashBits& out) noexcept {
  return encode(kWgs84Long, kWgs84Lat, longitude, latitude, step, out);
}

bool decode(Range long_range, Range lat_range, HashBits hash, Area& out) noexcept {
  if (hash.zero() || range_zero(lat_range) || range_zero(long_range)) return false;
  out.hash = hash;
  const std::uint64_t hash_sep = deinterleave64(hash.bits);  // [LAT][LONG]
  const double lat_scale = lat_range.max - lat_range.min;
  const double long_scale = long_range.max - long_range.min;
  const auto ilato = static_cast<std::uint32_t>(hash_sep);
  const auto ilono = static_cast<std::uint32_t>(hash_sep >> 32);
  const auto cells = static_cast<double>(1ULL << hash.step);
  out.latitude.min = lat_range.min + (ilato * 1.0 / cells) * lat_scale;
  out.latitude.max = lat_range.min + ((ilato + 1) * 1.0 / cells) * lat_scale;
  out.longitude.min = long_range.min + (ilono * 1.0 / cells) * long_scale;
  out.longitude.max = long_range.min + ((ilono + 1) * 1.0 / cells) * long_scale;
  return true;
}

std::uint64_t align_52_bits(HashBits hash) noexcept { return hash.bits << (52 - hash.step * 2); }

double score_of(double longitude, double latitude) noexcept {
  HashBits hash;
  encode_wgs84(longitude, latitude, kStepMax, hash);
  return static_cast<double>(align_52_bits(hash));
}

bool decode_score(double score, std::array<double, 2>& xy) noexcept {
  Area area;
  if (!decode(kWgs84Long, kWgs84Lat, HashBits{to_u64_as_x86(score), kStepMax}, area)) return false;
  xy[0] = (area.longitude.min + area.longitude.max) / 2;
  if (xy[0] > kLongMax) xy[0] = kLongMax;
  if (xy[0] < kLongMin) xy[0] = kLongMin;
  xy[1] = (area.latitude.min + area.latitude.max) / 2;
  if (xy[1] > kLatMax) xy[1] = kLatMax;
  if (xy[1] < kLatMin) xy[1] = kLatMin;
  return true;
}

std::string standard_geohash(double score) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  std::array<double, 2> xy;
  if (!decode_score(score, xy)) return {};
  HashBits hash;
  encode(Range{-180, 180}, Range{-90, 90}, xy[0], xy[1], 26, hash);
  std::string out(11, '0');
  for (int i = 0; i < 10; ++i) out[i] = kAlphabet[(hash.bits >> (52 - ((i + 1) * 5))) & 0x1f];
  return out;  // 52 bits make 10 characters; the 11th is always '0', as Redis prints it
}

double distance(double lon1d, double lat1d, double lon2d, double lat2d) noexcept {
  const double lon1r = deg_rad(lon1d), lon2r = deg_rad(lon2d);
  const double v = std::sin((lon2r - lon1r) / 2);
  // Same longitude: the cheaper latitude distance, as Redis (and with its digits).
  if (v == 0.0) return lat_distance(lat1d, lat2d);
  const double lat1r = deg_rad(lat1d), lat2r = deg_rad(lat2d);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(a));
}

SearchAreas search_areas(const Shape& shape) noexcept {
  const std::array<double, 4> bounds = bounding_box(shape);
  const double min_lon = bounds[0], min_lat = bounds[1], max_lon = bounds[2], max_lat = bounds[3];
  const double longitude = shape.xy[0], latitude = shape.xy[1];
  // A box is searched over the circle through its corners.
  double radius_meters = shape.type == Shape::Type::kCircle
                             ? shape.radius
                             : std::sqrt((shape.width / 2) * (shape.width / 2) +
                                         (shape.height / 2) * (shape.height / 2));
  radius_meters *= shape.conversion;
  std::uint8_t steps = estimate_steps(radius_meters, latitude);
  HashBits hash;
  Area area;
  encode(kWgs84Long, kWgs84Lat, longitude, latitude, steps, hash);
  std::array<HashBits, 8> n = neighbours(hash);
  decode(kWgs84Long, kWgs84Lat, hash, area);
  // Near a box edge the estimated step may leave part of the area uncovered: one step wider.
  Area north, south, east, west;
  decode(kWgs84Long, kWgs84Lat, n[0], north);
  decode(kWgs84Long, kWgs84Lat, n[1], south);
  decode(kWgs84Long, kWgs84Lat, n[2], east);
  decode(kWgs84Long, kWgs84Lat, n[3], west);
  const bool decrease_step = north.latitude.max < max_lat || south.latitude.min > min_lat ||
                             east.longitude.max < max_lon || west.longitude.min > min_lon;
  if (steps > 1 && decrease_step) {
    steps--;
    encode(kWgs84Long, kWgs84Lat, longitude, latitude, steps, hash);
    n = neighbours(hash);
    decode(kWgs84Long, kWgs84Lat, hash, area);
  }
  // Drop the neighbours that cannot hold a result (indices: N0 S1 E2 W3 NE4 NW5 SE6 SW7).
  if (steps >= 2) {
    const auto clear = [&](std::initializer_list<int> which) {
      for (int i : which) n[i] = HashBits{};
    };
    if (area.latitude.min < min_lat) clear({1, 7, 6});
    if (area.latitude.max > max_lat) clear({0, 4, 5});
    if (area.longitude.min < min_lon) clear({3, 7, 5});
    if (area.longitude.max > max_lon) clear({2, 6, 4});
  }
  SearchAreas out;
  out.boxes[0] = hash;
  for (int i = 0; i < 8; ++i) out.boxes[i + 1] = n[i];
  return out;
}

void box_score_range(HashBits box, double& min, double& max) noexcept {
  min = static_cast<double>(align_52_bits(box));
  box.bits++;
  max = static_cast<double>(align_52_bits(box));
}

bool within_shape(const Shape& shape, double score, std::array<double, 2>& xy,
                  double& dist) noexcept {
  if (!decode_score(score, xy)) return false;
  if (shape.type == Shape::Type::kCircle) {
    dist = distance(shape.xy[0], shape.xy[1], xy[0], xy[1]);
    return dist <= shape.radius * shape.conversion;
  }
  // The latitude distance is cheaper: checked first.
  const double width_m = shape.width * shape.conversion;
  const double height_m = shape.height * shape.conversion;
  if (lat_distance(xy[1], shape.xy[1]) > height_m / 2) return false;
  // The longitude distance is measured along the point's own parallel, as Redis does.
  if (distance(xy[0], xy[1], shape.xy[0], xy[1]) > width_m / 2) return false;
  dist = distance(shape.xy[0], shape.xy[1], xy[0], xy[1]);
  return true;
}

std::string format_distance(double d) {
  if (d == 0) return "0.0000";
  const long long scaled = std::llrint(d * 10000.0);
  const bool negative = scaled < 0;
  const unsigned long long v = negative ? 0ULL - static_cast<unsigned long long>(scaled)
                                        : static_cast<unsigned long long>(scaled);
  char buf[48];
  const int n =
      std::snprintf(buf, sizeof buf, "%s%llu.%04llu", negative ? "-" : "", v / 10000, v % 10000);
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace listd::store::geo
