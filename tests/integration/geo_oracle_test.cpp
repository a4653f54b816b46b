// The geo oracle: random GEOADD (NX|XX|CH, invalid coordinates) of points spread over the globe
// and clustered around two centres, then GEODIST in every unit, GEOHASH, GEOPOS, GEOSEARCH and
// GEOSEARCHSTORE (FROMMEMBER|FROMLONLAT, BYRADIUS|BYBOX, ASC|DESC, COUNT [ANY], WITHCOORD,
// WITHDIST, WITHHASH, STOREDIST), GEORADIUS / GEORADIUSBYMEMBER and their _RO forms, from fixed
// seeds, against redis-server 7.0 byte for byte (support/family_oracle.h): the scores GEOADD
// stores, the distances and coordinates as Redis prints them, the order of unsorted replies.
// The stored results are read back with ZRANGE WITHSCORES.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "support/family_oracle.h"

namespace listd::testing {
namespace {

class GeoGenerator {
 public:
  OracleArgs operator()(std::mt19937_64& r) {
    switch (pick(r, 16)) {
      case 0:
      case 1:
      case 2: return geoadd(r);
      case 3: return {"GEODIST", key(r), member(r), member(r), unit(r)};
      case 4: return {"GEOHASH", key(r), member(r), member(r)};
      case 5: return {"GEOPOS", key(r), member(r), member(r)};
      case 6:
      case 7: return geosearch(r, false);
      case 8: return geosearch(r, true);
      case 9:
      case 10: return georadius(r, pick(r, 2) ? "GEORADIUS" : "GEORADIUS_RO", true);
      case 11:
        return georadius(r, pick(r, 2) ? "GEORADIUSBYMEMBER" : "GEORADIUSBYMEMBER_RO", false);
      case 12: return {"ZRANGE", pick(r, 2) ? "dst" : key(r), "0", "-1", "WITHSCORES"};
      case 13:
        return pick(r, 4) ? OracleArgs{"GEOPOS", key(r), member(r)}
                          : OracleArgs{"ZREM", key(r), member(r)};
      case 14: return {"GEODIST", key(r), member(r), member(r)};
      default: return pick(r, 3) ? OracleArgs{"ZCARD", key(r)} : OracleArgs{"SET", "str", "v"};
    }
  }

