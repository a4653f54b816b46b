#include "listd/net/io_backend.h"

#include "listd/net/epoll_loop.h"

namespace listd::net {
namespace {

ChosenBackend open_epoll(std::string reason) {
  auto epoll = std::make_unique<EpollLoop>();
  std::string error;
  if (!epoll->ok(error)) return {nullptr, error};
  return {std::move(epoll), std::move(reason)};
}

}  // namespace

ChosenBackend choose_io_backend(config::IoBackend wanted, UringOpener open_uring) {
  if (wanted == config::IoBackend::kEpoll) return open_epoll("io-backend epoll");
  std::string error;
  if (std::unique_ptr<IoLoop> uring = open_uring(error)) {
    return {std::move(uring),
            wanted == config::IoBackend::kAuto ? "io-backend auto" : "io-backend io_uring"};
  }
  if (wanted == config::IoBackend::kIoUring) return {nullptr, "io-backend io_uring: " + error};
  return open_epoll("io-backend auto, io_uring unavailable: " + error);
}

}  // namespace listd::net
