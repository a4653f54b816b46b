// The headers nearly every test file includes, compiled once per test executable
// (target_precompile_headers in tests/CMakeLists.txt). Parsing gtest and the standard library
// was most of a small test file's compile time. Nothing here is required for correctness: each
// test file still includes what it uses.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
