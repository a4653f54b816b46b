// A key in a numbered database: the unit the waiter registry, the WATCH table and the AOF code
// index by. DbKeyView looks one up without building a string (heterogeneous lookup).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace listd::store {

struct DbKey {
  int db = 0;
  std::string key;
  bool operator==(const DbKey&) const = default;
};

struct DbKeyView {
  int db = 0;
  std::string_view key;
};

struct DbKeyHash {
  using is_transparent = void;
  std::size_t operator()(const DbKey& k) const noexcept { return hash(k.db, k.key); }
  std::size_t operator()(const DbKeyView& k) const noexcept { return hash(k.db, k.key); }
  static std::size_t hash(int db, std::string_view key) noexcept {
    return std::hash<std::string_view>{}(key) ^
           (static_cast<std::size_t>(db) * 0x9E3779B97F4A7C15ull);
  }
};

struct DbKeyEqual {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const noexcept {
    return a.db == b.db && std::string_view(a.key) == std::string_view(b.key);
  }
};

}  // namespace listd::store
