#include "ctest_measurements.h"

#include <sstream>

namespace nbcguard {

Measurement Measurement::Numeric(const std::string& name, double value) {
  std::ostringstream s;
  s << value;
  return Measurement{name, "numeric/double", s.str()};
}

void PrintCTestMeasurements(std::ostream& out, const std::vector<Measurement>& measurements) {
  for (const Measurement& m : measurements)
    out << "<DartMeasurement type=\"" << m.type << "\" name=\"" << m.name << "\">" << m.value
        << "</DartMeasurement>\n";
}

}  // namespace nbcguard
