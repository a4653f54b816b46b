// The FUNCTION libraries (function_library.h), in Redis functions.c's order of checks.
#include "listd/server/function_library.h"

#include <utility>

#include "listd/base/redis_text.h"

namespace listd::server {
namespace {

constexpr std::string_view kBadNameErr =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least "
    "one character long";

// functionsVerifyName: letters, digits and '_', at least one.
bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

struct Metadata {
  std::string engine;
  std::string name;
  std::size_t shebang_len = 0;  ///< the code after it (from its newline) is what Lua compiles
};

// functionExtractLibMetaData: "#!<engine> name=<lib>" on the first line. "" or the error text.
std::string parse_metadata(std::string_view code, Metadata& md) {
  if (code.substr(0, 2) != "#!") return "ERR Missing library metadata";
  const std::size_t newline = code.find('\n');
  if (newline == std::string_view::npos) return "ERR Invalid library metadata";
  const auto parts = base::split_args(code.substr(0, newline));
  if (!parts || parts->empty()) return "ERR Invalid library metadata";
  md.engine = (*parts)[0].substr(2);
  bool has_name = false;
  for (std::size_t i = 1; i < parts->size(); ++i) {
    const std::string& part = (*parts)[i];
    if (part.size() >= 5 && base::iequals(std::string_view(part).substr(0, 5), "name=")) {
      if (has_name) return "ERR Invalid metadata value, name argument was given multiple times";
      md.name = part.substr(5);
      has_name = true;
      continue;
    }
    return "ERR Invalid metadata value given: " + part;
  }
  if (!has_name) return "ERR Library name was not given";
  md.shebang_len = newline;
  return {};
}

// register_function's server side for one library being built (functionLibCreateFunction).
class Registrar final : public script::FunctionRegistrar {
 public:
  explicit Registrar(Library& library) : library_(library) {}
  std::string add(script::RegisteredFunction f) override {
    if (!valid_name(f.name)) return std::string(kBadNameErr);
    for (const FunctionInfo& existing : library_.functions)
      if (existing.name == f.name) return "Function already exists in the library";
    library_.functions.push_back(
        FunctionInfo{std::move(f.name), std::move(f.description), f.flags, f.ref});
    return {};
  }

