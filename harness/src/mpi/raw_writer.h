// The raw log (--out): rank 0 appends one JSON object per line and flushes
// it, so completed points survive a hang or a failed rank. Every record
// has a "type"; the driver reads the records by type and field name.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace nbcguard {

class RawWriter {
 public:
  // Only the active writer (rank 0) opens the file; the others drop records.
  RawWriter(const std::string& path, bool active);
  // A record of `type` with `fields` (objects keep their keys sorted, so the
  // line is the same whichever way the fields were put together).
  void Write(std::string_view type, nlohmann::json fields);
  // A record that cannot be written (a full or read-only file system) ends
  // the job: "cannot write <path>: <reason>" on standard error, MPI_Abort.
  void Write(const nlohmann::json& record);

 private:
  std::string path_;
  std::ofstream file_;
};

}  // namespace nbcguard
