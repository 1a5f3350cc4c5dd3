#include "trends.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "draw.h"
#include "nbcguard/plot_model.h"

namespace nbcguard::report {

namespace fs = std::filesystem;
using namespace draw;  // NOLINT(google-build-using-namespace): the drawing vocabulary

namespace {

constexpr double kWidth = 780, kHeight = 340;
constexpr double kLeft = 64, kRight = kWidth - 24, kTop = 74, kBottom = kHeight - 66;
constexpr Rgb kBand{0.86, 0.91, 0.97};
constexpr Rgb kLevel{0.19, 0.41, 0.70};
constexpr Rgb kGrid{0.90, 0.90, 0.90};
constexpr Rgb kWhisker{0.60, 0.60, 0.60};

std::string Subtitle(const TrendSeries& t) {
  if (!t.undecided.empty()) return "undecided: " + t.undecided.substr(t.undecided.rfind(": ") + 2);
  if (t.findings.empty())
    return "no change beyond the between-run band over " + std::to_string(t.nights.size()) + " night(s)";
  std::string s;
  for (const HistoryFinding& f : t.findings) s += (s.empty() ? "" : "; ") + f.Line();
  return s;
}

// The y range: every value, interval and band drawn, with a margin.
plot::LinearAxis YAxis(const TrendSeries& t) {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  const auto take = [&](double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  for (const TrendNight& n : t.nights) {
    if (n.median) take(*n.median);
    if (n.lo) take(*n.lo);
    if (n.hi) take(*n.hi);
  }
  for (const TrendLevel& l : t.levels) take(l.band_lo), take(l.band_hi);
  if (!(lo <= hi)) lo = 0, hi = 1;
  if (hi - lo < 1e-6) lo -= 0.1, hi += 0.1;
  const double pad = 0.05 * (hi - lo);
  return plot::NiceLinearAxis(lo - pad, hi + pad);
}

void Paint(cairo_t* cr, const TrendSeries& t) {
  const plot::LinearAxis y = YAxis(t);
  const std::size_t n = t.nights.size();
  const double step = (kRight - kLeft) / static_cast<double>(std::max<std::size_t>(n, 1));
  const auto xs = [&](double i) { return kLeft + (i + 0.5) * step; };
  const auto ys = [&](double v) {
    return kBottom - y.Fraction(std::clamp(v, y.lo, y.hi)) * (kBottom - kTop);
  };

  Text(cr, kMargin, 20, Fit(cr, t.test + "   " + t.point + "   " + t.ratio, 14, true, kWidth - 2 * kMargin),
       14, Align::kLeft, true);
  const std::vector<std::string> sub = Wrap(cr, Subtitle(t), 10.5, kWidth - 2 * kMargin, 2);
  for (std::size_t i = 0; i < sub.size(); ++i)
    Text(cr, kMargin, 40 + 14 * static_cast<double>(i), sub[i], 10.5, Align::kLeft, false,
         t.findings.empty() ? kMuted : kInk);

  // Grid and y labels.
  cairo_set_line_width(cr, 1);
  for (double v : y.ticks) {
    SetColour(cr, kGrid);
    cairo_move_to(cr, kLeft, std::round(ys(v)) + 0.5);
    cairo_line_to(cr, kRight, std::round(ys(v)) + 0.5);
    cairo_stroke(cr);
    Text(cr, kLeft - 6, ys(v), plot::FormatRatio(v), 10, Align::kRight, false, kMuted);
  }
  // Levels with their between-run band.
  for (const TrendLevel& l : t.levels) {
    const double x0 = xs(l.first) - step / 2, x1 = xs(l.last) + step / 2;
    FillRect(cr, x0, ys(l.band_hi), x1 - x0, ys(l.band_lo) - ys(l.band_hi), kBand);
    SetColour(cr, kLevel);
    cairo_set_line_width(cr, 1.5);
    cairo_move_to(cr, x0, ys(l.level));
    cairo_line_to(cr, x1, ys(l.level));
    cairo_stroke(cr);
  }
  // The nights: interval, median; outliers ringed; refused nights crossed at the bottom.
  for (std::size_t i = 0; i < n; ++i) {
    const TrendNight& night = t.nights[i];
    const double x = xs(static_cast<double>(i));
    if (!night.median) {
      SetColour(cr, kWhisker);
      cairo_set_line_width(cr, 1.2);
      cairo_move_to(cr, x - 3, kBottom - 9);
      cairo_line_to(cr, x + 3, kBottom - 3);
      cairo_move_to(cr, x + 3, kBottom - 9);
      cairo_line_to(cr, x - 3, kBottom - 3);
      cairo_stroke(cr);
      continue;
    }
    if (night.lo && night.hi) {
      SetColour(cr, kWhisker);
      cairo_set_line_width(cr, 1);
      cairo_move_to(cr, x, ys(*night.lo));
      cairo_line_to(cr, x, ys(*night.hi));
      cairo_stroke(cr);
    }
    SetColour(cr, kInk);
    cairo_arc(cr, x, ys(*night.median), 2.8, 0, 2 * M_PI);
    cairo_fill(cr);
    if (night.outlier) {
      SetColour(cr, kFailInk);
      cairo_set_line_width(cr, 1.5);
      cairo_arc(cr, x, ys(*night.median), 6, 0, 2 * M_PI);
      cairo_stroke(cr);
    }
  }
  // Where changes begin: a dashed line before the night, with its revision.
  const double dash[] = {5, 3};
  for (int c : t.changes) {
    const double x = xs(c) - step / 2;
    cairo_save(cr);
    SetColour(cr, kFailInk);
    cairo_set_line_width(cr, 1.5);
    cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, x, kTop);
    cairo_line_to(cr, x, kBottom);
    cairo_stroke(cr);
    cairo_restore(cr);
    const std::string rev = Fit(cr, t.nights[static_cast<std::size_t>(c)].revision, 9, false, 180);
    Text(cr, std::min(x + 3, kRight - Width(cr, rev, 9)), kTop - 10, rev, 9, Align::kLeft, false, kFailInk);
  }
  // Frame and the nights' dates, at most about 10 labels.
  SetColour(cr, kFrame);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, kLeft + 0.5, kTop + 0.5, kRight - kLeft - 1, kBottom - kTop - 1);
  cairo_stroke(cr);
  const std::size_t every = std::max<std::size_t>(1, (n + 9) / 10);
  for (std::size_t i = 0; i < n; i += every) {
    const std::string& d = t.nights[i].date;
    Text(cr, xs(static_cast<double>(i)), kBottom + 12, d.size() >= 10 ? d.substr(5, 5) : d, 9.5,
         Align::kCentre, false, kMuted);
  }
  Text(cr, kLeft, kBottom + 32,
       "dot: the night's median [95 % interval]; band: the level +- 3 between-run sd; red dashes: a change "
       "begins (its revision);",
       9.5, Align::kLeft, false, kMuted);
  Text(cr, kLeft, kBottom + 46, "red ring: outlier night; x: night refused (invalid or flagged), not a value",
       9.5, Align::kLeft, false, kMuted);
}

}  // namespace

std::vector<fs::path> RenderTrend(const TrendSeries& t, const fs::path& stem, std::string* error) {
  const Figure f{kWidth, kHeight, [&t](cairo_t* cr) { Paint(cr, t); }};
  std::vector<fs::path> written;
  const fs::path png = fs::path(stem.string() + ".png"), svg = fs::path(stem.string() + ".svg");
  if (!WritePng(f, png, error)) return written;
  written.push_back(png);
  if (!WriteSvg(f, svg, error)) return written;
  written.push_back(svg);
  return written;
}

}  // namespace nbcguard::report
