// The watchdog of a running test: follows the harness's raw records and the
// driver's own phases and shows, on stderr for a person at a terminal, the
// phase, grid position, time elapsed and left, redrawn in place as it
// changes (the harness's timeout itself is RunProcess's).
// Silent when stderr is not a terminal (CTest, CI logs, pipes), so logs hold
// results, not carriage returns. NBCGUARD_PROGRESS=0 silences it on a
// terminal too.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "nbcguard/progress.h"

namespace nbcguard {

class Watchdog {
 public:
  // left(): seconds before the test's timeout.
  Watchdog(std::string id, int comp_targets, int comm_targets, int points, std::function<double()> left);
  ~Watchdog() { Stop(); }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Follows the harness's raw records (JSON lines appended as it goes)
  // until the next call of Watch or ImpactRound, or destruction.
  void Watch(const std::string& raw_path);
  // The driver's own phase: r_mpi_impact round (1-based).
  void ImpactRound(int round, int max_rounds);
  // Stops redrawing and clears the line, before the report is printed.
  void Stop();

 private:
  void Loop();
  void ReadNewRecords();

  bool enabled_ = false;
  std::function<double()> left_;
  std::chrono::steady_clock::time_point started_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string raw_path_;
  long offset_ = 0;
  std::string partial_;  // a record not yet ended by its newline
  ProgressState state_;
  std::thread thread_;
};

}  // namespace nbcguard
