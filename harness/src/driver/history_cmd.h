// `nbcguard history`: the results history (docs/history.md).
//   nbcguard history ingest RUN_DIR [--db URL] [--system S] [--revision R] [--date D]
//   nbcguard history runs [--db URL]
//   nbcguard history check [--db URL] [--system S] [--library L] [--recent N] [--json FILE]
//   nbcguard history plot --out DIR [--db URL] [--system S] [--library L]
// --db: sqlite:PATH, a path, or postgresql://...; default $NBCGUARD_HISTORY.
#pragma once

#include <map>
#include <string>

#include "nbcguard/history.h"

namespace nbcguard {

struct HistoryCommandOptions {
  std::string db;        // empty: $NBCGUARD_HISTORY
  std::string run_dir;   // ingest
  std::string system;    // ingest: default $NBCGUARD_SYSTEM or the host name; check: filter ("" = all)
  std::string revision;  // ingest: default $NBCGUARD_MPI_REVISION
  std::string date;      // ingest: default the newest results.json's modification time
  std::string library;   // check: filter
  std::string json_out;  // check: also write the findings as JSON here
  bool verbose = false;  // check: list the series with too few nights too
  std::string out_dir;   // plot: where the pictures and index.html go
  HistoryCheckOptions check;
};

// Exit codes: 0 stored / no new regression, 1 a new regression (check),
// 2 usage, bad input (nothing stored) or database error.
int HistoryIngestCommand(const HistoryCommandOptions& o);
int HistoryRunsCommand(const HistoryCommandOptions& o);
int HistoryCheckCommand(const HistoryCommandOptions& o);
// Exit codes: 0 drawn, 2 usage, no runs stored, database or file error.
int HistoryPlotCommand(const HistoryCommandOptions& o);

// For nbcguard compare: the between-run spread of every series of `system`
// ("" = $NBCGUARD_SYSTEM or the host name, as ingest names it) in the
// history at url. A history file not created yet gives none, which is no
// error. *note says what was loaded, or the database error (then false).
// The history a command was pointed at: `given`, else $NBCGUARD_HISTORY,
// else "" (none).
std::string HistoryUrl(const std::string& given);

bool LoadBetweenRunSpreads(const std::string& url, const std::string& system,
                           std::map<std::string, BetweenRunSpread>* out, std::string* note);

}  // namespace nbcguard
