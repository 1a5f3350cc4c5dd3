// What the pictures show, without drawing anything (docs/method.md, "Showing results"):
// the colour scales of the ratios, the log-scale time axes of the heat-maps,
// the grid of cells, their label text, and the linear axis of the bars. The
// cairo renderer (src/report/plots.cc) and the HTML summary only place what
// this computes, so the choices that decide how a result reads are here,
// where unit tests can pin them down.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace nbcguard::plot {

// sRGB, each channel 0..1.
struct Rgb {
  double r = 0, g = 0, b = 0;
};

// The anchor colours: the same four meanings on every scale.
inline constexpr Rgb kGood{0.102, 0.596, 0.314};     // green: overlap / undisturbed
inline constexpr Rgb kSerial{1.000, 0.851, 0.200};   // yellow: serialized, nothing gained
inline constexpr Rgb kBad{0.843, 0.188, 0.153};      // red: worse than not overlapping
inline constexpr Rgb kBelow{0.192, 0.408, 0.702};    // blue: below the ideal (imprecision)
inline constexpr Rgb kNoValue{0.800, 0.800, 0.800};  // grey: invalid or not measured

// A continuous scale: piecewise-linear between stops (value ascending),
// constant beyond the first and last stop (it saturates, so one outlier
// does not wash out the rest of the picture).
class ColourScale {
 public:
  struct Stop {
    double value;
    Rgb colour;
    std::string label;  // tick text on the colour bar ("1", "≥2": the scale saturates)
  };
  ColourScale(std::string name, std::string legend, std::vector<Stop> stops);

  Rgb At(double v) const;  // kNoValue for NaN
  const std::string& name() const { return name_; }
  const std::string& legend() const { return legend_; }  // what the anchors mean, one line
  const std::vector<Stop>& stops() const { return stops_; }
  double lo() const { return stops_.front().value; }
  double hi() const { return stops_.back().value; }

 private:
  std::string name_, legend_;
  std::vector<Stop> stops_;
};

// r_overhead: blue <= -0.5, green 0, yellow 1, red >= 2.
const ColourScale& OverheadScale();
// r_comm: green 0 (background progress), yellow 1 (all in MPI calls), red >= 2.
const ColourScale& CommScale();
// r_comp_slowdown: blue <= 0.8 (faster than alone: noise), green 1, yellow
// 1.5, red >= 2.
const ColourScale& SlowdownScale();
// r_mpi_impact: blue <= 0.9, green 1, yellow 1.1, red >= 1.3 (the diagnosis
// calls an impact from 1.05).
const ColourScale& ImpactScale();

// Black or white, whichever reads better on the background (WCAG relative
// luminance).
Rgb TextColourOn(Rgb background);
// "#1a9850".
std::string ToHex(Rgb c);
// The colour mixed with white: amount 0 = the colour, 1 = white.
Rgb Tint(Rgb c, double amount);

// A ratio as results.json gives it (median and confidence interval of the
// median); NaN where the file has null.
struct Ratio {
  double median = NAN, lo = NAN, hi = NAN;
  bool present() const { return std::isfinite(median); }
};

// One grid point of a results.json.
struct Point {
  double comm = 0, comp = 0;  // target times, seconds
  bool valid = false;
  std::string invalid_reason, diagnosis;
  Ratio overhead, comm_ratio, slowdown, impact;
  // CPU-busy fractions of the point's communication row (absent from
  // results written before they existed: NaN). Shown in tables, not drawn.
  Ratio cpu_nbc, cpu_blocking;
  // The collective alone at the calibrated size (absent from results
  // written before it existed: NaN): bytes per rank, time (s) and bandwidth
  // (B/s), each median [CI]. Shown in tables, not drawn.
  double bytes_per_rank = NAN;
  Ratio time, bandwidth;
};

enum class Metric { kOverhead, kComm, kSlowdown, kImpact };
const char* MetricName(Metric m);  // "r_overhead", ...
const Ratio& Get(const Point& p, Metric m);
const ColourScale& ScaleOf(Metric m);

// What a heat-map cell shows.
enum class CellKind {
  kValue,        // coloured by the median
  kInvalid,      // the point is invalid: hatched grey, "invalid"
  kNoValue,      // valid point, but this ratio was not measured: grey, "n/a"
  kNotMeasured,  // no point at this grid position (run cut short): blank
};
CellKind KindOf(const Point* p, Metric m);  // p null = no point there

