// The queue view's one HTML page (GET / on metrics-port): inline script and styles, no external
// asset. It polls /queues.json every second and draws, per queue, its depth and hand-off rate
// over the last two minutes on a canvas; the latest figures are also written into a table
// (textContent only: key names are data, never markup).
#pragma once

#include <string_view>

namespace listd::net {

std::string_view queue_page_html() noexcept;

}  // namespace listd::net
