#include "listd/persistence/aof_manifest.h"

#include <fmt/format.h>
#include <cstdlib>

#include "listd/base/redis_text.h"

namespace listd::persistence {
namespace {

constexpr std::size_t kManifestMaxLine = 1024;

bool is_base_name(std::string_view s) {
  return s.find('/') == std::string_view::npos && s.find('\\') == std::string_view::npos;
}

void format_line(std::string& out, const AofFileInfo& f) {
  out += "file ";
  if (base::needs_repr(f.name)) {
    base::append_repr(out, f.name);
  } else {
    out += f.name;
  }
  out += fmt::format(" seq {} type {}\n", f.seq, static_cast<char>(f.type));
}

}  // namespace

std::string AofManifest::to_string() const {
  std::string out;
  if (base) format_line(out, *base);
  for (const auto& h : history) format_line(out, h);
  for (const auto& i : incrs) format_line(out, i);
  return out;
}

bool parse_manifest(std::string_view text, AofManifest& out, ManifestError& error) {
  out = AofManifest{};
  long long maxseq = 0;
  int linenum = 0;
  std::size_t pos = 0;
  // Redis prints the line number and text only once the line was trimmed (`line` != NULL).
  auto fail = [&](std::string msg, bool with_line, std::string_view line) {
    error.message = std::move(msg);
    error.line = with_line ? linenum : 0;
    error.text = with_line ? std::string(line) : std::string();
    return false;
  };
  while (true) {
    if (pos >= text.size()) {
      if (linenum == 0) return fail("Found an empty AOF manifest", false, {});
      break;
    }
    // fgets(buf, 1024 + 1): up to and including '\n', at most 1024 bytes.
    std::size_t end = text.find('\n', pos);
    std::size_t len = end == std::string_view::npos ? text.size() - pos : end - pos + 1;
    if (len > kManifestMaxLine) len = kManifestMaxLine;
    const std::string_view raw = text.substr(pos, len);
    pos += len;
    ++linenum;
    if (raw[0] == '#') continue;
    if (raw.find('\n') == std::string_view::npos)
      return fail("The AOF manifest file contains too long line", false, {});
    const std::string_view line = base::trim(raw);
    if (line.empty()) return fail("Invalid AOF manifest file format", true, line);
    auto args = base::split_args(line);
    if (!args || args->size() < 6 || args->size() % 2 != 0)
      return fail("Invalid AOF manifest file format", true, line);
    AofFileInfo info;
    bool have_name = false;
    char type = 0;
    for (std::size_t i = 0; i < args->size(); i += 2) {
      const std::string& k = (*args)[i];
      const std::string& v = (*args)[i + 1];
      if (base::iequals(k, "file")) {
        info.name = v;
        have_name = true;
        if (!is_base_name(v)) return fail("File can't be a path, just a filename", true, line);
      } else if (base::iequals(k, "seq")) {
        info.seq = std::atoll(v.c_str());
      } else if (base::iequals(k, "type")) {
        type = v.empty() ? 0 : v[0];
      }
    }
    if (!have_name || info.name.empty() || info.seq == 0 || type == 0)
      return fail("Invalid AOF manifest file format", true, line);
    if (type == 'b') {
      if (out.base) return fail("Found duplicate base file information", true, line);
      info.type = AofFileType::kBase;
      out.curr_base_seq = info.seq;
      out.base = std::move(info);
    } else if (type == 'h') {
      info.type = AofFileType::kHistory;
      out.history.push_back(std::move(info));
    } else if (type == 'i') {
      if (info.seq <= maxseq) return fail("Found a non-monotonic sequence number", true, line);
      info.type = AofFileType::kIncr;
      maxseq = info.seq;
      out.curr_incr_seq = info.seq;
      out.incrs.push_back(std::move(info));
    } else {
      return fail("Unknown AOF file type", true, line);
    }
  }
  return true;
}

std::string base_file_name(std::string_view prefix, long long seq, bool rdb) {
  return fmt::format("{}.{}.base.{}", prefix, seq, rdb ? "rdb" : "aof");
}
std::string incr_file_name(std::string_view prefix, long long seq) {
  return fmt::format("{}.{}.incr.aof", prefix, seq);
}
std::string manifest_file_name(std::string_view prefix) {
  return fmt::format("{}.manifest", prefix);
}

}  // namespace listd::persistence