 private:
  static int pick(std::mt19937_64& r, int n) { return static_cast<int>(r() % n); }
  static double uniform(std::mt19937_64& r, double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(r() >> 11) / 9007199254740992.0;
  }
  static std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
  }
  static std::string key(std::mt19937_64& r) {
    static const std::vector<std::string> kKeys = {"g", "g", "g", "g", "h", "str", "none"};
    return kKeys[pick(r, static_cast<int>(kKeys.size()))];
  }
  /// A small pool that searches find often, and a large one that makes sets of a few hundred
  /// points (skip lists, many points per geohash box).
  static std::string member(std::mt19937_64& r) { return "p" + std::to_string(pick(r, 25)); }
  static std::string any_member(std::mt19937_64& r) {
    return pick(r, 4) ? member(r) : "q" + std::to_string(pick(r, 400));
  }
  static std::string unit(std::mt19937_64& r) {
    static const std::vector<std::string> kUnits = {"m", "km", "KM", "mi", "ft", "yd"};
    return kUnits[pick(r, pick(r, 15) == 0 ? 6 : 5)];
  }
  /// Longitude and latitude: mostly near one of two centres, sometimes anywhere or invalid.
  static std::vector<std::string> lonlat(std::mt19937_64& r) {
    switch (pick(r, 12)) {
      case 0: return {fixed(uniform(r, -180, 180), 6), fixed(uniform(r, -85.05, 85.05), 6)};
      case 1: return {pick(r, 2) ? "181" : "x", "10"};
      case 2: return {"10", pick(r, 2) ? "85.06" : "-90"};
      case 3: return {fixed(uniform(r, -179.9, -179.0), 6), fixed(uniform(r, -1, 1), 6)};
      default: break;
    }
    const bool north = pick(r, 2);
    const double lon = north ? 13.36 : -58.38, lat = north ? 38.11 : -34.6;
    return {fixed(uniform(r, lon - 2, lon + 2), 1 + pick(r, 7)),
            fixed(uniform(r, lat - 2, lat + 2), 1 + pick(r, 7))};
  }
  static std::vector<std::string> centre_lonlat(std::mt19937_64& r) {
    if (pick(r, 6) == 0) return lonlat(r);
    return pick(r, 2) ? std::vector<std::string>{"13.5", "38"}
                      : std::vector<std::string>{"-58.5", "-34.5"};
  }
  static std::string radius(std::mt19937_64& r) {
    static const std::vector<std::string> kRadii = {"50", "100", "200", "350",  "1",
                                                    "0",  "-1",  "x",   "5000", "20000"};
    return kRadii[pick(r, pick(r, 10) == 0 ? 10 : 6)];
  }
  static OracleArgs geoadd(std::mt19937_64& r) {
    OracleArgs a{"GEOADD", key(r)};
    static const std::vector<std::string> kOpts = {"NX", "XX", "CH", "ch"};
    for (int n = pick(r, 6) == 0 ? 1 + pick(r, 2) : 0; n > 0; --n) a.push_back(kOpts[pick(r, 4)]);
    if (pick(r, 2)) a.push_back("CH");  // updates count: moved points show in the reply
    const int points = 1 + pick(r, pick(r, 4) ? 6 : 40);
    for (int i = 0; i < points; ++i) {
      for (const std::string& c : lonlat(r)) a.push_back(c);
      a.push_back(any_member(r));
    }
    if (pick(r, 40) == 0) a.pop_back();  // a truncated triple
    return a;
  }
  static void options(std::mt19937_64& r, OracleArgs& a, bool store) {
    if (!store || pick(r, 15) == 0) {
      if (pick(r, 2)) a.push_back("WITHDIST");
      if (pick(r, 3) == 0) a.push_back("WITHCOORD");
      if (pick(r, 4) == 0) a.push_back("WITHHASH");
    }
    if (pick(r, 2)) a.push_back(pick(r, 2) ? "ASC" : "DESC");
    if (pick(r, 3) == 0) {
      a.push_back("COUNT");
      a.push_back(pick(r, 15) == 0 ? "0" : std::to_string(1 + pick(r, 6)));
      if (pick(r, 3) == 0) a.push_back("ANY");
    } else if (pick(r, 20) == 0) {
      a.push_back("ANY");
    }
  }
  static OracleArgs geosearch(std::mt19937_64& r, bool store) {
    OracleArgs a{store ? "GEOSEARCHSTORE" : "GEOSEARCH"};
    if (store) a.push_back(pick(r, 4) ? "dst" : key(r));
    a.push_back(key(r));
    const int from = pick(r, 12);
    if (from < 6) {
      a.insert(a.end(), {"FROMMEMBER", member(r)});
    } else if (from < 11) {
      a.push_back("FROMLONLAT");
      for (const std::string& c : centre_lonlat(r)) a.push_back(c);
    }
    const int by = pick(r, 12);
    if (by < 6) {
      a.insert(a.end(), {"BYRADIUS", radius(r), unit(r)});
    } else if (by < 11) {
      a.insert(a.end(), {"BYBOX", radius(r), radius(r), unit(r)});
    }
    options(r, a, store);
    if (store && pick(r, 2)) a.push_back("STOREDIST");
    return a;
  }
  static OracleArgs georadius(std::mt19937_64& r, const std::string& name, bool coords) {
    OracleArgs a{name, key(r)};
    if (coords) {
      for (const std::string& c : centre_lonlat(r)) a.push_back(c);
    } else {
      a.push_back(member(r));
    }
    a.push_back(radius(r));
    a.push_back(unit(r));
    const bool store = name.find("_RO") == std::string::npos && pick(r, 3) == 0;
    options(r, a, store);
    if (store || pick(r, 20) == 0) a.insert(a.end(), {pick(r, 2) ? "STORE" : "STOREDIST", "dst"});
    return a;
  }
};

TEST(GeoOracle, RepliesMatchRedisByteForByte) {
  run_family_oracle({1, 2, 3}, 1500, [] { return OracleGenerator(GeoGenerator()); });
}

}  // namespace
}  // namespace listd::testing
