#include "raw_writer.h"

#include <cerrno>
#include <cstring>

#include "comm.h"

namespace nbcguard {

RawWriter::RawWriter(const std::string& path, bool active) : path_(path) {
  if (active) {
    file_.open(path, std::ios::out | std::ios::trunc);
    if (!file_) Fatal("cannot write " + path + ": " + std::strerror(errno));
  }
}

void RawWriter::Write(std::string_view type, nlohmann::json fields) {
  fields["type"] = std::string(type);
  Write(fields);
}

void RawWriter::Write(const nlohmann::json& record) {
  if (!file_.is_open()) return;
  errno = 0;
  file_ << record.dump() << "\n";
  file_.flush();
  // A record that did not reach the file (a full or read-only file system):
  // the run cannot be reduced from a log with holes, so it stops here, once,
  // saying why, rather than measuring on into a log that keeps nothing.
  if (!file_) {
    const int e = errno;
    Fatal("cannot write " + path_ + ": " + (e != 0 ? std::strerror(e) : "write error"));
  }
}

}  // namespace nbcguard
