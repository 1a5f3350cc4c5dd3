#include "nbcguard/library_version.h"

#include <gtest/gtest.h>

#include <string>

namespace nbcguard {
namespace {

// Verbatim from MPI_Get_library_version on Debian 12.
const char* const kOpenMpi =
    "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";
const char* const kMpich =
    "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n"
    "MPICH ABI:\t14:2:2\nMPICH Device:\tch4:ofi\nMPICH configure:\t--with-device=ch4:ofi\n";

TEST(LibraryVersionIdentify, OpenMpi) {
  LibraryId id = IdentifyLibrary(kOpenMpi);
  EXPECT_EQ(id.implementation, "openmpi");
  EXPECT_EQ(id.version, "4.1.4");
}

TEST(LibraryVersionIdentify, Mpich) {
  LibraryId id = IdentifyLibrary(kMpich);
  EXPECT_EQ(id.implementation, "mpich");
  EXPECT_EQ(id.version, "4.0.2");
}

TEST(LibraryVersionIdentify, DerivativesAndPrereleases) {
  LibraryId mvapich = IdentifyLibrary(
      "MVAPICH2 Version      :\t2.3.7\nMVAPICH2 Release date :\tWed March 02 22:00:00 EST 2022\n");
  EXPECT_EQ(mvapich.implementation, "mvapich");
  EXPECT_EQ(mvapich.version, "2.3.7");
  LibraryId intel = IdentifyLibrary("Intel(R) MPI Library 2021.5 for Linux* OS\n");
  EXPECT_EQ(intel.implementation, "intelmpi");
  EXPECT_EQ(intel.version, "2021.5");
  LibraryId rc = IdentifyLibrary("Open MPI v5.0.0rc12, package: Open MPI x Distribution");
  EXPECT_EQ(rc.implementation, "openmpi");
  EXPECT_EQ(rc.version, "5.0.0rc12");
}

TEST(LibraryVersionIdentify, UnknownLibrary) {
  LibraryId id = IdentifyLibrary("Some MPI 1.0");
  EXPECT_EQ(id.implementation, "unknown");
  EXPECT_EQ(id.version, "");
  EXPECT_EQ(IdentifyLibrary("").implementation, "unknown");
}

TEST(LibraryVersionIdentify, MissingVersionIsEmpty) {
  LibraryId id = IdentifyLibrary("MPICH Version:\t\n");
  EXPECT_EQ(id.implementation, "mpich");
  EXPECT_EQ(id.version, "");
}

TEST(LibraryVersionCompare, NumericComponentByComponent) {
  EXPECT_EQ(CompareVersions("4.10", "4.9"), 1);
  EXPECT_EQ(CompareVersions("4.9", "4.10"), -1);
  EXPECT_EQ(CompareVersions("4.1.4", "4.1.4"), 0);
  EXPECT_EQ(CompareVersions("4", "4.0.0"), 0);
  EXPECT_EQ(CompareVersions("4.0.1", "4"), 1);
  EXPECT_EQ(CompareVersions("3.99", "4"), -1);
  EXPECT_EQ(CompareVersions("5.0.0rc12", "5.0.0"), 0);
  EXPECT_EQ(CompareVersions("2021.5", "2021.10"), -1);
}

VersionRange Range(const std::string& text) {
  std::string error;
  std::optional<VersionRange> r = VersionRange::Parse(text, &error);
  EXPECT_TRUE(r.has_value()) << text << ": " << error;
  return r.value_or(VersionRange());
}

TEST(VersionRange, ConjunctionOfComparisons) {
  VersionRange r = Range(">=4.0 <5");
  EXPECT_EQ(r.text(), ">=4.0 <5");
  EXPECT_TRUE(r.Contains("4.0"));
  EXPECT_TRUE(r.Contains("4.0.0"));
  EXPECT_TRUE(r.Contains("4.1.4"));
  EXPECT_TRUE(r.Contains("4.99"));
  EXPECT_FALSE(r.Contains("5"));
  EXPECT_FALSE(r.Contains("5.0.1"));
  EXPECT_FALSE(r.Contains("3.9.9"));
}

TEST(VersionRange, EveryOperator) {
  EXPECT_TRUE(Range("==4.1.4").Contains("4.1.4"));
  EXPECT_FALSE(Range("==4.1.4").Contains("4.1.5"));
  EXPECT_TRUE(Range(">4.1").Contains("4.1.1"));
  EXPECT_FALSE(Range(">4.1").Contains("4.1"));
  EXPECT_TRUE(Range("<=4.1").Contains("4.1.0"));
  EXPECT_FALSE(Range("<=4.1").Contains("4.1.1"));
  EXPECT_TRUE(Range("<4.1").Contains("4.0.9"));
  EXPECT_FALSE(Range("<4.1").Contains("4.1"));
}

TEST(VersionRange, SpaceAfterOperatorIsAllowed) {
  VersionRange r = Range(">= 4.0  < 5");
  EXPECT_TRUE(r.Contains("4.5"));
  EXPECT_FALSE(r.Contains("5.1"));
}

TEST(VersionRange, StarMeansAny) {
  EXPECT_TRUE(Range("*").Contains("1.0"));
  EXPECT_TRUE(Range(" * ").Contains("99"));
  EXPECT_TRUE(Range("*").Contains(""));
  EXPECT_TRUE(VersionRange().Contains("3"));
}

// An empty range reads as "every version" by accident: "*" says so.
TEST(VersionRange, EmptyOrBlankIsRefused) {
  for (const char* text : {"", "   ", "\t"}) {
    std::string error;
    EXPECT_FALSE(VersionRange::Parse(text, &error).has_value()) << '"' << text << '"';
    EXPECT_NE(error.find("write \"*\" for every version"), std::string::npos) << error;
  }
}

TEST(VersionRange, UnknownVersionSatisfiesNoConstraint) {
  EXPECT_FALSE(Range(">=0").Contains(""));
  EXPECT_FALSE(Range("<5").Contains("unknown"));
}

TEST(VersionRange, BadRangesSayWhatIsValid) {
  for (const char* bad :
       {"4.0", "=4.0", "~4.0", ">=", ">=4.x", "=>4", ">=4..1", ">=4.", "* <5", ">=v4", "^1.2"}) {
    std::string error;
    EXPECT_FALSE(VersionRange::Parse(bad, &error).has_value()) << bad;
    EXPECT_NE(error.find(std::string("bad version range \"") + bad + "\""), std::string::npos) << error;
    EXPECT_NE(error.find("operators >= > <= < =="), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace nbcguard
