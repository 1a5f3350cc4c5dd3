#include "raw_writer.h"

#include "comm.h"

namespace nbcguard {

RawWriter::RawWriter(const std::string& path, bool active) {
  if (active) {
    file_.open(path, std::ios::out | std::ios::trunc);
    if (!file_) Fatal("cannot write " + path);
  }
}

void RawWriter::Write(std::string_view type, nlohmann::json fields) {
  fields["type"] = std::string(type);
  Write(fields);
}

void RawWriter::Write(const nlohmann::json& record) {
  if (!file_.is_open()) return;
  file_ << record.dump() << "\n";
  file_.flush();
}

}  // namespace nbcguard
