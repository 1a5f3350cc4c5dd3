// The results history: what one run contributes (one row per test, grid
// point and ratio), and the check that reads the stored nights of each
// series for persistent changes (nbcguard/changepoint.h). Pure: rows in,
// findings out; storage is the driver's (history_store.h), so the same
// check runs on an SQLite file or a PostgreSQL server.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nbcguard/changepoint.h"
#include "nbcguard/compare.h"

namespace nbcguard {

// One run as the history keeps it (docs/history.md, "What is stored").
struct HistoryRun {
  std::string run_id;            // content hash of its results.json files: the same run twice is one run
  std::string run_date;          // ISO 8601 UTC: orders the nights
  std::string system_name;       // the machine or site
  std::string library;           // implementation label (openmpi, mpich)
  std::string library_version;   // first line of MPI_Get_library_version
  std::string library_revision;  // of the MPI library under test, when given; else ""
  std::string nbcguard_version;
  std::string source;  // the run directory ingested
};

// One ratio's value at one grid point of one test in one run.
struct HistoryObservation {
  std::string test;                   // TestKey::Name(): openmpi.ibcast.n2.basic
  std::string point;                  // PointName: "500us x 2ms", "* x 2ms" for r_mpi_impact
  std::optional<double> comm_target;  // seconds; none for r_mpi_impact
  double comp_target = 0;
  std::string ratio;             // r_overhead, r_comm, r_comp_slowdown, r_mpi_impact
  std::optional<double> median;  // none when not valid
  std::optional<double> lo, hi;  // the run's 95 % interval of the median
  int samples = 0;
  bool valid = false;
  std::string reason;  // why not valid (gate, imbalance, calibration ...)
  // "lower": not valid, but `median` (and lo, hi) were read and are a lower
  // bound of the library's own value: a point whose ranks computed at
  // unequal speeds, which can only have lowered r_overhead and r_comm.
  // "" otherwise.
  std::string bound;
  // With bound "lower": the most the unequal computing can have lowered the
  // ratio, so the library's own value lay in [median, median + hidden].
  std::optional<double> hidden;
  std::string diagnosis;  // the run's, at this point
  std::string reference;  // reference behaviour's name; "" = the library's own progression
  // Which of the run's jobs measured it: 1 the first (results.json), 2 the
  // confirmation job (confirm/), 3 the third (confirm-third/): a later job
  // only where the first refused the point and the later one measured it
  // with no gate or imbalance against it.
  int job = 1;
};

// The rows a parsed results.json contributes (invalid and imbalance-flagged
// points included, valid = false with the reason: they count as refused
// nights, never as values; an imbalance-flagged point's r_overhead and
// r_comm keep their figures as lower bounds, bound = "lower").
std::vector<HistoryObservation> ObservationsOf(const TestResults& t);

// The rows of one run whose first job is `first` and whose later jobs (the
// confirmation job, then the third, as far as they ran) are `later`, in
// order. A night is the run's evidence: a point the first job refused (a
// validity gate, or ranks computing at unequal speeds) that a later job
// measured cleanly gets that job's rows (job 2 or 3), every ratio of the
// point from the same job; every other point, and r_mpi_impact, the first
// job's. The later jobs measured only the points the first could not
// decide, and which job is taken depends on validity alone, never on the
// value read.
std::vector<HistoryObservation> ObservationsOf(const TestResults& first,
                                               const std::vector<TestResults>& later);

// One series' nights, oldest first, as the store returns them.
struct SeriesNight {
  HistoryRun run;
  HistoryObservation obs;
};

struct HistoryCheckOptions {
  ChangePointOptions detect;
  double min_effect_absolute = 0.15;  // r_overhead, r_comm
  double min_effect_relative = 0.10;  // r_comp_slowdown, r_mpi_impact (analysed on log values)
  int recent = 5;                     // a regression fails when it began within the newest `recent` nights
  int max_nights = 60;                // newest nights analysed per series
};

enum class HistoryKind { kRegression, kImprovement, kPending, kOutlier, kBimodal, kDrift };
const char* HistoryKindName(HistoryKind k);  // REGRESSION, IMPROVEMENT, ...

struct HistoryFinding {
  HistoryKind kind = HistoryKind::kRegression;
  std::string system_name, test, point, ratio;
  bool fails = false;    // a regression (or worsening drift) that began among the recent nights
  bool known = false;    // a regression that began before them: listed, not failed
  std::string night;     // run_date of the first night of the change (or the outlier's night)
  std::string revision;  // that night's library revision, or its library version when none
  std::string run_id;
  double before = 0, after = 0;     // levels (ratio units)
  double size = 0, lo = 0, hi = 0;  // after - before (relative ratios: after / before - 1), 95 % interval
  double p = 1;
  int n_before = 0, n_after = 0;  // nights on each level (bimodal: on the low and the high level)
  int floors = 0;                 // of n_after, nights known only from below (bound "lower")
  int needed = 0;                 // pending: nights on the new level its regression needs
  int excursions = 0;             // pending: old nights that had reached the new level and came back
  int switches = 0;               // bimodal: moves between the two levels
  double total = 0;               // drift: the change over the nights analysed (size: per night)
  std::string diagnosis_before, diagnosis_after;
  std::string reference_before, reference_after;  // when they differ: the change is the reference's
  // Other tests whose series is this very measurement (an r_mpi_impact one
  // test measured and others reused): judged once, named here.
  std::vector<std::string> shared_with;
  std::string Line() const;  // one line, starting with the kind
};

struct HistoryReport {
  int runs = 0, series = 0, decided = 0;
  int shared = 0;                      // series that are another test's measurement, judged with it
  int refused_nights = 0;              // invalid or flagged observations, not analysed as values
  int bounded_nights = 0;              // of them, lower bounds a step upward can count (bound "lower")
  int repeated_nights = 0;             // r_mpi_impact nights that reused the previous night's measurement
  std::vector<std::string> undecided;  // "test point ratio: why"
  std::vector<HistoryFinding> findings;
  bool Fails() const;
  std::string Summary() const;  // "history: FAIL: 1 regression(s) ..." / "history: PASS: ..."
};

// The between-run spread of every series (keys: SeriesKey) from its newest
// o.max_nights valid nights: sigma = 1.4826 x the median absolute
// difference of successive nights / sqrt(2), on log values for the
// relative ratios. Successive differences see the night-to-night noise but
// hardly a level shift (one large difference among many); the median keeps
// an outlier night out. Series with fewer than 3 valid nights are left
// out. With several systems in `series`, a key keeps the series with the
// most nights.
std::map<std::string, BetweenRunSpread> BetweenRunSpreads(const std::vector<std::vector<SeriesNight>>& series,
                                                          const HistoryCheckOptions& o);

// One series as its trend picture shows it (nbcguard history plot): the
// nights the check analyses (the newest o.max_nights), refused ones without
// a value; the levels between the changes the check reports, each with the
// series' between-run band; the nights where changes begin and the outlier
// nights; and the check's findings on it. From CheckHistory itself, so the
// picture and the report never disagree.
struct TrendNight {
  std::string date;                      // run_date
  std::string revision;                  // "revision R", or the library version when none was given
  std::optional<double> median, lo, hi;  // none: refused (invalid or flagged), not a value
  bool outlier = false;
};
struct TrendLevel {
  int first = 0, last = 0;  // nights, indexes into TrendSeries::nights, inclusive
  double level = 0;         // median of its valid nights
  double band_lo = 0,
         band_hi = 0;  // level -+ 3 between-run sd (relative ratios: x / exp(3 sd) .. x exp(3 sd))
};
struct TrendSeries {
  std::string system_name, test, point, ratio;
  std::vector<TrendNight> nights;
  std::vector<TrendLevel> levels;  // none when the series is undecided
  std::vector<int> changes;        // nights where a regression, improvement or pending shift begins
  std::vector<HistoryFinding> findings;
  std::string undecided;  // why nothing was decided, or ""
};
std::vector<TrendSeries> Trends(const std::vector<std::vector<SeriesNight>>& series,
                                const HistoryCheckOptions& o);

// `nights` holds every stored observation, grouped by the store into
// series (system, test, point, ratio) and ordered by run_date within each.
HistoryReport CheckHistory(const std::vector<std::vector<SeriesNight>>& series, int runs,
                           const HistoryCheckOptions& o);

}  // namespace nbcguard
