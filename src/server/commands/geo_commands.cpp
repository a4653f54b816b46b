// Geo commands on sorted sets: GEOADD, GEODIST, GEOHASH, GEOPOS, GEOSEARCH, GEOSEARCHSTORE and
// the deprecated GEORADIUS, GEORADIUSBYMEMBER and their _RO forms.
//
// As Redis 7.0.15 geo.c: a point is its 52-bit geohash stored as the member's score
// (store/geohash.h does the arithmetic); GEOADD is a ZADD of those scores (logged as that ZADD,
// with its `zadd` event). A search reads the source key first (WRONGTYPE before anything), then
// the centre and the shape, then the options in one pass, then their conflicts; it scans the
// centre's geohash box and its neighbours in Redis' order, so an unsorted reply lists points
// as Redis does. Distances print with 4 decimals (fixedpoint), coordinates as "%.17Lf" trimmed.
#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "listd/base/number.h"
#include "listd/base/redis_text.h"
#include "listd/server/command_context.h"
#include "listd/server/command_table.h"
#include "listd/server/errors.h"
#include "listd/store/encoding_limits.h"
#include "listd/store/geohash.h"

namespace listd::server {
namespace {

namespace geo = store::geo;

// ---- argument helpers (Redis extractLongLatOrReply, extractUnitOrReply, ...) ---------------

/// argv[i], argv[i+1] as longitude, latitude within the geohash limits.
bool parse_lonlat(CommandContext& ctx, std::size_t i, std::array<double, 2>& xy) {
  for (std::size_t k = 0; k < 2; ++k)
    if (!base::parse_double(ctx.arg(i + k), xy[k])) return ctx.reply().error(kNotFloatErr), false;
  if (xy[0] < geo::kLongMin || xy[0] > geo::kLongMax || xy[1] < geo::kLatMin ||
      xy[1] > geo::kLatMax) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "ERR invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
    return ctx.reply().error(buf), false;
  }
  return true;
}

/// A unit's meters, or a negative number after replying the error.
double parse_unit(CommandContext& ctx, std::size_t i) {
  const std::string_view u = ctx.arg(i);
  if (base::iequals(u, "m")) return 1;
  if (base::iequals(u, "km")) return 1000;
  if (base::iequals(u, "ft")) return 0.3048;
  if (base::iequals(u, "mi")) return 1609.34;
  ctx.reply().error("ERR unsupported unit provided. please use M, KM, FT, MI");
  return -1;
}

/// `radius unit` at argv[i].
bool parse_radius(CommandContext& ctx, std::size_t i, geo::Shape& shape) {
  double r = 0;
  if (!base::parse_double(ctx.arg(i), r))
    return ctx.reply().error("ERR need numeric radius"), false;
  if (r < 0) return ctx.reply().error("ERR radius cannot be negative"), false;
  shape.radius = r;
  const double to_meters = parse_unit(ctx, i + 1);
  if (to_meters < 0) return false;
  shape.conversion = to_meters;
  return true;
}

/// `width height unit` at argv[i].
bool parse_box(CommandContext& ctx, std::size_t i, geo::Shape& shape) {
  double w = 0, h = 0;
  if (!base::parse_double(ctx.arg(i), w)) return ctx.reply().error("ERR need numeric width"), false;
  if (!base::parse_double(ctx.arg(i + 1), h))
    return ctx.reply().error("ERR need numeric height"), false;
  if (h < 0 || w < 0) return ctx.reply().error("ERR height or width cannot be negative"), false;
  shape.width = w;
  shape.height = h;
  const double to_meters = parse_unit(ctx, i + 2);
  if (to_meters < 0) return false;
  shape.conversion = to_meters;
  return true;
}

/// Redis addReplyHumanLongDouble: a bulk in RESP2, a RESP3 double with the same text.
void reply_coordinate(protocol::ReplyWriter& r, double v) {
  const std::string text = base::format_long_double_human(v);
  if (!r.resp3()) return r.bulk(text);
  r.raw(",");
  r.raw(text);
  r.raw("\r\n");
}

/// C's (long long) of a score on x86-64 (WITHHASH of a score that is no geohash).
long long score_as_integer(double score) {
  constexpr double kTwo63 = 9223372036854775808.0;
  return score >= -kTwo63 && score < kTwo63 ? static_cast<long long>(score) : LLONG_MIN;
}

// ---- GEOADD, GEODIST, GEOHASH, GEOPOS --------------------------------------------------------

/// GEOADD's ZADD on `z`: returns {added, updated}.
std::pair<long long, long long> add_points(store::ZSetValue& z, CommandContext& ctx,
                                           std::size_t longidx, const std::vector<double>& scores,
                                           bool nx, bool xx) {
  long long added = 0, updated = 0;
  for (std::size_t j = 0; j < scores.size(); ++j) {
    const std::string_view member = ctx.arg(longidx + 3 * j + 2);
    const auto cur = z.score(member);
    if (!cur) {
      if (xx) continue;
      z.insert(member, scores[j]);
      ++added;
    } else if (!nx && *cur != scores[j]) {
      z.update(member, *cur, scores[j]);
      ++updated;
    }
  }
  return {added, updated};
}

/// The effect Redis logs for GEOADD: the ZADD it was rewritten into.
void propagate_geoadd(CommandContext& ctx, std::size_t longidx, const std::vector<double>& scores) {
  std::vector<std::string> words{"zadd"};
  for (std::size_t i = 1; i < longidx; ++i) words.emplace_back(ctx.arg(i));
  for (std::size_t j = 0; j < scores.size(); ++j) {
    words.push_back(std::to_string(static_cast<unsigned long long>(scores[j])));
    words.emplace_back(ctx.arg(longidx + 3 * j + 2));
  }
  std::vector<std::string_view> views(words.begin(), words.end());
  ctx.propagate_as(views);
}

// GEOADD key [NX|XX] [CH] longitude latitude member [longitude latitude member ...]
void cmd_geoadd(CommandContext& ctx) {
  bool nx = false, xx = false, ch = false;
  std::size_t longidx = 2;
  for (; longidx < ctx.argc(); ++longidx) {
    const std::string_view opt = ctx.arg(longidx);
    if (base::iequals(opt, "nx"))
      nx = true;
    else if (base::iequals(opt, "xx"))
      xx = true;
    else if (base::iequals(opt, "ch"))
      ch = true;
    else
      break;
  }
  // Redis' own check, then ZADD's (no element at all).
  if ((ctx.argc() - longidx) % 3 != 0 || (xx && nx) || longidx == ctx.argc())
    return ctx.reply().error(kSyntaxErr);
  std::vector<double> scores((ctx.argc() - longidx) / 3);
  for (std::size_t j = 0; j < scores.size(); ++j) {
    std::array<double, 2> xy;
    if (!parse_lonlat(ctx, longidx + 3 * j, xy)) return;
    scores[j] = geo::score_of(xy[0], xy[1]);
  }
  const std::string_view key = ctx.arg(1);
  auto [e, wrong_type] = ctx.write(key, store::ValueType::kZSet);
  if (wrong_type) return;
  if (!e && !xx)
    e = ctx.add_key(key, store::Value(store::ZSetValue::create(ctx.arg(longidx + 2).size())));
  const auto [added, updated] =
      e ? add_points(e->value.as_zset(), ctx, longidx, scores, nx, xx) : std::pair{0LL, 0LL};
  ctx.mark_dirty(added + updated);
  if (added + updated > 0) propagate_geoadd(ctx, longidx, scores);
  ctx.reply().integer(ch ? added + updated : added);
  if (added + updated > 0) ctx.notify(config::kNotifyZset, "zadd", key);
}

// GEODIST key member1 member2 [M|KM|FT|MI]
void cmd_geodist(CommandContext& ctx) {
  double to_meters = 1;
  if (ctx.argc() == 5) {
    to_meters = parse_unit(ctx, 4);
    if (to_meters < 0) return;
  } else if (ctx.argc() > 5) {
    return ctx.reply().error(kSyntaxErr);
  }
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  if (!e) return ctx.reply().null();
  const store::ZSetValue& z = e->value.as_zset();
  const auto s1 = z.score(ctx.arg(2)), s2 = z.score(ctx.arg(3));
  std::array<double, 2> a, b;
  if (!s1 || !s2 || !geo::decode_score(*s1, a) || !geo::decode_score(*s2, b))
    return ctx.reply().null();
  ctx.reply().bulk(geo::format_distance(geo::distance(a[0], a[1], b[0], b[1]) / to_meters));
}

// GEOHASH key [member ...]
void cmd_geohash(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  auto r = ctx.reply();
  r.array_header(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const auto score = e ? e->value.as_zset().score(ctx.arg(j)) : std::nullopt;
    const std::string hash = score ? geo::standard_geohash(*score) : std::string();
    if (hash.empty())
      r.null();
    else
      r.bulk(hash);
  }
}

// GEOPOS key [member ...]
void cmd_geopos(CommandContext& ctx) {
  auto [e, wrong_type] = ctx.read(ctx.arg(1), store::ValueType::kZSet);
  if (wrong_type) return;
  auto r = ctx.reply();
  r.array_header(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const auto score = e ? e->value.as_zset().score(ctx.arg(j)) : std::nullopt;
    std::array<double, 2> xy;
    if (!score || !geo::decode_score(*score, xy)) {
      r.null_array();
      continue;
    }
    r.array_header(2);
    reply_coordinate(r, xy[0]);
    reply_coordinate(r, xy[1]);
  }
}

// ---- the searches ---------------------------------------------------------------------------

enum SearchFlag : unsigned {
  kByCoords = 1,     ///< GEORADIUS: centre and radius in fixed arguments
  kByMember = 2,     ///< GEORADIUSBYMEMBER
  kNoStore = 4,      ///< the _RO forms: no STORE / STOREDIST
  kSearch = 8,       ///< GEOSEARCH grammar
  kSearchStore = 16  ///< GEOSEARCHSTORE: destination at argv[1], STOREDIST a flag
};

enum class Sort : std::uint8_t { kNone, kAsc, kDesc };

struct SearchRequest {
  unsigned flags = 0;
  geo::Shape shape;
  bool withdist = false, withhash = false, withcoord = false, any = false;
  bool frommember = false, fromloc = false, byradius = false, bybox = false;
  Sort sort = Sort::kNone;
  long long count = 0;  ///< 0 = unlimited
  std::string_view storekey;
  bool store = false, storedist = false;
};

/// A point found; the member views the source set (copied before any store).
struct GeoPoint {
  std::string_view member;
  double score = 0, dist = 0;
  std::array<double, 2> xy{};
};

/// Redis georadiusGeneric's fixed arguments: the centre and radius of GEORADIUS and
/// GEORADIUSBYMEMBER, the destination of GEOSEARCHSTORE. Returns the first option's index, or 0
/// after replying the error.
std::size_t parse_fixed(CommandContext& ctx, const store::ZSetValue* z, SearchRequest& req) {
  if (req.flags & kByCoords) {
    if (!parse_lonlat(ctx, 2, req.shape.xy) || !parse_radius(ctx, 4, req.shape)) return 0;
    return 6;
  }
  if (req.flags & kByMember) {
    if (!z) return 5;  // Redis parses the rest and answers for the missing key then
    const auto score = z->score(ctx.arg(2));
    if (!score || !geo::decode_score(*score, req.shape.xy))
      return ctx.reply().error("ERR could not decode requested zset member"), 0;
    return parse_radius(ctx, 3, req.shape) ? 5 : 0;
  }
  if (req.flags & kSearchStore) {
    req.storekey = ctx.arg(1);
    req.store = true;
    return 3;
  }
  return 2;
}

/// One option word at argv[i] (`left` arguments follow it); returns the next index, or 0
/// after replying the error.
std::size_t parse_option(CommandContext& ctx, const store::ZSetValue* z, std::size_t i,
                         SearchRequest& req) {
  const std::string_view a = ctx.arg(i);
  const std::size_t left = ctx.argc() - i - 1;
  const bool search = req.flags & kSearch;
  const bool store_words = !(req.flags & kNoStore) && !search;
  if (base::iequals(a, "withdist")) {
    req.withdist = true;
  } else if (base::iequals(a, "withhash")) {
    req.withhash = true;
  } else if (base::iequals(a, "withcoord")) {
    req.withcoord = true;
  } else if (base::iequals(a, "any")) {
    req.any = true;
  } else if (base::iequals(a, "asc")) {
    req.sort = Sort::kAsc;
  } else if (base::iequals(a, "desc")) {
    req.sort = Sort::kDesc;
  } else if (base::iequals(a, "count") && left >= 1) {
    if (!ctx.parse_integer(i + 1, req.count)) return 0;
    if (req.count <= 0) return ctx.reply().error("ERR COUNT must be > 0"), 0;
    return i + 2;
  } else if (store_words && left >= 1 &&
             (base::iequals(a, "store") || base::iequals(a, "storedist"))) {
    req.storekey = ctx.arg(i + 1);
    req.store = true;
    req.storedist = base::iequals(a, "storedist");
    return i + 2;
  } else if (base::iequals(a, "storedist") && search && (req.flags & kSearchStore)) {
    req.storedist = true;
  } else if (base::iequals(a, "frommember") && left >= 1 && search && !req.fromloc) {
    req.frommember = true;
    if (!z) return i + 2;  // no source: parsing goes on, the reply comes after it
    const auto score = z->score(ctx.arg(i + 1));
    if (!score || !geo::decode_score(*score, req.shape.xy))
      return ctx.reply().error("ERR could not decode requested zset member"), 0;
    return i + 2;
  } else if (base::iequals(a, "fromlonlat") && left >= 2 && search && !req.frommember) {
    if (!parse_lonlat(ctx, i + 1, req.shape.xy)) return 0;
    req.fromloc = true;
    return i + 3;
  } else if (base::iequals(a, "byradius") && left >= 2 && search && !req.bybox) {
    if (!parse_radius(ctx, i + 1, req.shape)) return 0;
    req.shape.type = geo::Shape::Type::kCircle;
    req.byradius = true;
    return i + 3;
  } else if (base::iequals(a, "bybox") && left >= 3 && search && !req.byradius) {
    if (!parse_box(ctx, i + 1, req.shape)) return 0;
    req.shape.type = geo::Shape::Type::kBox;
    req.bybox = true;
    return i + 4;
  } else {
    return ctx.reply().error(kSyntaxErr), 0;
  }
  return i + 1;
}

/// The conflicts Redis checks once every option is read; false after replying.
bool check_conflicts(CommandContext& ctx, const SearchRequest& req) {
  const bool search = req.flags & kSearch;
  std::string err;
  if (req.store && (req.withdist || req.withhash || req.withcoord))
    err = std::string("ERR ") +
          (req.flags & kSearchStore ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS") +
          " is not compatible with WITHDIST, WITHHASH and WITHCOORD options";
  else if (search && !(req.frommember || req.fromloc))
    err = "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ";
  else if (search && !(req.byradius || req.bybox))
    err = "ERR exactly one of BYRADIUS and BYBOX can be specified for ";
  else if (req.any && !req.count)
    err = "ERR the ANY argument requires COUNT argument";
  if (err.empty()) return true;
  if (err.back() == ' ') err.append(ctx.arg(0));  // the command name as the client typed it
  ctx.reply().error(err);
  return false;
}

/// Redis membersOfAllNeighbors: the points of every box in order, stopping at `limit` (0 =
/// none) found.
std::vector<GeoPoint> find_points(const store::ZSetValue& z, const geo::Shape& shape,
                                  std::size_t limit) {
  std::vector<GeoPoint> found;
  const geo::SearchAreas areas = geo::search_areas(shape);
  int last = -1;
  for (int i = 0; i < static_cast<int>(areas.boxes.size()); ++i) {
    const geo::HashBits box = areas.boxes[i];
    if (box.zero()) continue;
    // A huge radius may make neighbours repeat the box just scanned.
    if (last > 0 && box.bits == areas.boxes[last].bits && box.step == areas.boxes[last].step)
      continue;
    if (limit && found.size() >= limit) break;
    double min = 0, max = 0;
    geo::box_score_range(box, min, max);
    const std::size_t first =
        z.partition_point([&](double s, std::string_view) { return s < min; });
    for (store::ZCursor c = z.at_rank(first); c.valid() && c.score() < max; c.next()) {
      GeoPoint p{c.member(), c.score()};
      if (geo::within_shape(shape, c.score(), p.xy, p.dist)) found.push_back(p);
      if (limit && found.size() >= limit) break;
    }
    last = i;
  }
  return found;
}

void reply_points(CommandContext& ctx, const SearchRequest& req, std::vector<GeoPoint>& points,
                  std::size_t n) {
  auto r = ctx.reply();
  const std::size_t options = req.withdist + req.withcoord + req.withhash;
  r.array_header(n);
  for (std::size_t i = 0; i < n; ++i) {
    const GeoPoint& p = points[i];
    if (options) r.array_header(options + 1);
    r.bulk(p.member);
    if (req.withdist) r.bulk(geo::format_distance(p.dist / req.shape.conversion));
    if (req.withhash) r.integer(score_as_integer(p.score));
    if (req.withcoord) {
      r.array_header(2);
      reply_coordinate(r, p.xy[0]);
      reply_coordinate(r, p.xy[1]);
    }
  }
}

/// The STORE forms: the first `n` points into a new sorted set at the store key (scores or
/// distances), or the key deleted when there are none; the reply comes after the event.
void store_points(CommandContext& ctx, const SearchRequest& req,
                  const std::vector<GeoPoint>& points, std::size_t n) {
  ctx.changed_key(req.storekey);
  if (n == 0) {
    if (ctx.delete_key(req.storekey)) {
      ctx.notify(config::kNotifyGeneric, "del", req.storekey);
      ctx.mark_dirty();
    }
    return ctx.reply().integer(0);
  }
  std::vector<std::pair<std::string, double>> items;
  std::size_t max_len = 0, total_len = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const GeoPoint& p = points[i];
    items.emplace_back(p.member, req.storedist ? p.dist / req.shape.conversion : p.score);
    max_len = std::max(max_len, p.member.size());
    total_len += p.member.size();
  }
  // Redis builds a skip list and makes it a listpack only if it fits one
  // (zsetConvertToListpackIfNeeded): one that fits is built as a listpack directly.
  const bool fits = store::encoding_limits().zset_fits_listpack(n, max_len, total_len);
  store::ZSetValue z = fits ? store::ZSetValue() : store::ZSetValue::create_skiplist();
  for (const auto& [member, score] : items)
    if (!z.score(member)) z.insert(member, score);
  ctx.set_key(req.storekey, store::Value(std::move(z)));
  ctx.notify(config::kNotifyZset, req.flags & kSearch ? "geosearchstore" : "georadiusstore",
             req.storekey);
  ctx.mark_dirty(static_cast<long long>(n));
  ctx.reply().integer(static_cast<long long>(n));
}

/// Redis georadiusGeneric: every search command, `src_at` the source key's index.
void search_generic(CommandContext& ctx, std::size_t src_at, unsigned flags) {
  auto [e, wrong_type] = ctx.read(ctx.arg(src_at), store::ValueType::kZSet);
  if (wrong_type) return;
  const store::ZSetValue* z = e ? &e->value.as_zset() : nullptr;
  SearchRequest req;
  req.flags = flags;
  std::size_t i = parse_fixed(ctx, z, req);
  if (i == 0) return;
  while (i < ctx.argc())
    if ((i = parse_option(ctx, z, i, req)) == 0) return;
  if (!check_conflicts(ctx, req)) return;
  if (!z) {
    if (req.store) return store_points(ctx, req, {}, 0);
    return ctx.reply().array_header(0);
  }
  // COUNT sorts by distance unless ANY asked for the first ones found.
  if (req.count != 0 && req.sort == Sort::kNone && !req.any) req.sort = Sort::kAsc;
  std::vector<GeoPoint> points =
      find_points(*z, req.shape, req.any ? static_cast<std::size_t>(req.count) : 0);
  if (points.empty() && !req.store) return ctx.reply().array_header(0);
  const std::size_t n =
      req.count == 0 ? points.size() : std::min(points.size(), static_cast<std::size_t>(req.count));
  // Redis' qsort keeps equal distances in the order found (glibc's is a merge sort here).
  if (req.sort == Sort::kAsc)
    std::stable_sort(points.begin(), points.end(),
                     [](const GeoPoint& a, const GeoPoint& b) { return a.dist < b.dist; });
  else if (req.sort == Sort::kDesc)
    std::stable_sort(points.begin(), points.end(),
                     [](const GeoPoint& a, const GeoPoint& b) { return a.dist > b.dist; });
  if (req.store) return store_points(ctx, req, points, n);
  reply_points(ctx, req, points, n);
}

// GEORADIUS key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH]
//   [COUNT count [ANY]] [ASC|DESC] [STORE key] [STOREDIST key]
void cmd_georadius(CommandContext& ctx) { search_generic(ctx, 1, kByCoords); }
// GEORADIUS_RO key longitude latitude radius M|KM|FT|MI [options]
void cmd_georadius_ro(CommandContext& ctx) { search_generic(ctx, 1, kByCoords | kNoStore); }
// GEORADIUSBYMEMBER key member radius M|KM|FT|MI [options] [STORE key] [STOREDIST key]
void cmd_georadiusbymember(CommandContext& ctx) { search_generic(ctx, 1, kByMember); }
// GEORADIUSBYMEMBER_RO key member radius M|KM|FT|MI [options]
void cmd_georadiusbymember_ro(CommandContext& ctx) { search_generic(ctx, 1, kByMember | kNoStore); }
// GEOSEARCH key FROMMEMBER member|FROMLONLAT lon lat BYRADIUS r unit|BYBOX w h unit [ASC|DESC]
//   [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
void cmd_geosearch(CommandContext& ctx) { search_generic(ctx, 1, kSearch); }
// GEOSEARCHSTORE destination source FROMMEMBER ...|FROMLONLAT ... BYRADIUS ...|BYBOX ...
//   [ASC|DESC] [COUNT count [ANY]] [STOREDIST]
void cmd_geosearchstore(CommandContext& ctx) { search_generic(ctx, 2, kSearch | kSearchStore); }

}  // namespace

