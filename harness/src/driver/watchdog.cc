#include "watchdog.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace nbcguard {

Watchdog::Watchdog(std::string id, int comp_targets, int comm_targets, int points,
                   std::function<double()> left)
    : left_(std::move(left)), started_(std::chrono::steady_clock::now()) {
  const char* env = std::getenv("NBCGUARD_PROGRESS");
  enabled_ = isatty(STDERR_FILENO) && !(env && std::string(env) == "0");
  state_.id = std::move(id);
  state_.comp_targets = comp_targets;
  state_.comm_targets = comm_targets;
  state_.points = points;
  if (enabled_) thread_ = std::thread([this] { Loop(); });
}

void Watchdog::Stop() {
  if (!enabled_ || !thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  std::fputs("\r\033[K", stderr);  // leave the terminal as the table will need it
  std::fflush(stderr);
}

void Watchdog::Watch(const std::string& raw_path) {
  std::lock_guard<std::mutex> lock(mu_);
  raw_path_ = raw_path;
  offset_ = 0;
  partial_.clear();
}

void Watchdog::ImpactRound(int round, int max_rounds) {
  std::lock_guard<std::mutex> lock(mu_);
  raw_path_.clear();
  state_.impact_round = round;
  state_.impact_max_rounds = max_rounds;
}

// Looks at the records ten times a second, so a phase of a few hundred
// milliseconds still shows, and redraws when the line changes or, for the
// elapsed time, once a second.
void Watchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  std::string shown;
  auto drawn = std::chrono::steady_clock::time_point();
  while (!stop_) {
    ReadNewRecords();
    state_.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    state_.timeout_left = left_ ? left_() : -1;
    const std::string line = FormatProgress(state_);
    const auto now = std::chrono::steady_clock::now();
    if (line != shown || now - drawn >= std::chrono::seconds(1)) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
      shown = line;
      drawn = now;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
  }
}

// Counts the records that mark the run's advance; the harness writes one JSON object
// per line, flushed, so a line without its newline is still being written.
void Watchdog::ReadNewRecords() {
  if (raw_path_.empty()) return;
  std::ifstream f(raw_path_);
  if (!f) return;
  f.seekg(offset_);
  std::string chunk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  offset_ += static_cast<long>(chunk.size());
  partial_ += chunk;
  std::size_t nl;
  while ((nl = partial_.find('\n')) != std::string::npos) {
    const std::string line = partial_.substr(0, nl);
    partial_.erase(0, nl + 1);
    if (line.find("\"type\":\"comp_calibration\"") != std::string::npos) ++state_.comp_done;
    if (line.find("\"type\":\"comm_calibration\"") != std::string::npos) ++state_.comm_done;
    if (line.find("\"type\":\"point\"") != std::string::npos ||
        line.find("\"type\":\"partitioned_point\"") != std::string::npos)
      ++state_.points_done;
  }
  // The grid starts once the last size is calibrated.
  if (state_.grid_started < 0 && state_.comp_done >= state_.comp_targets &&
      state_.comm_done >= state_.comm_targets)
    state_.grid_started = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

}  // namespace nbcguard
