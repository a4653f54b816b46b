#include "listd/app/config_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "listd/config/config_file.h"
#include "support/temp_dir.h"

namespace listd::app {
namespace {

using config::Config;
using config::rewrite_config_file;

using listd::testing::TempDir;

std::string fatal_at(int line, const std::string& text, const std::string& reason) {
  return "\n*** FATAL CONFIG FILE ERROR (listd) ***\nReading the configuration file, at line " +
         std::to_string(line) + "\n>>> '" + text + "'\n" + reason + "\n";
}

ConfigLoadOutcome run(std::vector<std::string> args, Config& cfg, const std::string& input = "") {
  args.insert(args.begin(), "listd");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::istringstream in(input);
  return load_config(static_cast<int>(argv.size()), argv.data(), cfg, in);
}

TEST(ConfigLoaderTest, CommandLineOptionsBecomeQuotedLines) {
  const std::vector<std::string_view> args = {"--port", "7000", "--save", "900 1 300 10",
                                              "--bind", "a",    "b"};
  EXPECT_EQ(command_line_options(args),
            "port \"7000\" \nsave \"900 1 300 10\" \nbind \"a\" \"b\" ");
  const std::vector<std::string_view> save_last = {"--port", "1", "--save"};
  EXPECT_EQ(command_line_options(save_last), "port \"1\" \nsave \"\"");
  const std::vector<std::string_view> save_then_flag = {"--save", "--port", "1"};
  EXPECT_EQ(command_line_options(save_then_flag), "save \"\"\nport \"1\" ");
  const std::vector<std::string_view> joined = {"--port 6380", "--timeout", "5"};
  EXPECT_EQ(command_line_options(joined), "port 6380 \ntimeout \"5\" ");
}

TEST(ConfigLoaderTest, CommandLineOverridesTheFile) {
  TempDir tmp;
  const std::string conf = tmp.write("listd.conf", "port 7000\ntimeout 10\n");
  Config cfg;
  const ConfigLoadOutcome out = run({conf, "--port", "7001"}, cfg);
  EXPECT_EQ(out.action, StartupAction::kRun);
  EXPECT_EQ(out.error, std::nullopt);
  EXPECT_EQ(cfg.settings().port, 7001);
  EXPECT_EQ(cfg.settings().timeout, 10);
  EXPECT_EQ(out.config_file, std::filesystem::absolute(conf).lexically_normal().string());
  EXPECT_EQ(cfg.config_file(), out.config_file);
}

TEST(ConfigLoaderTest, MultiWordOptionsOnTheCommandLine) {
  Config cfg;
  const ConfigLoadOutcome out =
      run({"--save", "900 1 300 10", "--bind", "127.0.0.1 ::1", "--maxmemory", "1gb"}, cfg);
  ASSERT_EQ(out.error, std::nullopt);
  EXPECT_EQ(cfg.value("save"), "900 1 300 10");
  EXPECT_EQ(cfg.settings().bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_EQ(cfg.value("maxmemory"), "1073741824");
  EXPECT_TRUE(cfg.config_file().empty());
}

TEST(ConfigLoaderTest, SeparateWordsAfterAnOptionAreItsArguments) {
  Config cfg;
  ASSERT_EQ(run({"--save", "900", "1", "--bind", "10.0.0.1", "::1"}, cfg).error, std::nullopt);
  EXPECT_EQ(cfg.value("save"), "900 1");
  EXPECT_EQ(cfg.value("bind"), "10.0.0.1 ::1");
}

TEST(ConfigLoaderTest, EmptySaveOnTheCommandLineClearsTheFilesSavePoints) {
  TempDir tmp;
  const std::string conf = tmp.write("listd.conf", "save 900 1\n");
  Config cfg;
  ASSERT_EQ(run({conf, "--save", ""}, cfg).error, std::nullopt);
  EXPECT_EQ(cfg.value("save"), "");
}

TEST(ConfigLoaderTest, BadCommandLineValueIsReportedAfterTheFileLines) {
  TempDir tmp;
  const std::string conf = tmp.write("listd.conf", "timeout 1\n");
  Config cfg;
  // The file's "timeout 1\n" gives lines 1 and 2, then "\n" + options starts at line 3.
  EXPECT_EQ(run({conf, "--port", "abc"}, cfg).error,
            fatal_at(3, "port \"abc\"", "argument couldn't be parsed into an integer"));
  Config no_file;
  EXPECT_EQ(run({"--nosuch", "1"}, no_file).error,
            fatal_at(2, "nosuch \"1\"", "Bad directive or wrong number of arguments"));
}

TEST(ConfigLoaderTest, MissingConfigFileIsFatal) {
  TempDir tmp;
  Config cfg;
  const std::string missing = tmp.file("nope.conf");
  EXPECT_EQ(run({missing}, cfg).error,
            "Fatal error, can't open config file '" + missing + "': No such file or directory");
}

TEST(ConfigLoaderTest, DashReadsConfigFromStdin) {
  Config cfg;
  const ConfigLoadOutcome out = run({"-", "--timeout", "9"}, cfg, "port 7100\ntimeout 3\n");
  ASSERT_EQ(out.error, std::nullopt);
  EXPECT_EQ(cfg.settings().port, 7100);
  EXPECT_EQ(cfg.settings().timeout, 9);

  TempDir tmp;
  const std::string conf = tmp.write("listd.conf", "port 7000\n");
  Config with_file;
  ASSERT_EQ(run({conf, "--timeout", "4", "-"}, with_file, "port 7200\n").error, std::nullopt);
  EXPECT_EQ(with_file.settings().port, 7200);
  EXPECT_EQ(with_file.settings().timeout, 4);
}

TEST(ConfigLoaderTest, VersionAndHelpFlags) {
  for (const char* flag : {"-v", "--version"}) {
    Config cfg;
    EXPECT_EQ(run({flag}, cfg).action, StartupAction::kPrintVersion) << flag;
  }
  for (const char* flag : {"-h", "--help"}) {
    Config cfg;
    EXPECT_EQ(run({flag}, cfg).action, StartupAction::kPrintHelp) << flag;
  }
  EXPECT_EQ(version_text().rfind("listd server v=", 0), 0U);
  EXPECT_NE(usage_text("listd").find("Usage: listd [/path/to/listd.conf]"), std::string::npos);
}

TEST(ConfigLoaderTest, NoArgumentsKeepsDefaults) {
  Config cfg;
  const ConfigLoadOutcome out = run({}, cfg);
  EXPECT_EQ(out.action, StartupAction::kRun);
  EXPECT_EQ(out.error, std::nullopt);
  EXPECT_EQ(cfg.settings().port, 6379);
}

// ---- CONFIG REWRITE round trip ----------------------------------------------------------------

TEST(ConfigLoaderTest, RewriteRoundTripThroughTheLoader) {
  TempDir tmp;
  const std::string conf = tmp.write("listd.conf",
                                     "# listd test config\n"
                                     "port 7000\n"
                                     "save 900 1\n"
                                     "maxmemory 100mb\n");
  Config cfg;
  ASSERT_EQ(run({conf, "--timeout", "15"}, cfg).error, std::nullopt);
  ASSERT_EQ(cfg.set("maxmemory", "200mb"), std::nullopt);
  ASSERT_EQ(cfg.set("save", "60 10 30 100"), std::nullopt);
  ASSERT_EQ(cfg.set("loglevel", "debug"), std::nullopt);

  std::string err;
  ASSERT_TRUE(rewrite_config_file(cfg.config_file(), cfg, err)) << err;

  std::ifstream in(conf);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().rfind("# listd test config\nport 7000\nsave 60 10\nmaxmemory 200mb\n", 0),
            0U)
      << text.str();

  Config reloaded;
  ASSERT_EQ(run({conf}, reloaded).error, std::nullopt);
  EXPECT_EQ(reloaded.settings(), cfg.settings());
}

}  // namespace
}  // namespace listd::app
