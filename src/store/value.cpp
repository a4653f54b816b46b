#include "listd/store/value.h"

#include "listd/store/number.h"

namespace listd::store {

std::string_view type_name(ValueType type) noexcept {
  switch (type) {
    case ValueType::kString: return "string";
    case ValueType::kList: return "list";
    case ValueType::kHash: return "hash";
    case ValueType::kSet: return "set";
    case ValueType::kZSet: return "zset";
  }
  return "none";
}

Value Value::clone() const {
  switch (type()) {
    case ValueType::kString: return Value(as_string().clone());
    case ValueType::kList: return Value(as_list().clone());
    default: break;
  }
  return Value(CompactString());
}

std::string_view Value::type_name() const noexcept { return store::type_name(type()); }

std::string_view Value::encoding_name() const noexcept {
  switch (type()) {
    case ValueType::kString: {
      const std::string_view s = as_string().view();
      long long ignored;
      // Redis 7.0: integers that round-trip are "int", short strings "embstr", others "raw".
      if (s.size() <= 20 && parse_strict_integer(s, ignored)) return "int";
      return s.size() <= 44 ? "embstr" : "raw";
    }
    case ValueType::kList: return "quicklist";
    default: break;
  }
  return "unknown";
}

std::size_t Value::memory_usage() const noexcept {
  switch (type()) {
    case ValueType::kString: return as_string().memory_usage();
    case ValueType::kList: return as_list().memory_usage();
    default: break;
  }
  return 0;
}

}  // namespace listd::store
