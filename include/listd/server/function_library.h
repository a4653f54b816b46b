// The FUNCTION libraries (Redis functions.c): each library is its code (shebang included, as
// FUNCTION LIST WITHCODE, DUMP and the RDB give it back) and the functions its load
// registered; function names are global and matched without case, library names with case.
// The libraries run in their own Lua engine (not EVAL's: SCRIPT FLUSH leaves them, and FUNCTION
// FLUSH keeps the Lua state). Owned by Scripting (Scripting::functions()).
//
// Invariants: a failed LOAD or RESTORE changes nothing; every registered callback is released
// in the engine when its library goes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "listd/script/engine.h"

namespace listd::server {

struct FunctionInfo {
  std::string name;
  std::optional<std::string> description;
  unsigned flags = 0;  ///< script::ScriptFlags from register_function's flags
  int ref = 0;         ///< the callback in the functions engine
};

struct Library {
  std::string name;
  std::string code;                     ///< the whole FUNCTION LOAD argument
  std::vector<FunctionInfo> functions;  ///< in registration order
};

/// FUNCTION RESTORE's policies (Redis restorePolicy).
enum class RestorePolicy { kAppend, kReplace, kFlush };

class FunctionLibraries {
 public:
  /// Redis LOAD_TIMEOUT_MS: FUNCTION LOAD from a client; loads from AOF, RDB or RESTORE use 0.
  static constexpr std::uint64_t kLoadTimeoutMs = 500;

  explicit FunctionLibraries(std::size_t heap_limit);
  ~FunctionLibraries();
  FunctionLibraries(const FunctionLibraries&) = delete;
  FunctionLibraries& operator=(const FunctionLibraries&) = delete;

  /// FUNCTION LOAD [REPLACE]: the library's name, or "" with the error reply text in `error`,
  /// checked in Redis functionsCreateWithLibraryCtx's order.
  std::string load(std::string_view code, bool replace, std::uint64_t timeout_ms,
                   std::string& error);
  /// FUNCTION DELETE: false if there is no such library.
  bool remove(std::string_view library);
  /// FUNCTION FLUSH.
  void flush();
  /// FUNCTION RESTORE of these library codes: "" or the error reply text.
  std::string restore(std::span<const std::string> codes, RestorePolicy policy);

  /// The function of `name` (any case), or null; `library` names its library if not null.
  const FunctionInfo* find(std::string_view name, const Library** library = nullptr) const;
  /// By name, in name order.
  const std::map<std::string, Library>& libraries() const noexcept { return set_.libraries; }
  std::size_t function_count() const noexcept { return set_.functions.size(); }
  /// Each library's code, in name order (FUNCTION DUMP, the RDB, an AOF rewrite).
  std::vector<std::string> codes() const;

  script::LuaEngine& engine() noexcept { return *engine_; }
  /// The functions engine's Lua heap (INFO used_memory_vm_functions).
  std::size_t lua_memory() const noexcept { return engine_->used_memory(); }
  /// The libraries' own bytes: codes and names (INFO used_memory_functions).
  std::size_t overhead() const noexcept;

 private:
  /// A set of libraries with its global function index (Redis functionsLibCtx).
  struct Set {
    std::map<std::string, Library> libraries;
    /// lower-case function name -> its library's name
    std::unordered_map<std::string, std::string> functions;
  };

  std::string create(Set& set, std::string_view code, bool replace, std::uint64_t timeout_ms,
                     std::string& error);
  std::string join(Set& from, bool replace);
  void release(const Library& library);
  void release(Set& set);
  static void index(Set& set, const Library& library);
  static void unindex(Set& set, const Library& library);

  std::unique_ptr<script::LuaEngine> engine_;
  Set set_;
};

}  // namespace listd::server
