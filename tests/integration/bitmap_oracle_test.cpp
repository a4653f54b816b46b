// The bitmap oracle: random SETBIT / GETBIT / BITCOUNT / BITPOS / BITOP / BITFIELD /
// BITFIELD_RO (valid and invalid arguments, BIT and BYTE ranges, every overflow mode, '#'
// offsets, signed and unsigned widths, a list key for WRONGTYPE) from fixed seeds, sent to listd
// and redis-server 7.0; every reply must match byte for byte (support/family_oracle.h), and the
// strings they leave are read back with GET/STRLEN along the way.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/family_oracle.h"

namespace listd::testing {
namespace {

class BitmapGenerator {
 public:
  OracleArgs operator()(std::mt19937_64& r) {
    switch (pick(r, 12)) {
      case 0:
      case 1: return {"SETBIT", key(r), bit_offset(r), pick(r, 12) == 0 ? "2" : digit(r, 2)};
      case 2: return {"GETBIT", key(r), bit_offset(r)};
      case 3: return bitcount(r);
      case 4: return bitpos(r);
      case 5: return bitop(r);
      case 6:
      case 7: return bitfield(r, "BITFIELD");
      case 8: return bitfield(r, "BITFIELD_RO");
      case 9: return {"SET", key(r), value(r)};
      case 10: return {"GET", key(r)};
      default: return {pick(r, 3) ? "STRLEN" : "RPUSH", pick(r, 3) ? key(r) : "list", "x"};
    }
  }

 private:
  static int pick(std::mt19937_64& r, int n) { return static_cast<int>(r() % n); }
  static std::string digit(std::mt19937_64& r, int n) { return std::to_string(pick(r, n)); }
  static std::string key(std::mt19937_64& r) {
    static const std::vector<std::string> kKeys = {"a", "b", "c", "d", "list", "none"};
    return kKeys[pick(r, static_cast<int>(kKeys.size()))];
  }
  static std::string value(std::mt19937_64& r) {
    std::string v;
    const int n = pick(r, 5) == 0 ? 40 + pick(r, 60) : pick(r, 6);
    for (int i = 0; i < n; ++i) v += static_cast<char>(pick(r, 4) == 0 ? 0xff : pick(r, 256));
    return v;
  }
  static std::string bit_offset(std::mt19937_64& r) {
    switch (pick(r, 20)) {
      case 0: return "-1";
      case 1: return "4294967296";  // 512 MB: out of range
      case 2: return "x";
      case 3: return std::to_string(8 * 1024 + pick(r, 64));
      default: return std::to_string(pick(r, 400));
    }
  }
  static std::string index(std::mt19937_64& r) {
    if (pick(r, 25) == 0) return "z";
    return std::to_string(pick(r, 2) ? pick(r, 60) - 20 : pick(r, 800) - 400);
  }
  static std::string unit(std::mt19937_64& r) {
    static const std::vector<std::string> kUnits = {"BIT", "byte", "Bit", "BYTE", "bits"};
    return kUnits[pick(r, static_cast<int>(kUnits.size()))];
  }
  static OracleArgs bitcount(std::mt19937_64& r) {
    OracleArgs a{"BITCOUNT", key(r)};
    const int n = pick(r, 5);
    if (n >= 1) a.push_back(index(r));
    if (n >= 2) a.push_back(index(r));
    if (n >= 3) a.push_back(unit(r));
    if (n == 4) a.push_back("BIT");
    return a;
  }
  static OracleArgs bitpos(std::mt19937_64& r) {
    OracleArgs a{"BITPOS", key(r), pick(r, 15) == 0 ? "3" : digit(r, 2)};
    const int n = pick(r, 5);
    if (n >= 1) a.push_back(index(r));
    if (n >= 2) a.push_back(index(r));
    if (n >= 3) a.push_back(unit(r));
    if (n == 4) a.push_back("BYTE");
    return a;
  }
  static OracleArgs bitop(std::mt19937_64& r) {
    static const std::vector<std::string> kOps = {"AND", "or", "Xor", "NOT", "NOT", "nand"};
    OracleArgs a{"BITOP", kOps[pick(r, static_cast<int>(kOps.size()))], key(r)};
    const int n = a[1] == "NOT" && pick(r, 4) ? 1 : 1 + pick(r, 3);
    for (int i = 0; i < n; ++i) a.push_back(key(r));
    return a;
  }
  static std::string type(std::mt19937_64& r) {
    if (pick(r, 30) == 0) return pick(r, 2) ? "u64" : "x8";
    return (pick(r, 2) ? "i" : "u") + std::to_string(1 + pick(r, 63));
  }
  static std::string field_offset(std::mt19937_64& r) {
    if (pick(r, 4) == 0) return "#" + std::to_string(pick(r, 20) - (pick(r, 20) == 0));
    return bit_offset(r);
  }
  static std::string number(std::mt19937_64& r) {
    switch (pick(r, 8)) {
      case 0: return "9223372036854775807";
      case 1: return "-9223372036854775808";
      case 2: return std::to_string(static_cast<long long>(r()));
      case 3: return "1.5";
      default: return std::to_string(pick(r, 600) - 300);
    }
  }
  static OracleArgs bitfield(std::mt19937_64& r, const std::string& name) {
    static const std::vector<std::string> kModes = {"WRAP", "sat", "FAIL", "fail", "none"};
    OracleArgs a{name, key(r)};
    const int ops = pick(r, 5);
    for (int i = 0; i < ops; ++i) {
      switch (pick(r, name == "BITFIELD" ? 5 : 2)) {
        case 0: a.insert(a.end(), {"GET", type(r), field_offset(r)}); break;
        case 1:
          if (pick(r, 6) == 0)
            a.insert(a.end(), {"OVERFLOW", kModes[pick(r, 5)]});
          else
            a.insert(a.end(), {"get", type(r), field_offset(r)});
          break;
        case 2: a.insert(a.end(), {"SET", type(r), field_offset(r), number(r)}); break;
        case 3: a.insert(a.end(), {"INCRBY", type(r), field_offset(r), number(r)}); break;
        default: a.insert(a.end(), {"OVERFLOW", kModes[pick(r, 5)]}); break;
      }
    }
    if (pick(r, 30) == 0) a.push_back("GET");  // a truncated operation
    return a;
  }
};

TEST(BitmapOracle, RepliesMatchRedisByteForByte) {
  run_family_oracle({1, 2, 3}, 1500, [] { return OracleGenerator(BitmapGenerator()); });
}

}  // namespace
}  // namespace listd::testing
