// Choosing the I/O backend at start-up (config io-backend): `auto` is io_uring when the kernel
// gives a ring with its buffer ring and falls back to epoll when it does not (ENOSYS on old
// kernels, EPERM under a seccomp profile or kernel.io_uring_disabled); `io_uring` fails start-up
// with the reason instead; `epoll` never tries io_uring.
#pragma once

#include <memory>
#include <string>

#include "listd/config/config.h"
#include "listd/net/io_loop.h"

namespace listd::net {

struct ChosenBackend {
  std::unique_ptr<IoLoop> loop;  // nullptr: start-up fails with `reason`
  std::string reason;            // why this backend (for the start-up log), or why none
};

/// Opens an io_uring backend or explains why not (UringLoop::open).
using UringOpener = std::unique_ptr<IoLoop> (*)(std::string& error);

/// The backend for `wanted`; `open_uring` is the kernel's ring (tests pass one that fails).
ChosenBackend choose_io_backend(config::IoBackend wanted, UringOpener open_uring);

}  // namespace listd::net
