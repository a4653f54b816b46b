// What an operation did, for its caller to act on: success, or the error's text. For a command
// the text is the whole error reply as Redis words it ("ERR ..."), and the handler builds the
// reply from it; nothing below the handlers returns RESP bytes. (std::expected is C++23; this
// tree builds as C++20 with GCC 12.)
#pragma once

#include <string>
#include <utility>

namespace listd::server {

class [[nodiscard]] Status {
 public:
  /// Success.
  Status() = default;
  static Status error(std::string text) { return Status(std::move(text)); }

  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  /// The error's text; empty on success.
  const std::string& error() const noexcept { return error_; }

 private:
  explicit Status(std::string text) : error_(std::move(text)), failed_(true) {}

  std::string error_;
  bool failed_ = false;
};

/// A value on success, else the failed Status.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as std::expected
  /// `failed` must not be ok().
  Result(Status failed) : status_(std::move(failed)) {}  // NOLINT

  bool ok() const noexcept { return status_.ok(); }
  explicit operator bool() const noexcept { return ok(); }
  const std::string& error() const noexcept { return status_.error(); }
  const Status& status() const noexcept { return status_; }
  /// The value; only when ok().
  T& operator*() noexcept { return value_; }
  const T& operator*() const noexcept { return value_; }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }

 private:
  T value_{};
  Status status_;
};

}  // namespace listd::server