// "0.97", "12.3", "-0.15", "123"; "-" for NaN. Three significant digits at
// most, two decimals at most: enough to compare with a threshold.
std::string FormatRatio(double v);
// "[0.91, 1.04]", or empty when either end is missing.
std::string FormatInterval(double lo, double hi);
// The text of a cell: first line big, second line small (may be empty).
struct CellText {
  std::string main, detail;
};
CellText CellLabel(const Point* p, Metric m);

// A logarithmic axis for a few distinct time values: one cell per value,
// cell edges at the geometric midpoints between neighbours, outer cells as
// wide (in log) as their inner neighbour; a single value gets a cell one
// `default_factor` wide. Ticks are at the cell centres, labelled with the
// target times ("500us", "2ms").
struct LogAxis {
  std::vector<double> values;  // ascending, distinct
  std::vector<double> edges;   // values.size() + 1, ascending
  std::vector<std::string> labels;
  double lo() const { return edges.front(); }
  double hi() const { return edges.back(); }
  double Decades() const;           // log10(hi / lo)
  double Fraction(double v) const;  // 0 at lo, 1 at hi, on the log scale
  int IndexOf(double v) const;      // index of the value within relative 1e-6, or -1
};
LogAxis MakeLogAxis(std::vector<double> values, double default_factor = 4.0);

// One scale for both axes (docs/method.md, "Showing results": the same log scale): pixels
// per decade so that both axes fit within max_w x max_h, but never smaller
// than needed for the narrowest cell to be min_cell pixels (the picture
// grows instead), nor larger than max_ppd (a one-point grid is not a
// billboard).
double PixelsPerDecade(const LogAxis& x, const LogAxis& y, double max_w, double max_h, double min_cell,
                       double max_ppd);

// The heat-map grid: cell (row, col) = comp axis index, comm axis index.
struct Grid {
  LogAxis comm, comp;
  std::vector<std::vector<int>> cell;  // [comp][comm] -> index into points, or -1
};
// Axes from the points' targets plus the planned grid (extra_*: the
// environment's comm_targets / comp_targets), so points a failed run never
// measured still have their place.
Grid MakeGrid(const std::vector<Point>& points, const std::vector<double>& extra_comm = {},
              const std::vector<double>& extra_comp = {});

// Which of several labels along an axis to draw so none overlaps: label i
// is centred at centres[i] and is widths[i] wide; the first is always
// kept, then every next one that keeps gap pixels from the last kept one.
std::vector<std::size_t> ThinLabels(const std::vector<double>& centres, const std::vector<double>& widths,
                                    double gap);

// A linear axis with round ticks (1, 2, 2.5 or 5 times a power of ten)
// covering [lo, hi] with at most max_ticks ticks.
struct LinearAxis {
  double lo = 0, hi = 1, step = 0.5;
  std::vector<double> ticks;
  double Fraction(double v) const { return (v - lo) / (hi - lo); }
};
LinearAxis NiceLinearAxis(double lo, double hi, int max_ticks = 6);

// One bar of the r_mpi_impact chart (per computation time).
struct ImpactBar {
  double comp = 0;
  Ratio impact;
  std::string error;  // why there is no ratio, if there is none
};
// The y range of the bars: from 0 (bars start at 0, so their heights
// compare honestly) to above every interval end and above the line at 1.
LinearAxis ImpactAxis(const std::vector<ImpactBar>& bars);

// ---- Text of the run summary (nbcguard summary) ----

// Safe inside HTML element content and quoted attribute values.
std::string HtmlEscape(const std::string& s);
// A relative path (generic form, '/' separators) made safe for a URL:
// bytes outside the unreserved set and '/' are percent-encoded.
std::string UrlPath(const std::string& generic_path);
// One cell of a Markdown table: line breaks folded to spaces, '|' and the
// characters that start markup ('*', '`', '<', '\') backslash-escaped.
std::string MarkdownCell(const std::string& s);
// At most max_chars characters (UTF-8 aware), the last one an ellipsis when
// cut.
std::string Ellipsize(const std::string& s, std::size_t max_chars);
// Characters (not bytes) of UTF-8 text: column widths of a terminal table.
std::size_t Utf8Length(const std::string& s);

}  // namespace nbcguard::plot
