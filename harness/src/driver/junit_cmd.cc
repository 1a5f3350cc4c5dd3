#include "junit_cmd.h"

#include <pugixml.hpp>

#include <iostream>
#include <sstream>

#include "nbcguard/driver_common.h"
#include "nbcguard/junit.h"
#include "nbcguard/results_io.h"

namespace nbcguard {
namespace {

// The reason into `message`; CTest's own word for the outcome (if it wrote
// one: a failure's message is often empty) kept in `type`.
void SetReason(pugi::xml_node element, const std::string& reason) {
  if (reason.empty()) return;
  pugi::xml_attribute message = element.attribute("message");
  if (!message) message = element.append_attribute("message");
  if (message.value() == reason) return;  // already rewritten
  if (!element.attribute("type") && *message.value() != '\0')
    element.append_attribute("type") = message.value();
  message = reason.c_str();
}

std::string Output(pugi::xml_node testcase) { return testcase.child("system-out").text().get(); }

bool Inconclusive(pugi::xml_node testcase) {
  return testcase.child("skipped") && !InconclusiveReason(Output(testcase)).empty();
}

int Fail(const std::string& file, const std::string& why) {
  std::cerr << "nbcguard junit: " << file << ": " << why << "\n";
  return kUsage;
}

}  // namespace

int JunitCommand(const std::vector<std::string>& files, const std::string& list, std::ostream& out) {
  for (const std::string& file : files) {
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed =
        doc.load_file(file.c_str(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed)
      return Fail(file, std::string("cannot read it as XML: ") + parsed.description() + " at byte " +
                            std::to_string(parsed.offset));
    // CTest writes one <testsuite>; other writers wrap suites in <testsuites>.
    std::vector<pugi::xml_node> suites;
    for (pugi::xpath_node s : doc.select_nodes("//testsuite")) suites.push_back(s.node());
    if (suites.empty()) return Fail(file, "not a JUnit file (no <testsuite> element)");
    for (pugi::xml_node suite : suites) {
      for (pugi::xml_node test : suite.children("testcase")) {
        const std::string name = test.attribute("name").value();
        pugi::xml_node failure = test.child("failure");
        pugi::xml_node skipped = test.child("skipped");
        if (list == "failed") {
          if (failure) out << name << ": " << FailureReason(Output(test)) << "\n";
        } else if (list == "inconclusive") {
          if (Inconclusive(test)) out << name << ": " << InconclusiveReason(Output(test)) << "\n";
        } else if (failure) {
          SetReason(failure, FailureReason(Output(test)));
        } else if (skipped) {
          SetReason(skipped, SkipReason(Output(test)));
        }
      }
    }
    if (!list.empty()) continue;
    std::ostringstream text;
    doc.save(text, "\t", pugi::format_default, pugi::encoding_utf8);
    const std::string error = WriteFileAtomically(file, text.str());
    if (!error.empty()) return Fail(file, error);
  }
  return kPass;
}

}  // namespace nbcguard
