// Bad-file fixtures for the spec parsers (case_spec_test.cc,
// threshold_spec_test.cc). Each fixture states the errors it must produce,
// in file order, in comment lines at its top:
//   # expect: 4:8 unknown key "nodse"
// meaning: an error at line 4, column 8 whose message contains the text.
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "nbcguard/spec_error.h"

namespace nbcguard::testing {

struct ExpectedError {
  int line = 0;
  int column = 0;
  std::string text;
};

// The .yaml files directly in `dir`, sorted; empty when there is none.
inline std::vector<std::string> YamlFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<ExpectedError> ReadExpectations(const std::string& path) {
  static const std::string kTag = "# expect: ";
  std::vector<ExpectedError> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kTag, 0) != 0) continue;
    ExpectedError e;
    std::string rest = line.substr(kTag.size());
    std::size_t colon = rest.find(':');
    std::size_t space = rest.find(' ');
    if (colon == std::string::npos || space == std::string::npos || colon > space) continue;
    e.line = std::stoi(rest.substr(0, colon));
    e.column = std::stoi(rest.substr(colon + 1, space - colon - 1));
    e.text = rest.substr(space + 1);
    out.push_back(e);
  }
  return out;
}

// gtest parameter names: the file stem with only [A-Za-z0-9_].
inline std::string FixtureName(const std::string& path) {
  std::string name = std::filesystem::path(path).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// The errors must be exactly the expected ones, in order.
inline void ExpectErrors(const std::vector<SpecError>& errors, const std::string& path) {
  std::vector<ExpectedError> expected = ReadExpectations(path);
  ASSERT_FALSE(expected.empty()) << path << " has no '# expect: line:column text' line";
  std::string all;
  for (const auto& e : errors) all += "\n  " + e.ToString();
  ASSERT_EQ(errors.size(), expected.size()) << "errors of " << path << ":" << all;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    SCOPED_TRACE(errors[i].ToString());
    EXPECT_EQ(errors[i].where.file, path);
    EXPECT_EQ(errors[i].where.line, expected[i].line);
    EXPECT_EQ(errors[i].where.column, expected[i].column);
    EXPECT_NE(errors[i].message.find(expected[i].text), std::string::npos)
        << "expected the message to contain: " << expected[i].text;
  }
}

// A scratch directory of the running test's own, for files it writes
// (case files, FIFOs); removed at the end.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nbcguard-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  // Writes `text` to the file `name` in the directory; its path.
  std::string Write(const std::string& name, const std::string& text) const {
    std::string path = Path(name);
    std::ofstream(path) << text;
    return path;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace nbcguard::testing
