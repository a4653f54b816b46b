#include "listd/persistence/aof_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "listd/persistence/aof_encoder.h"

using namespace listd::persistence;

namespace {

// A tiny model of the commands the generator writes: lists and strings in numbered dbs, with
// MULTI/EXEC queueing as a loading client does.
struct Model {
  std::map<int, std::map<std::string, std::deque<std::string>>> lists;
  std::map<int, std::map<std::string, std::string>> strings;
  int db = 0;
  bool in_multi = false;
  std::vector<std::vector<std::string>> queued;

  void apply(const std::vector<std::string>& a) {
    const std::string& c = a[0];
    auto& l = lists[db];
    if (c == "SELECT") {
      db = std::stoi(a[1]);
    } else if (c == "LPUSH" || c == "RPUSH") {
      for (std::size_t i = 2; i < a.size(); ++i) {
        if (c == "LPUSH")
          l[a[1]].push_front(a[i]);
        else
          l[a[1]].push_back(a[i]);
      }
    } else if (c == "LPOP" || c == "RPOP") {
      long n = a.size() > 2 ? std::stol(a[2]) : 1;
      auto it = l.find(a[1]);
      for (; it != l.end() && n > 0 && !it->second.empty(); --n) {
        if (c == "LPOP")
          it->second.pop_front();
        else
          it->second.pop_back();
      }
      if (it != l.end() && it->second.empty()) l.erase(it);
    } else if (c == "LMOVE") {
      auto it = l.find(a[1]);
      if (it == l.end()) return;
      std::string v = a[3] == "LEFT" ? it->second.front() : it->second.back();
      if (a[3] == "LEFT")
        it->second.pop_front();
      else
        it->second.pop_back();
      if (it->second.empty()) l.erase(it);
      if (a[4] == "LEFT")
        l[a[2]].push_front(v);
      else
        l[a[2]].push_back(v);
    } else if (c == "DEL") {
      l.erase(a[1]);
      strings[db].erase(a[1]);
    } else if (c == "SET") {
      strings[db][a[1]] = a[2];
    } else {
      FAIL() << "model: unknown " << c;
    }
  }

