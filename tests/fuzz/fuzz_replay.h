// The replay driver of the fuzz targets for builds without libFuzzer (gcc, CI): every file of
// the seed corpus directories given on the command line, then a fixed number of mutations of
// them (byte flips, inserts, deletions, truncations, splices of two seeds) from a fixed seed, so
// every run checks the same inputs. `<target> <runs> <corpus dir>...`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace listd::fuzz {

inline std::uint64_t next_random(std::uint64_t& s) {  // splitmix64
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline void run_one(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

inline std::string mutate(const std::vector<std::string>& seeds, std::uint64_t& rng) {
  std::string s = seeds[next_random(rng) % seeds.size()];
  for (std::uint64_t m = 1 + next_random(rng) % 4; m > 0; --m) {
    const std::size_t at = s.empty() ? 0 : next_random(rng) % s.size();
    switch (next_random(rng) % 5) {
      case 0:
        if (!s.empty()) s[at] = static_cast<char>(next_random(rng));
        break;
      case 1: s.insert(at, 1, static_cast<char>(next_random(rng))); break;
      case 2:
        if (!s.empty()) s.erase(at, 1 + next_random(rng) % 8);
        break;
      case 3: s.resize(at); break;
      default: {  // a piece of another seed
        const std::string& other = seeds[next_random(rng) % seeds.size()];
        if (other.empty()) break;
        const std::size_t from = next_random(rng) % other.size();
        s.insert(at, other, from, 1 + next_random(rng) % 64);
      }
    }
  }
  return s;
}

inline int replay_main(int argc, char** argv, const char* name) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <runs> <corpus dir>...\n", argv[0]);
    return 2;
  }
  const long runs = std::strtol(argv[1], nullptr, 10);
  std::vector<std::string> seeds;
  for (int i = 2; i < argc; ++i) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(argv[i]))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());  // the same order on every machine
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "%s: no seeds\n", name);
    return 2;
  }
  for (const std::string& s : seeds) run_one(s);
  std::uint64_t rng = 0x6c697374645f667aull;
  for (long i = 0; i < runs; ++i) run_one(mutate(seeds, rng));
  std::printf("%s replay: %zu seeds + %ld mutations, all invariants held\n", name, seeds.size(),
              runs);
  return 0;
}

}  // namespace listd::fuzz
