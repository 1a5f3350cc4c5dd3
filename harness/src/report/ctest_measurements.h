// <DartMeasurement> lines: values CTest records with a test when they appear
// in its output (and CDash plots night after night).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace nbcguard {

struct Measurement {
  std::string name;
  std::string type = "numeric/double";
  std::string value;  // as printed

  // A number as CTest reads it (%g: six significant digits; nan stays "nan").
  static Measurement Numeric(const std::string& name, double value);
};

// One <DartMeasurement type="..." name="...">value</DartMeasurement> line each.
void PrintCTestMeasurements(std::ostream& out, const std::vector<Measurement>& measurements);

}  // namespace nbcguard