  // The sink side: MULTI queues until EXEC.
  void feed(const std::vector<std::string>& a) {
    if (a[0] == "MULTI") {
      in_multi = true;
      return;
    }
    if (a[0] == "EXEC") {
      in_multi = false;
      for (auto& q : queued) apply(q);
      queued.clear();
      return;
    }
    if (in_multi)
      queued.push_back(a);
    else
      apply(a);
  }
  void revert_multi() {
    in_multi = false;
    queued.clear();
  }
  bool operator==(const Model& o) const {
    auto clean = [](const Model& m) {
      std::map<int, std::map<std::string, std::deque<std::string>>> l;
      for (auto& [d, keys] : m.lists)
        for (auto& [k, v] : keys)
          if (!v.empty()) l[d][k] = v;
      std::map<int, std::map<std::string, std::string>> s;
      for (auto& [d, keys] : m.strings)
        for (auto& [k, v] : keys) s[d][k] = v;
      return std::make_pair(l, s);
    };
    return clean(*this) == clean(o);
  }
};

struct Unit {
  std::vector<std::string> argv;  // empty for an annotation line
  std::size_t begin = 0, end = 0;
};

// A generated AOF: commands (some in MULTI/EXEC blocks, a trailing MULTI without EXEC at the
// end), SELECTs, annotations, binary values.
std::string generate(std::vector<Unit>& units, unsigned seed, int n) {
  std::mt19937 rng(seed);
  std::string out;
  auto emit = [&](std::vector<std::string> argv) {
    Unit u;
    u.begin = out.size();
    std::vector<std::string_view> v(argv.begin(), argv.end());
    append_resp_command(out, v);
    u.end = out.size();
    u.argv = std::move(argv);
    units.push_back(std::move(u));
  };
  auto note = [&](const std::string& text) {
    Unit u;
    u.begin = out.size();
    out += "#" + text + "\r\n";
    u.end = out.size();
    units.push_back(std::move(u));
  };
  const std::vector<std::string> keys = {"jobs", "processing", "q", "k\r\nx"};
  const std::vector<std::string> values = {"a", "bb", std::string("c\r\n\0d", 5), "",
                                           "v-long-" + std::string(40, 'z')};
  int counter = 0;
  emit({"SELECT", "0"});
  for (int i = 0; i < n; ++i) {
    const std::string k = keys[rng() % keys.size()];
    const std::string v = values[rng() % values.size()] + std::to_string(counter++);
    switch (rng() % 10) {
      case 0: emit({"SELECT", std::to_string(rng() % 3)}); break;
      case 1: emit({"RPUSH", k, v, v + "x"}); break;
      case 2: emit({"LPOP", k}); break;
      case 3: emit({"RPOP", k, "2"}); break;
      case 4: emit({"LMOVE", k, keys[rng() % keys.size()], "RIGHT", "LEFT"}); break;
      case 5: emit({"DEL", k}); break;
      case 6: emit({"SET", "s" + k, v}); break;
      case 7:
        emit({"MULTI"});
        emit({"LPUSH", k, v});
        emit({"RPOP", k});
        emit({"EXEC"});
        break;
      case 8: note("listd note " + std::to_string(i)); break;
      default: emit({"LPUSH", k, v}); break;
    }
  }
  emit({"MULTI"});
  emit({"LPUSH", "jobs", "never"});
  return out;
}

// What a correct loader must produce for the first `len` bytes.
struct Expected {
  Model model;
  std::size_t valid_up_to = 0;
};

Expected expected_for(const std::vector<Unit>& units, std::size_t len) {
  Expected e;
  std::vector<const Unit*> complete;
  for (const Unit& u : units)
    if (u.end <= len) complete.push_back(&u);
  // A MULTI whose EXEC is not complete is dropped with everything after it.
  std::size_t keep = complete.size();
  bool in_multi = false;
  std::size_t multi_at = 0;
  for (std::size_t i = 0; i < complete.size(); ++i) {
    if (complete[i]->argv.empty()) continue;
    if (complete[i]->argv[0] == "MULTI") {
      in_multi = true;
      multi_at = i;
    } else if (complete[i]->argv[0] == "EXEC") {
      in_multi = false;
    }
  }
  if (in_multi) keep = multi_at;
  for (std::size_t i = 0; i < keep; ++i) {
    if (!complete[i]->argv.empty()) e.model.feed(complete[i]->argv);
    e.valid_up_to = complete[i]->end;
  }
  if (in_multi) e.valid_up_to = complete[multi_at]->begin;
  return e;
}

AofCommandSink model_sink(Model& m) {
  return [&m](std::span<const std::string_view> argv, std::string&) {
    m.feed(std::vector<std::string>(argv.begin(), argv.end()));
    return true;
  };
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/listd_aof_loader_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace

TEST(AofLoader, EveryPrefixLoadsToTheModelReplayOfItsCompleteCommands) {
  std::vector<Unit> units;
  const std::string aof = generate(units, 7, 120);
  ASSERT_GT(aof.size(), 2000u);
  for (std::size_t len = 0; len <= aof.size(); ++len) {
    Model got;
    const AofLoadResult r = load_aof_bytes(std::string_view(aof).substr(0, len), model_sink(got));
    if (r.reverted_multi) got.revert_multi();
    const Expected want = expected_for(units, len);
    ASSERT_NE(r.status, AofLoadStatus::kFailed) << "prefix " << len << ": " << r.error;
    ASSERT_EQ(r.valid_up_to, want.valid_up_to) << "prefix " << len;
    if (len == 0) {
      EXPECT_EQ(r.status, AofLoadStatus::kEmpty);
    } else if (want.valid_up_to == len) {
      EXPECT_EQ(r.status, AofLoadStatus::kOk) << "prefix " << len;
    } else {
      EXPECT_EQ(r.status, AofLoadStatus::kTruncated) << "prefix " << len;
    }
    ASSERT_TRUE(got == want.model) << "prefix " << len;
    // Loading the repaired file (cut at valid_up_to) gives the same data and is clean.
    Model again;
    const AofLoadResult r2 =
        load_aof_bytes(std::string_view(aof).substr(0, r.valid_up_to), model_sink(again));
    ASSERT_TRUE(r2.status == AofLoadStatus::kOk || r2.status == AofLoadStatus::kEmpty)
        << "prefix " << len;
    ASSERT_TRUE(again == want.model) << "prefix " << len;
  }
}

TEST(AofLoader, FileLoadingStreamsAcrossChunkBoundaries) {
  std::vector<Unit> units;
  std::string aof = generate(units, 11, 30000);  // several MB: crosses the 1 MB chunks
  // One bulk argument larger than a chunk.
  const std::string big(3 << 20, 'B');
  const std::string_view cmd[] = {"SET", "big", big};
  std::string bigcmd;
  append_resp_command(bigcmd, cmd);
  aof.insert(units[10].begin, bigcmd);
  ASSERT_GT(aof.size(), 4u << 20);
  const std::string path = temp_path("stream.aof");
  {
    std::ofstream f(path, std::ios::binary);
    f << aof;
  }
  Model from_file, from_bytes;
  const AofLoadResult a = load_aof_file(path, model_sink(from_file));
  const AofLoadResult b = load_aof_bytes(aof, model_sink(from_bytes));
  EXPECT_EQ(a.status, AofLoadStatus::kTruncated);  // the trailing MULTI
  EXPECT_TRUE(a.reverted_multi);
  EXPECT_EQ(a.valid_up_to, b.valid_up_to);
  EXPECT_EQ(a.commands, b.commands);
  EXPECT_EQ(a.end_offset, aof.size());
  EXPECT_TRUE(from_file == from_bytes);
  EXPECT_EQ(from_file.strings[0]["big"].size() + from_file.strings[1]["big"].size() +
                from_file.strings[2]["big"].size(),
            big.size());
  std::remove(path.c_str());
}

TEST(AofLoader, FileLoadingFromAnOffsetSkipsAPreamble) {
  const std::string path = temp_path("offset.aof");
  std::string data = "PREAMBLE";
  const std::string_view c[] = {"LPUSH", "q", "a"};
  append_resp_command(data, c);
  {
    std::ofstream f(path, std::ios::binary);
    f << data;
  }
  Model m;
  const AofLoadResult r = load_aof_file(path, model_sink(m), 8);
  EXPECT_EQ(r.status, AofLoadStatus::kOk);
  EXPECT_EQ(r.commands, 1u);
  EXPECT_EQ(r.valid_up_to, data.size());
  std::remove(path.c_str());
}

TEST(AofLoader, GarbageInTheMiddleIsAFormatErrorAtItsOffset) {
  std::string data;
  const std::string_view c[] = {"LPUSH", "q", "a"};
  append_resp_command(data, c);
  const std::size_t at = data.size();
  data += "GARBAGE\r\n";
  append_resp_command(data, c);
  Model m;
  const AofLoadResult r = load_aof_bytes(data, model_sink(m));
  EXPECT_EQ(r.status, AofLoadStatus::kFailed);
  EXPECT_EQ(r.error_offset, at);
  EXPECT_EQ(r.commands, 1u);
}

TEST(AofLoader, InlineCommandsAndBadHeadersAreFormatErrors) {
  Model m;
  EXPECT_EQ(load_aof_bytes("LPUSH jobs a\r\n", model_sink(m)).status, AofLoadStatus::kFailed);
  EXPECT_EQ(load_aof_bytes("*0\r\n", model_sink(m)).status, AofLoadStatus::kFailed);
  EXPECT_EQ(load_aof_bytes("*1\r\n+OK\r\n", model_sink(m)).status, AofLoadStatus::kFailed);
  EXPECT_EQ(load_aof_bytes("*1\r\n$x\r\n", model_sink(m)).status, AofLoadStatus::kFailed);
  EXPECT_EQ(load_aof_bytes("*1\r\n$1\r\nab\r\n", model_sink(m)).status, AofLoadStatus::kFailed);
}

TEST(AofLoader, ARefusedCommandStopsLoading) {
  std::string data;
  const std::string_view a[] = {"LPUSH", "q", "a"};
  const std::string_view b[] = {"LISTDNOTE", "x"};
  append_resp_command(data, a);
  const std::size_t at = data.size();
  append_resp_command(data, b);
  append_resp_command(data, a);
  int seen = 0;
  const AofLoadResult r =
      load_aof_bytes(data, [&](std::span<const std::string_view> argv, std::string& err) {
        if (argv[0] == "LISTDNOTE") {
          err = "Unknown command 'LISTDNOTE'";
          return false;
        }
        ++seen;
        return true;
      });
  EXPECT_EQ(r.status, AofLoadStatus::kFailed);
  EXPECT_EQ(r.error, "Unknown command 'LISTDNOTE'");
  EXPECT_EQ(r.error_offset, at);
  EXPECT_EQ(seen, 1);
}

TEST(AofLoader, AnnotationsAreSkipped) {
  std::string data = "#listd v0.1 base\r\n";
  const std::string_view a[] = {"LPUSH", "q", "a"};
  append_resp_command(data, a);
  data += "#TS:1700000000\r\n";
  Model m;
  const AofLoadResult r = load_aof_bytes(data, model_sink(m));
  EXPECT_EQ(r.status, AofLoadStatus::kOk);
  EXPECT_EQ(r.commands, 1u);
  EXPECT_EQ(m.lists[0]["q"].size(), 1u);
}

// A fuzzer finding (tests/fuzz/corpus/aof/nested_multi_torn): with a MULTI inside an open
// MULTI, the cut went before the second, so the repaired file still ended inside the first.
TEST(AofLoader, ANestedMultiIsCutBeforeTheFirstMulti) {
  std::string data;
  const std::string_view set[] = {"SET", "k", "v"};
  const std::string_view multi[] = {"MULTI"};
  const std::string_view push[] = {"RPUSH", "q", "a"};
  append_resp_command(data, set);
  const std::size_t before_first = data.size();
  append_resp_command(data, multi);
  append_resp_command(data, push);
  append_resp_command(data, multi);
  for (const std::string& tail : {std::string(), std::string("*3\r\n$5\r\nRPU")}) {
    Model m;
    const AofLoadResult r = load_aof_bytes(data + tail, model_sink(m));
    EXPECT_EQ(r.status, AofLoadStatus::kTruncated);
    EXPECT_TRUE(r.reverted_multi);
    EXPECT_EQ(r.valid_up_to, before_first);
    Model cut;
    EXPECT_EQ(load_aof_bytes(data.substr(0, r.valid_up_to), model_sink(cut)).status,
              AofLoadStatus::kOk);
  }
}

// Redis serves its clients every 1024 commands of an AOF: the progress callback's points.
TEST(AofLoader, ProgressEvery1024CommandsWithTheOffsetAndStopsWhenAsked) {
  std::string data;
  const std::string command = "*2\r\n$4\r\nINCR\r\n$1\r\nk\r\n";
  for (int i = 0; i < 2500; ++i) data += command;
  std::vector<std::uint64_t> offsets;
  std::uint64_t seen = 0;
  const AofCommandSink sink = [&](std::span<const std::string_view>, std::string&) {
    ++seen;
    return true;
  };
  AofLoadResult r = load_aof_bytes(data, sink, 0, [&](std::uint64_t offset) {
    offsets.push_back(offset);
    return true;
  });
  EXPECT_EQ(r.status, AofLoadStatus::kOk);
  EXPECT_EQ(r.commands, 2500u);
  EXPECT_EQ(offsets, (std::vector<std::uint64_t>{1024 * command.size(), 2048 * command.size()}));
  seen = 0;
  r = load_aof_bytes(data, sink, 0, [](std::uint64_t) { return false; });
  EXPECT_EQ(r.status, AofLoadStatus::kFailed);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(seen, 1024u);
}
