#include "listd/config/config_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace listd::config {
namespace {

using listd::testing::TempDir;

std::string fatal_at(int line, const std::string& text, const std::string& reason) {
  return "\n*** FATAL CONFIG FILE ERROR (listd) ***\nReading the configuration file, at line " +
         std::to_string(line) + "\n>>> '" + text + "'\n" + reason + "\n";
}

// ---- Config text ------------------------------------------------------------------------------

TEST(ConfigFileTest, ReadsDirectivesCommentsAndBlankLines) {
  Config cfg;
  const std::string text =
      "# a comment\n"
      "\n"
      "   port 7000   \r\n"
      "\tTIMEOUT 30\n"
      "MaxMemory 64kb\n"
      "requirepass \"pass word\"\n"
      "logfile ''\n"
      "   # indented comment\n"
      "maxmemory-policy NOEVICTION\n";
  EXPECT_EQ(load_config_text(text, cfg), std::nullopt);
  EXPECT_EQ(cfg.settings().port, 7000);
  EXPECT_EQ(cfg.settings().timeout, 30);
  EXPECT_EQ(cfg.settings().maxmemory, 65536U);
  EXPECT_EQ(cfg.settings().requirepass, "pass word");
  EXPECT_EQ(cfg.settings().maxmemory_policy, config::MaxmemoryPolicy::kNoeviction);
}

TEST(ConfigFileTest, UnknownDirectiveStopsWithLineNumber) {
  Config cfg;
  EXPECT_EQ(load_config_text("port 7000\n\nfrobnicate yes\nport 7001\n", cfg),
            fatal_at(3, "frobnicate yes", "Bad directive or wrong number of arguments"));
  EXPECT_EQ(cfg.settings().port, 7000);
}

TEST(ConfigFileTest, BadValueNamesTheLineAsRedisDoes) {
  Config cfg;
  EXPECT_EQ(load_config_text("# x\nport \"abc\"\n", cfg),
            "\n*** FATAL CONFIG FILE ERROR (listd) ***\n"
            "Reading the configuration file, at line 2\n"
            ">>> 'port \"abc\"'\n"
            "argument couldn't be parsed into an integer\n");
}

TEST(ConfigFileTest, OtherLineErrors) {
  Config cfg;
  EXPECT_EQ(load_config_text("port 1 2\n", cfg),
            fatal_at(1, "port 1 2", "wrong number of arguments"));
  EXPECT_EQ(load_config_text("requirepass \"open\n", cfg),
            fatal_at(1, "requirepass \"open", "Unbalanced quotes in configuration line"));
  EXPECT_EQ(load_config_text("appendonly maybe\n", cfg),
            fatal_at(1, "appendonly maybe", "argument must be 'yes' or 'no'"));
  EXPECT_EQ(load_config_text("maxmemory 12xb\n", cfg),
            fatal_at(1, "maxmemory 12xb", "argument must be a memory value"));
}

TEST(ConfigFileTest, IncludeLoadsAnotherFile) {
  TempDir tmp;
  const std::string inc = tmp.write("inc.conf", "timeout 42\n");
  Config cfg;
  EXPECT_EQ(load_config_text("port 7000\ninclude " + inc + "\nhz 20\n", cfg), std::nullopt);
  EXPECT_EQ(cfg.settings().timeout, 42);
  EXPECT_EQ(cfg.settings().hz, 20);
}

TEST(ConfigFileTest, ErrorInIncludedFileNamesItsOwnLine) {
  TempDir tmp;
  const std::string inc = tmp.write("inc.conf", "timeout 1\nbogus 1\n");
  Config cfg;
  EXPECT_EQ(load_config_text("port 7000\ninclude " + inc + "\n", cfg),
            fatal_at(2, "bogus 1", "Bad directive or wrong number of arguments"));
}

TEST(ConfigFileTest, MissingIncludeIsFatalButAnEmptyGlobIsNot) {
  TempDir tmp;
  Config cfg;
  const std::string missing = tmp.file("missing.conf");
  EXPECT_EQ(load_config_text("include " + missing + "\n", cfg),
            "Fatal error, can't open config file '" + missing + "': No such file or directory");
  EXPECT_EQ(load_config_text("include " + tmp.file("conf.d/*.conf") + "\n", cfg), std::nullopt);
}

TEST(ConfigFileTest, IncludeGlobLoadsEveryMatch) {
  TempDir tmp;
  tmp.write("a.conf", "timeout 7\n");
  tmp.write("b.conf", "hz 30\n");
  Config cfg;
  EXPECT_EQ(load_config_text("include " + tmp.file("*.conf") + "\n", cfg), std::nullopt);
  EXPECT_EQ(cfg.settings().timeout, 7);
  EXPECT_EQ(cfg.settings().hz, 30);
}

TEST(ConfigFileTest, IncludeCycleIsStopped) {
  TempDir tmp;
  const std::string self = tmp.file("self.conf");
  tmp.write("self.conf", "include " + self + "\n");
  Config cfg;
  EXPECT_EQ(load_config_file(self, cfg),
            fatal_at(1, "include " + self, "Too many nested include directives"));
}

TEST(ConfigFileTest, UnopenableLogFileIsFatal) {
  Config cfg;
  EXPECT_EQ(load_config_text("logfile /nonexistent-dir-for-listd/listd.log\n", cfg),
            "\n*** FATAL CONFIG FILE ERROR (listd) ***\n"
            "Can't open the log file: No such file or directory\n");
}

}  // namespace
}  // namespace listd::config
