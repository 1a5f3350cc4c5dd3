#include "nbcguard/calibration_cache.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace nbcguard {
namespace {

CalibrationCacheKey Key() {
  CalibrationCacheKey k;
  k.library = "MPICH Version: 4.0.2 MPICH Release date: Thu May 26 2022";
  k.ranks = 2;
  k.hosts = {"node1:2"};
  k.collective = "ibcast";
  k.deployment = "basic";
  k.threads = 1;
  k.max_bytes = 1ull << 30;
  return k;
}

CalibrationCacheEntries Entries() {
  CalibrationCacheEntries e;
  e.comm[0.0005] = 61234;
  e.comm[0.002] = 250000;
  e.comp[0.001] = 180;
  e.comp[0.004] = 290;
  return e;
}

// A fresh directory per test, removed afterwards.
class CalibrationCacheDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("nbcguard-cache-test-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())))
               .string();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST(CalibrationCacheKeyTest, EveryFieldChangesTheFile) {
  const std::string base = Key().FileName();
  EXPECT_EQ(Key().FileName(), base);  // deterministic
  EXPECT_EQ(base.rfind("calibration-", 0), 0u);
  std::vector<CalibrationCacheKey> changed(7, Key());
  changed[0].library = "MPICH Version: 4.0.3";
  changed[1].ranks = 4;
  changed[2].hosts = {"node1:1", "node2:1"};
  changed[3].collective = "ireduce";
  changed[4].deployment = "progress";
  changed[5].threads = 2;
  changed[6].max_bytes = 1ull << 20;
  for (const auto& k : changed) {
    EXPECT_NE(k.FileName(), base) << k.Canonical();
    EXPECT_NE(k.Canonical(), Key().Canonical());
  }
}

TEST(CalibrationCacheKeyTest, HostCountsAreSortedPerHost) {
  EXPECT_EQ(HostCounts({"b", "a", "b", "c"}), (std::vector<std::string>{"a:1", "b:2", "c:1"}));
  EXPECT_TRUE(HostCounts({}).empty());
}

TEST(CalibrationCacheParse, RoundTrip) {
  std::string error;
  auto parsed = ParseCalibrationCache(SerializeCalibrationCache(Key(), Entries()), "f.json", Key(), &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->comm, Entries().comm);
  EXPECT_EQ(parsed->comp, Entries().comp);
  // Targets as the driver writes them (17 significant digits) come back equal.
  CalibrationCacheEntries e;
  e.comp[std::stod("0.032000000000000001")] = 400;
  parsed = ParseCalibrationCache(SerializeCalibrationCache(Key(), e), "f.json", Key(), &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->comp.count(0.032), 1u);
}

TEST(CalibrationCacheParse, AnotherKeysFileGivesNothing) {
  CalibrationCacheKey other = Key();
  other.ranks = 8;
  std::string error;
  auto parsed = ParseCalibrationCache(SerializeCalibrationCache(other, Entries()), "f.json", Key(), &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_TRUE(parsed->comm.empty());
  EXPECT_TRUE(parsed->comp.empty());
}

TEST(CalibrationCacheParse, MalformedFilesAreErrorsNamingTheFile) {
  const char* bad[] = {
      "not json",
      "[1, 2]",
      R"({"key": {}})",                // no format
      R"({"format": 99, "key": {}})",  // unknown format
      R"({"format": 1})",              // no key
  };
  for (const char* text : bad) {
    std::string error;
    EXPECT_FALSE(ParseCalibrationCache(text, "/c/f.json", Key(), &error)) << text;
    EXPECT_NE(error.find("/c/f.json"), std::string::npos) << error;
  }
}

// An entry that no search wrote (zero, negative, fractional, beyond 2^53 or
// not a number; JSON has no non-finite numbers) is left out and described; the file's other entries are kept.
TEST(CalibrationCacheParse, MalformedEntriesAreDroppedTheOthersKept) {
  const std::string good = SerializeCalibrationCache(Key(), Entries());
  for (const std::string& broken :
       {std::string("\"size\": 0"), std::string("\"size\": -3"), std::string("\"size\": \"x\""),
        std::string("\"size\": 2.5"), std::string("\"size\": 1e300")}) {
    std::string text = good;
    text.replace(text.find("\"size\": 61234"), 13, broken);
    std::string error;
    std::vector<std::string> dropped;
    const auto parsed = ParseCalibrationCache(text, "/c/f.json", Key(), &error, &dropped);
    ASSERT_TRUE(parsed) << text << ": " << error;
    EXPECT_EQ(parsed->comm.count(0.0005), 0u) << broken;
    EXPECT_EQ(parsed->comm.at(0.002), 250000u) << broken;
    EXPECT_EQ(parsed->comp, Entries().comp) << broken;
    ASSERT_EQ(dropped.size(), 1u) << broken;
    EXPECT_NE(dropped[0].find("dropped comm entry"), std::string::npos) << dropped[0];
  }
  for (const std::string& target : {std::string("0"), std::string("-0.001"), std::string("null")}) {
    std::string text = good;
    text.replace(text.find("0.004"), 5, target);
    std::string error;
    std::vector<std::string> dropped;
    const auto parsed = ParseCalibrationCache(text, "/c/f.json", Key(), &error, &dropped);
    ASSERT_TRUE(parsed) << text << ": " << error;
    EXPECT_EQ(parsed->comp.size(), 1u) << target;
    EXPECT_EQ(dropped.size(), 1u) << target;
  }
  // Without a list for the notes the same entries are left out.
  std::string text = good;
  text.replace(text.find("\"size\": 290"), 11, "\"size\": 0");
  std::string error;
  const auto parsed = ParseCalibrationCache(text, "/c/f.json", Key(), &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->comp.size(), 1u);
}

// A size outside the search's range was not written by a search: it could
// only be clamped to the range's end (a GEMM of order 4096 for a 500 us
// target), so it does not start one.
TEST(CalibrationCacheStart, SizesOutsideTheSearchRangeAreRejected) {
  EXPECT_EQ(CachedSizeProblem(158, 2, 4096), "");
  EXPECT_EQ(CachedSizeProblem(2, 2, 4096), "");
  EXPECT_EQ(CachedSizeProblem(4096, 2, 4096), "");
  EXPECT_EQ(CachedSizeProblem(100000000, 2, 4096), "outside the search's range [2, 4096]");
  EXPECT_NE(CachedSizeProblem(1, 2, 4096), "");
  EXPECT_NE(CachedSizeProblem(1000000000000000ull, 1, 1u << 20), "");
  EXPECT_EQ(DroppedSizeNote("comp", 100000000, "500us", "it measured 2.3s"),
            "dropped comp size 100000000 for 500us: it measured 2.3s; searching from the default");
}

TEST_F(CalibrationCacheDir, StoreThenLoad) {
  std::string error;
  EXPECT_TRUE(LoadCalibrationCache(dir_, Key(), &error).comm.empty());  // cold: nothing, no error
  EXPECT_EQ(error, "");
  ASSERT_TRUE(StoreCalibrationCache(dir_, Key(), Entries(), &error)) << error;
  CalibrationCacheEntries loaded = LoadCalibrationCache(dir_, Key(), &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(loaded.comm, Entries().comm);
  EXPECT_EQ(loaded.comp, Entries().comp);
  // Another configuration does not see it.
  CalibrationCacheKey other = Key();
  other.library += " (rebuilt)";
  EXPECT_TRUE(LoadCalibrationCache(dir_, other, &error).comm.empty());
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(CalibrationCacheDir, CorruptFileIsReportedAndReplaced) {
  std::filesystem::create_directories(dir_);
  const std::string path = dir_ + "/" + Key().FileName();
  std::ofstream(path) << "{\"format\": 1, \"key\": ";  // truncated
  std::string error;
  EXPECT_TRUE(LoadCalibrationCache(dir_, Key(), &error).comm.empty());
  EXPECT_NE(error.find(path), std::string::npos) << error;
  ASSERT_TRUE(StoreCalibrationCache(dir_, Key(), Entries(), &error)) << error;
  EXPECT_EQ(LoadCalibrationCache(dir_, Key(), &error).comm, Entries().comm);
  EXPECT_EQ(error, "");
}

TEST_F(CalibrationCacheDir, UnwritableDirectoryIsAnError) {
  std::filesystem::create_directories(dir_);
  std::ofstream(dir_ + "/file") << "x";
  std::string error;
  EXPECT_FALSE(StoreCalibrationCache(dir_ + "/file/sub", Key(), Entries(), &error));
  EXPECT_NE(error.find(dir_ + "/file/sub"), std::string::npos) << error;
}

}  // namespace
}  // namespace nbcguard
