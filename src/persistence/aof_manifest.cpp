#include "listd/persistence/aof_manifest.h"

#include <cctype>
#include <cstdlib>
#include <fmt/format.h>

namespace listd::persistence {
namespace {

constexpr std::size_t kManifestMaxLine = 1024;

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  return (std::tolower(static_cast<unsigned char>(c)) - 'a') + 10;
}

// sdsneedsrepr: quote when any byte is special, non-printable or a space.
bool needs_repr(std::string_view s) {
  for (unsigned char c : s)
    if (c == '\\' || c == '"' || c == '\n' || c == '\r' || c == '\t' || c == '\a' || c == '\b' ||
        !std::isprint(c) || std::isspace(c))
      return true;
  return false;
}

bool is_base_name(std::string_view s) {
  return s.find('/') == std::string_view::npos && s.find('\\') == std::string_view::npos;
}

std::string_view trim(std::string_view s) {
  const std::string_view ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

void format_line(std::string& out, const AofFileInfo& f) {
  out += "file ";
  out += needs_repr(f.name) ? quote_repr(f.name) : f.name;
  out += fmt::format(" seq {} type {}\n", f.seq, static_cast<char>(f.type));
}

}  // namespace

std::optional<std::vector<std::string>> split_args(std::string_view line) {
  std::vector<std::string> out;
  std::size_t p = 0;
  const std::size_t n = line.size();
  for (;;) {
    while (p < n && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
    if (p >= n) return out;
    bool inq = false, insq = false, done = false;
    std::string cur;
    while (!done) {
      if (inq) {
        if (p >= n) return std::nullopt;
        if (line[p] == '\\' && p + 3 < n && line[p + 1] == 'x' && is_hex(line[p + 2]) && is_hex(line[p + 3])) {
          cur += static_cast<char>(hex_value(line[p + 2]) * 16 + hex_value(line[p + 3]));
          p += 3;
        } else if (line[p] == '\\' && p + 1 < n) {
          ++p;
          char c;
          switch (line[p]) {
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'b': c = '\b'; break;
            case 'a': c = '\a'; break;
            default: c = line[p]; break;
          }
          cur += c;
        } else if (line[p] == '"') {
          // The closing quote must be followed by a space or nothing.
          if (p + 1 < n && !std::isspace(static_cast<unsigned char>(line[p + 1]))) return std::nullopt;
          done = true;
        } else {
          cur += line[p];
        }
      } else if (insq) {
        if (p >= n) return std::nullopt;
        if (line[p] == '\\' && p + 1 < n && line[p + 1] == '\'') {
          ++p;
          cur += '\'';
        } else if (line[p] == '\'') {
          if (p + 1 < n && !std::isspace(static_cast<unsigned char>(line[p + 1]))) return std::nullopt;
          done = true;
        } else {
          cur += line[p];
        }
      } else {
        if (p >= n) {
          done = true;
          break;
        }
        switch (line[p]) {
          case ' ': case '\n': case '\r': case '\t': case '\0': done = true; break;
          case '"': inq = true; break;
          case '\'': insq = true; break;
          default: cur += line[p]; break;
        }
      }
      if (p < n) ++p;
    }
    out.push_back(std::move(cur));
  }
}

std::string quote_repr(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      default:
        if (std::isprint(c)) out += static_cast<char>(c);
        else out += fmt::format("\\x{:02x}", c);
    }
  }
  out += '"';
  return out;
}

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
    const std::string_view line = trim(raw);
    if (line.empty()) return fail("Invalid AOF manifest file format", true, line);
    auto args = split_args(line);
    if (!args || args->size() < 6 || args->size() % 2 != 0)
      return fail("Invalid AOF manifest file format", true, line);
    AofFileInfo info;
    bool have_name = false;
    char type = 0;
    for (std::size_t i = 0; i < args->size(); i += 2) {
      const std::string& k = (*args)[i];
      const std::string& v = (*args)[i + 1];
      if (iequals(k, "file")) {
        info.name = v;
        have_name = true;
        if (!is_base_name(v)) return fail("File can't be a path, just a filename", true, line);
      } else if (iequals(k, "seq")) {
        info.seq = std::atoll(v.c_str());
      } else if (iequals(k, "type")) {
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
std::string manifest_file_name(std::string_view prefix) { return fmt::format("{}.manifest", prefix); }

}  // namespace listd::persistence