void register_geo_commands(CommandTable& table) {
  CommandFamily t = table.family("geo");
  t.add("geoadd", -5, kWrite | kDenyOom | kOwnEffect, kFirstKey, &cmd_geoadd, "3.2.0",
        "Add one or more geospatial items in the geospatial index represented using a sorted set");
  t.add("geodist", -4, kReadonly, kFirstKey, &cmd_geodist, "3.2.0",
        "Returns the distance between two members of a geospatial index");
  t.add("geohash", -2, kReadonly, kFirstKey, &cmd_geohash, "3.2.0",
        "Returns members of a geospatial index as standard geohash strings");
  t.add("geopos", -2, kReadonly, kFirstKey, &cmd_geopos, "3.2.0",
        "Returns longitude and latitude of members of a geospatial index");
  t.add("geosearch", -7, kReadonly, kFirstKey, &cmd_geosearch, "6.2.0",
        "Query a sorted set representing a geospatial index to fetch members inside an area of a "
        "box or a circle.");
  t.add("geosearchstore", -8, kWrite | kDenyOom, kFirstTwoKeys, &cmd_geosearchstore, "6.2.0",
        "Query a sorted set representing a geospatial index to fetch members inside an area of a "
        "box or a circle, and store the result in another key.");
  t.add("georadius", -6, kWrite | kDenyOom, KeySpec::georadius_keys(), &cmd_georadius, "3.2.0",
        "Query a sorted set representing a geospatial index to fetch members matching a given "
        "maximum distance from a point");
  t.add("georadius_ro", -6, kReadonly, kFirstKey, &cmd_georadius_ro, "3.2.10",
        "A read-only variant for GEORADIUS");
  t.add("georadiusbymember", -5, kWrite | kDenyOom, KeySpec::georadius_keys(),
        &cmd_georadiusbymember, "3.2.0",
        "Query a sorted set representing a geospatial index to fetch members matching a given "
        "maximum distance from a member");
  t.add("georadiusbymember_ro", -5, kReadonly, kFirstKey, &cmd_georadiusbymember_ro, "3.2.10",
        "A read-only variant for GEORADIUSBYMEMBER");
}

}  // namespace listd::server
