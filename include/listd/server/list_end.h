// Which end of a list a command works on. Its own header because both the list operations
// (list_ops.h) and a blocked client's BlockSpec (client.h) name it.
#pragma once

#include <cstdint>

namespace listd::server {

/// Which end of a list: LEFT/head or RIGHT/tail. (ZMPOP's MIN/MAX map onto it too: a sorted
/// set's head is its lowest score.)
enum class End : std::uint8_t { kHead, kTail };

}  // namespace listd::server
