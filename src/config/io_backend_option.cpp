// io-backend (listd's own, immutable): the client sockets' I/O backend, chosen once at start-up
// by net (net/io_backend.h). A file of its own: option_table.cpp is at its size limit.
#include "option_table.h"

namespace listd::config::detail {
namespace {

constexpr EnumValue kIoBackends[] = {
    {"auto", static_cast<int>(IoBackend::kAuto)},
    {"io_uring", static_cast<int>(IoBackend::kIoUring)},
    {"epoll", static_cast<int>(IoBackend::kEpoll)},
};

int load_io_backend(const ServerSettings& s) { return static_cast<int>(s.io_backend); }
void store_io_backend(ServerSettings& s, int v) { s.io_backend = static_cast<IoBackend>(v); }

}  // namespace

OptionSpec io_backend_option() {
  return {{"io-backend", {}, OptionType::kEnum, kOptionImmutable},
          EnumSpec{&load_io_backend, &store_io_backend, kIoBackends,
                   static_cast<int>(IoBackend::kAuto)}};
}

}  // namespace listd::config::detail
