#include "nbcguard/impact_store.h"

#include "nbcguard/reduce.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace nbcguard {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class ImpactStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nbcguard-impact-test-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Two rounds of one target (4 ms, size 300): with MPI 4.4 ms, without 4.0 ms.
  static ImpactMeasurement Rounds() {
    ImpactMeasurement m;
    for (int round : {0, 1}) {
      m.passive.push_back({{"type", "passive"},
                           {"n", 300},
                           {"comp_target", 0.004},
                           {"round", round},
                           {"times", {0.0044, 0.0044}}});
      m.no_mpi[300][round] = {0.004, 0.004};
    }
    return m;
  }
  void Overwrite(const std::string& key, const json& j) { std::ofstream(ImpactFile(dir_, key)) << j.dump(); }

  fs::path dir_;
};

TEST_F(ImpactStore, KeptRoundsAreFoundByTheSameKeyWithinTheAge) {
  const std::string key = "nodes=2 threads=1 targets=0.004";
  std::string note;
  EXPECT_FALSE(FindImpact(dir_, key, 600, 1000, &note));  // nothing kept yet
  ASSERT_EQ(StoreImpact(dir_, key, Rounds(), "ibcast n2 basic", 1000), "");
  const auto found = FindImpact(dir_, key, 600, 1100, &note);
  ASSERT_TRUE(found) << note;
  EXPECT_EQ(note, "");
  EXPECT_EQ(found->rounds.passive, Rounds().passive);
  EXPECT_EQ(found->rounds.no_mpi, Rounds().no_mpi);
  EXPECT_EQ(found->source["measured_by"], "ibcast n2 basic");
  EXPECT_DOUBLE_EQ(found->source["age_s"].get<double>(), 100);
  EXPECT_EQ(found->source["file"], ImpactFile(dir_, key).string());
  // A key that differs in anything finds nothing.
  EXPECT_FALSE(FindImpact(dir_, key + " ", 600, 1100, &note));
  EXPECT_FALSE(FindImpact(dir_, "nodes=4 threads=1 targets=0.004", 600, 1100, &note));
  // Too old, or reuse off: measured again.
  EXPECT_FALSE(FindImpact(dir_, key, 600, 1601, &note));
  EXPECT_FALSE(FindImpact(dir_, key, 0, 1100, &note));
  EXPECT_EQ(note, "");
  // Only the file is left: no temporary beside it.
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(ImpactStore, AFileNamedByTheHashButOfAnotherKeyIsNotTaken) {
  const std::string key = "a";
  ASSERT_EQ(StoreImpact(dir_, "b", Rounds(), "t", 1000), "");
  json j = {{"key", "b"}, {"measured_at", 1000}, {"passive", Rounds().passive}, {"no_mpi", json::object()}};
  Overwrite(key, j);
  std::string note;
  EXPECT_FALSE(FindImpact(dir_, key, 600, 1000, &note));
  EXPECT_EQ(note, "");
}

TEST_F(ImpactStore, ABrokenFileIsMeasuredAgainWithANote) {
  const std::string key = "k";
  ASSERT_EQ(StoreImpact(dir_, key, Rounds(), "t", 1000), "");
  const json good = [&] {
    std::ifstream in(ImpactFile(dir_, key));
    return json::parse(in);
  }();
  const struct {
    json j;
    const char* why;
  } broken[] = {
      {json::array(), "is not JSON"},
      {json{{"key", key}, {"passive", good["passive"]}, {"no_mpi", good["no_mpi"]}}, "has no measured_at"},
      {[&] {
         json j = good;
         j["measured_at"] = 2000;
         return j;
       }(),
       "in the future"},
      {[&] {
         json j = good;
         j["passive"][0].erase("round");
         return j;
       }(),
       "without n, comp_target, round or times"},
      {[&] {
         json j = good;
         j["no_mpi"]["300"]["0"] = "fast";
         return j;
       }(),
       "has no times without MPI"},
      {[&] {
         json j = good;
         j["passive"] = json::array();
         return j;
       }(),
       "has no passive records"},
  };
  for (const auto& b : broken) {
    Overwrite(key, b.j);
    std::string note;
    EXPECT_FALSE(FindImpact(dir_, key, 600, 1100, &note)) << b.j.dump();
    EXPECT_NE(note.find(b.why), std::string::npos) << note;
  }
  std::ofstream(ImpactFile(dir_, key)) << "{\"key\": ";  // cut short
  std::string note;
  EXPECT_FALSE(FindImpact(dir_, key, 600, 1100, &note));
  EXPECT_NE(note.find("is not JSON"), std::string::npos) << note;
}

TEST_F(ImpactStore, NothingIsKeptWithoutRoundsAndAnUnwritableDirectoryIsAnError) {
  EXPECT_EQ(StoreImpact(dir_, "k", ImpactMeasurement{}, "t", 1000), "");
  EXPECT_FALSE(fs::exists(ImpactFile(dir_, "k")));
  fs::create_directories(dir_);
  std::ofstream(dir_ / "plain") << "a file";
  EXPECT_NE(StoreImpact(dir_ / "plain" / "impact", "k", Rounds(), "t", 1000), "");
}

// Rounds 0 and 1 of one target at size `n`: with MPI `with`, without `without` (2 ranks, 1 repetition).
ImpactMeasurement TwoRounds(double target, int n, double with, double without) {
  ImpactMeasurement m;
  for (int round : {0, 1}) {
    m.passive.push_back(
        {{"type", "passive"}, {"n", n}, {"comp_target", target}, {"round", round}, {"times", {with, with}}});
    m.no_mpi[n][round] = {without};
  }
  return m;
}

TEST(ImpactTargets, ATargetsRoundsAreItsRecordsAndTheTimesOfTheirSize) {
  ImpactMeasurement both = TwoRounds(0.002, 100, 0.0022, 0.002);
  MergeImpact(&both, TwoRounds(0.004, 300, 0.0048, 0.004));
  const ImpactMeasurement four = ForTarget(both, 0.004);
  ASSERT_EQ(four.passive.size(), 2U);
  for (const json& p : four.passive) EXPECT_EQ(p["comp_target"], 0.004);
  ASSERT_EQ(four.no_mpi.size(), 1U);
  EXPECT_EQ(four.no_mpi.begin()->first, 300);
  EXPECT_TRUE(ForTarget(both, 0.008).passive.empty());
}

// Two measurements of one size (two targets calibrated alike) and the same
// round numbers: merged, each record still pairs with its own times without
// MPI, so the ratios are 1.1 and 1.2, not a mixture.
TEST(ImpactTargets, MergedMeasurementsNeverPairAcrossEachOther) {
  ImpactMeasurement merged = TwoRounds(0.002, 100, 0.0022, 0.002);
  MergeImpact(&merged, TwoRounds(0.004, 100, 0.0048, 0.004));
  ASSERT_EQ(merged.passive.size(), 4U);
  ASSERT_EQ(merged.no_mpi.at(100).size(), 4U);
  std::vector<const json*> passive;
  for (const json& p : merged.passive) passive.push_back(&p);
  const auto ratios = ImpactRatiosPerRound(passive, merged.no_mpi, 2);
  ASSERT_EQ(ratios.size(), 2U);
  for (double r : ratios.at(0.002)) EXPECT_NEAR(r, 1.1, 1e-9);
  for (double r : ratios.at(0.004)) EXPECT_NEAR(r, 1.2, 1e-9);
  EXPECT_EQ(ratios.at(0.002).size(), 2U);
  EXPECT_EQ(ratios.at(0.004).size(), 2U);
}

}  // namespace
}  // namespace nbcguard
