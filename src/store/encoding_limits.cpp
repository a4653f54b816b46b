#include "listd/store/encoding_limits.h"

namespace listd::store {
namespace {

EncodingLimits g_limits;

}  // namespace

const EncodingLimits& encoding_limits() noexcept { return g_limits; }

void set_encoding_limits(const EncodingLimits& limits) noexcept { g_limits = limits; }

}  // namespace listd::store
