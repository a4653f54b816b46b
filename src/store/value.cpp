#include "listd/store/value.h"

namespace listd::store {

std::string_view type_name(ValueType type) noexcept {
  switch (type) {
    case ValueType::kString: return "string";
    case ValueType::kList: return "list";
    case ValueType::kHash: return "hash";
    case ValueType::kSet: return "set";
    case ValueType::kZSet: return "zset";
    case ValueType::kStream: return "stream";
  }
  return "none";
}

Value Value::clone() const {
  switch (type()) {
    case ValueType::kString: return Value(as_string().clone());
    case ValueType::kList: return Value(as_list().clone());
    case ValueType::kHash: return Value(as_hash().clone());
    case ValueType::kSet: return Value(as_set().clone());
    case ValueType::kZSet: return Value(as_zset().clone());
    case ValueType::kStream: return Value(as_stream().clone());
  }
  return Value(CompactString());
}

std::string_view Value::type_name() const noexcept { return store::type_name(type()); }

std::string_view Value::encoding_name() const noexcept {
  switch (type()) {
    case ValueType::kString: return as_string().encoding_name();
    case ValueType::kList: return "quicklist";
    case ValueType::kHash: return as_hash().encoding_name();
    case ValueType::kSet: return as_set().encoding_name();
    case ValueType::kZSet: return as_zset().encoding_name();
    case ValueType::kStream: return "stream";
  }
  return "unknown";
}

std::size_t Value::memory_usage() const noexcept {
  switch (type()) {
    case ValueType::kString: return as_string().memory_usage();
    case ValueType::kList: return as_list().memory_usage();
    case ValueType::kHash: return as_hash().memory_usage();
    case ValueType::kSet: return as_set().memory_usage();
    case ValueType::kZSet: return as_zset().memory_usage();
    case ValueType::kStream: return as_stream().memory_usage();
  }
  return 0;
}

}  // namespace listd::store