 private:
  Library& library_;
};

}  // namespace

FunctionLibraries::FunctionLibraries(std::size_t heap_limit)
    : engine_(std::make_unique<script::LuaEngine>(heap_limit)) {}

FunctionLibraries::~FunctionLibraries() = default;

void FunctionLibraries::index(Set& set, const Library& library) {
  for (const FunctionInfo& f : library.functions)
    set.functions.emplace(base::to_lower(f.name), library.name);
}

void FunctionLibraries::unindex(Set& set, const Library& library) {
  for (const FunctionInfo& f : library.functions) set.functions.erase(base::to_lower(f.name));
}

void FunctionLibraries::release(const Library& library) {
  for (const FunctionInfo& f : library.functions) engine_->release_function(f.ref);
}

void FunctionLibraries::release(Set& set) {
  for (const auto& [name, library] : set.libraries) release(library);
  set.libraries.clear();
  set.functions.clear();
}

std::string FunctionLibraries::create(Set& set, std::string_view code, bool replace,
                                      std::uint64_t timeout_ms, std::string& error) {
  Metadata md;
  error = parse_metadata(code, md);
  if (!error.empty()) return {};
  if (!valid_name(md.name)) {
    error = "ERR " + std::string(kBadNameErr);
    return {};
  }
  if (!base::iequals(md.engine, "lua")) {
    error = "ERR Engine '" + md.engine + "' not found";
    return {};
  }
  const auto old = set.libraries.find(md.name);
  if (old != set.libraries.end() && !replace) {
    error = "ERR Library '" + md.name + "' already exists";
    return {};
  }
  Library library{md.name, std::string(code), {}};
  Registrar registrar(library);
  error = engine_->load_library(code.substr(md.shebang_len), registrar, timeout_ms);
  if (error.empty() && library.functions.empty()) error = "ERR No functions registered";
  // Another library's function of the same name (any case); the replaced library's do not count.
  for (std::size_t i = 0; error.empty() && i < library.functions.size(); ++i) {
    const auto taken = set.functions.find(base::to_lower(library.functions[i].name));
    if (taken != set.functions.end() && taken->second != md.name)
      error = "ERR Function " + library.functions[i].name + " already exists";
  }
  if (!error.empty()) {
    release(library);
    return {};
  }
  if (old != set.libraries.end()) {
    unindex(set, old->second);
    release(old->second);
    set.libraries.erase(old);
  }
  index(set, library);
  set.libraries.emplace(md.name, std::move(library));
  return md.name;
}

std::string FunctionLibraries::load(std::string_view code, bool replace, std::uint64_t timeout_ms,
                                    std::string& error) {
  return create(set_, code, replace, timeout_ms, error);
}

bool FunctionLibraries::remove(std::string_view name) {
  const auto it = set_.libraries.find(std::string(name));
  if (it == set_.libraries.end()) return false;
  unindex(set_, it->second);
  release(it->second);
  set_.libraries.erase(it);
  return true;
}

void FunctionLibraries::flush() { release(set_); }

// libraryJoin: the collisions first (libraries unless replacing, then functions), so a failure
// leaves the current set as it was; then the move.
std::string FunctionLibraries::join(Set& from, bool replace) {
  for (const auto& [name, library] : from.libraries)
    if (set_.libraries.count(name) && !replace) return "ERR Library " + name + " already exists";
  for (const auto& [name, library] : from.libraries)
    for (const FunctionInfo& f : library.functions) {
      const auto taken = set_.functions.find(base::to_lower(f.name));
      if (taken != set_.functions.end() && !(replace && from.libraries.count(taken->second)))
        return "ERR Function " + f.name + " already exists";
    }
  for (auto& [name, library] : from.libraries) {
    if (const auto old = set_.libraries.find(name); old != set_.libraries.end()) {
      unindex(set_, old->second);
      release(old->second);
      set_.libraries.erase(old);
    }
    index(set_, library);
    set_.libraries.emplace(name, std::move(library));
  }
  from.libraries.clear();
  from.functions.clear();
  return {};
}

std::string FunctionLibraries::restore(std::span<const std::string> codes, RestorePolicy policy) {
  Set loaded;
  std::string error;
  for (const std::string& code : codes) {
    if (create(loaded, code, /*replace=*/false, /*timeout_ms=*/0, error).empty()) {
      release(loaded);
      return error;
    }
  }
  if (policy == RestorePolicy::kFlush) {
    release(set_);
    set_ = std::move(loaded);
    return {};
  }
  error = join(loaded, policy == RestorePolicy::kReplace);
  release(loaded);
  return error;
}

const FunctionInfo* FunctionLibraries::find(std::string_view name, const Library** library) const {
  const auto it = set_.functions.find(base::to_lower(name));
  if (it == set_.functions.end()) return nullptr;
  const Library& lib = set_.libraries.at(it->second);
  if (library) *library = &lib;
  for (const FunctionInfo& f : lib.functions)
    if (base::iequals(f.name, name)) return &f;
  return nullptr;
}

std::vector<std::string> FunctionLibraries::codes() const {
  std::vector<std::string> out;
  out.reserve(set_.libraries.size());
  for (const auto& [name, library] : set_.libraries) out.push_back(library.code);
  return out;
}

std::size_t FunctionLibraries::overhead() const noexcept {
  std::size_t bytes = 0;
  for (const auto& [name, library] : set_.libraries) {
    bytes += name.size() + library.code.size();
    for (const FunctionInfo& f : library.functions)
      bytes += f.name.size() + (f.description ? f.description->size() : 0);
  }
  return bytes;
}

}  // namespace listd::server
