#include "plots.h"

#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "draw.h"
#include "nbcguard/plot_model.h"
#include "nbcguard/units.h"
#include "results_view.h"

namespace nbcguard::report {

namespace fs = std::filesystem;
using plot::Rgb;

using namespace draw;  // NOLINT(google-build-using-namespace): the drawing vocabulary

namespace {

// ------------------------------------------------------------ header --

// The lines above every picture: what, where, with which library, and
// loudly when a reference behaviour produced the figures.
struct Header {
  std::string title, library, reference;
  // Title at +8, library line 22 below, the reference warning 20 below that,
  // then room before the picture.
  double Height() const { return kMargin + 8 + 22 + (reference.empty() ? 0 : 20) + 26; }
  double Width(cairo_t* cr) const {
    return std::max({report::Width(cr, title, 16, true), report::Width(cr, library, 12),
                     report::Width(cr, reference, 13, true)});
  }
  void Draw(cairo_t* cr, double width) const {
    const double max_w = width - 2 * kMargin;
    double y = kMargin + 8;
    Text(cr, kMargin, y, Fit(cr, title, 16, true, max_w), 16, Align::kLeft, true);
    y += 22;
    Text(cr, kMargin, y, Fit(cr, library, 12, false, max_w), 12, Align::kLeft, false, kMuted);
    if (!reference.empty()) {
      y += 20;
      Text(cr, kMargin, y, Fit(cr, reference, 13, true, max_w), 13, Align::kLeft, true, kFailInk);
    }
  }
};

Header MakeHeader(const CaseView& v, const std::string& what) {
  Header h;
  h.title = what + " \xE2\x80\x94 " + v.Title();
  h.library = v.library + (v.implementation.empty() ? "" : "  [" + v.implementation + "]");
  if (!v.reference.empty())
    h.reference = "REFERENCE " + v.reference + ": a reference behaviour replaced the library's progression";
  return h;
}

// The verdict line at the bottom: a picture copied out of its context still
// says how the test ended.
void DrawVerdict(cairo_t* cr, const CaseView& v, double y, double width) {
  const std::string s =
      "verdict: " + v.status +
      (v.status == v.verdict_summary.substr(0, v.status.size()) ? v.verdict_summary.substr(v.status.size())
                                                                : " (" + v.verdict_summary + ")");
  Text(cr, kMargin, y, Fit(cr, s, 12, true, width - 2 * kMargin), 12, Align::kLeft, true,
       v.pass           ? kPassInk
       : v.inconclusive ? kUndecidedInk
                        : kFailInk);
}

// ----------------------------------------------------------- heat-map --

constexpr double kTickFont = 12, kAxisFont = 12, kBarWidth = 18;

// One heat-map with its axes and colour bar, placed at (x, y).
struct Panel {
  const CaseView* view = nullptr;
  const plot::Grid* grid = nullptr;
  plot::Metric metric = plot::Metric::kOverhead;
  std::string caption;  // above the panel, empty = none
  double ppd = 0;       // pixels per decade, both axes

  double y_ticks_w = 0, bar_labels_w = 0;
  void Measure(cairo_t* cr) {
    y_ticks_w = 0;
    for (const std::string& l : grid->comp.labels) y_ticks_w = std::max(y_ticks_w, Width(cr, l, kTickFont));
    bar_labels_w = 0;
    for (const auto& s : plot::ScaleOf(metric).stops())
      bar_labels_w = std::max(bar_labels_w, Width(cr, s.label, 11));
  }
  double CaptionH() const { return caption.empty() ? 0 : 24; }
  double Left() const { return 22 + y_ticks_w + 8; }  // y axis title, tick labels, tick marks
  double PlotW() const { return grid->comm.Decades() * ppd; }
  double PlotH() const { return grid->comp.Decades() * ppd; }
  double BarH() const { return std::max(PlotH(), 200.0); }
  double BarBlockW() const { return 28 + kBarWidth + 6 + bar_labels_w + 10 + 16; }
  double W() const { return Left() + PlotW() + BarBlockW(); }
  double H() const { return CaptionH() + std::max(PlotH() + 8 + 18 + 22, BarH()); }

  void Draw(cairo_t* cr, double x, double y) const {
    const plot::LogAxis& cx = grid->comm;
    const plot::LogAxis& cy = grid->comp;
    if (!caption.empty()) Text(cr, x + Left(), y + 10, caption, 14, Align::kLeft, true);
    const double px = x + Left(), py = y + CaptionH(), pw = PlotW(), ph = PlotH();
    auto X = [&](double t) { return px + std::log10(t / cx.lo()) * ppd; };
    auto Y = [&](double t) { return py + ph - std::log10(t / cy.lo()) * ppd; };

    // Cells.
    for (std::size_t r = 0; r < cy.values.size(); ++r) {
      for (std::size_t c = 0; c < cx.values.size(); ++c) {
        const int idx = grid->cell[r][c];
        const plot::Point* p = idx >= 0 ? &view->points[idx] : nullptr;
        const double x0 = X(cx.edges[c]), x1 = X(cx.edges[c + 1]);
        const double y0 = Y(cy.edges[r + 1]), y1 = Y(cy.edges[r]);
        // A white seam between cells keeps two cells of nearly the same
        // colour apart.
        const double cxl = x0 + 1, cyt = y0 + 1, cw = x1 - x0 - 2, ch = y1 - y0 - 2;
        const plot::CellKind kind = plot::KindOf(p, metric);
        Rgb ink = kInk;
        switch (kind) {
          case plot::CellKind::kValue: {
            const Rgb bg = plot::ScaleOf(metric).At(plot::Get(*p, metric).median);
            FillRect(cr, cxl, cyt, cw, ch, bg);
            ink = plot::TextColourOn(bg);
            break;
          }
          case plot::CellKind::kInvalid:
            Hatch(cr, cxl, cyt, cw, ch);
            break;
          case plot::CellKind::kNoValue:
            FillRect(cr, cxl, cyt, cw, ch, plot::kNoValue);
            break;
          case plot::CellKind::kNotMeasured:
            DashedRect(cr, cxl, cyt, cw, ch);
            ink = kMuted;
            break;
        }
        const plot::CellText label = plot::CellLabel(p, metric);
        double main = std::clamp(std::min(cw, ch) * 0.2, 10.0, 22.0);
        const bool word = kind != plot::CellKind::kValue;
        if (word) main = std::min(main, 13.0);
        while (main > 8 && Width(cr, label.main, main, !word) > cw - 6) main -= 0.5;
        double detail = std::max(8.5, main * 0.55);
        const bool show_detail = !label.detail.empty() && ch >= main * 1.25 + detail * 1.25 + 10 &&
                                 Width(cr, label.detail, detail) <= cw - 6;
        const double mid = cyt + ch / 2;
        if (show_detail) {
          const double total = main * 1.05 + detail * 1.2;
          Text(cr, cxl + cw / 2, mid - total / 2 + main * 0.5, label.main, main, Align::kCentre, !word, ink);
          Text(cr, cxl + cw / 2, mid + total / 2 - detail * 0.5, label.detail, detail, Align::kCentre, false,
               ink);
        } else {
          // Text on the hatch gets a white plate so "invalid" stays legible.
          if (kind == plot::CellKind::kInvalid) {
            const double tw = Width(cr, label.main, main) + 8;
            FillRect(cr, cxl + cw / 2 - tw / 2, mid - main * 0.75, tw, main * 1.5, {1, 1, 1});
          }
          Text(cr, cxl + cw / 2, mid, label.main, main, Align::kCentre, !word, ink);
        }
      }
    }
    SetColour(cr, kFrame);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, std::round(px) - 0.5, std::round(py) - 0.5, std::round(pw) + 1, std::round(ph) + 1);
    cairo_stroke(cr);

    // Ticks at the cell centres, labels thinned so none overlaps.
    std::vector<double> centres, widths;
    for (std::size_t i = 0; i < cx.values.size(); ++i) {
      centres.push_back(X(cx.values[i]));
      widths.push_back(Width(cr, cx.labels[i], kTickFont));
    }
    for (std::size_t i : plot::ThinLabels(centres, widths, 6)) {
      SetColour(cr, kFrame);
      cairo_move_to(cr, centres[i], py + ph);
      cairo_line_to(cr, centres[i], py + ph + 5);
      cairo_stroke(cr);
      Text(cr, centres[i], py + ph + 14, cx.labels[i], kTickFont, Align::kCentre);
    }
    Text(cr, px + pw / 2, py + ph + 36, "communication time (target)", kAxisFont, Align::kCentre, false,
         kMuted);
    centres.clear();
    widths.clear();
    for (std::size_t i = 0; i < cy.values.size(); ++i) {
      centres.push_back(Y(cy.values[i]));
      widths.push_back(kTickFont);  // stacked labels: their height is what may overlap
    }
    for (std::size_t i : plot::ThinLabels(centres, widths, 4)) {
      SetColour(cr, kFrame);
      cairo_move_to(cr, px - 5, centres[i]);
      cairo_line_to(cr, px, centres[i]);
      cairo_stroke(cr);
      Text(cr, px - 8, centres[i], cy.labels[i], kTickFont, Align::kRight);
    }
    cairo_save(cr);
    SetColour(cr, kMuted);
    VerticalText(cr, x + 9, py + ph / 2, "computation time (target)", kAxisFont);
    cairo_restore(cr);

    DrawColourBar(cr, px + pw + 28, py);
  }

  // The scale as a gradient with a tick per stop, bottom = lowest value.
  void DrawColourBar(cairo_t* cr, double bx, double by) const {
    const plot::ColourScale& s = plot::ScaleOf(metric);
    const double bh = BarH();
    auto Yv = [&](double v) { return by + bh - (v - s.lo()) / (s.hi() - s.lo()) * bh; };
    cairo_pattern_t* g = cairo_pattern_create_linear(0, by + bh, 0, by);
    for (const auto& st : s.stops())
      cairo_pattern_add_color_stop_rgb(g, (st.value - s.lo()) / (s.hi() - s.lo()), st.colour.r, st.colour.g,
                                       st.colour.b);
    cairo_rectangle(cr, bx, by, kBarWidth, bh);
    cairo_set_source(cr, g);
    cairo_fill(cr);
    cairo_pattern_destroy(g);
    SetColour(cr, kFrame);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, bx - 0.5, by - 0.5, kBarWidth + 1, bh + 1);
    cairo_stroke(cr);
    for (const auto& st : s.stops()) {
      const double ty = std::round(Yv(st.value)) + 0.5;
      SetColour(cr, kInk);
      cairo_move_to(cr, bx + kBarWidth, ty);
      cairo_line_to(cr, bx + kBarWidth + 4, ty);
      cairo_stroke(cr);
      Text(cr, bx + kBarWidth + 6, ty, st.label, 11);
    }
    // Where this test's values sit on the scale: a short mark per cell.
    for (const plot::Point& p : view->points) {
      if (plot::KindOf(&p, metric) != plot::CellKind::kValue) continue;
      const double v = std::clamp(plot::Get(p, metric).median, s.lo(), s.hi());
      const double ty = std::round(Yv(v)) + 0.5;
      SetColour(cr, kInk);
      cairo_set_line_width(cr, 1.5);
      cairo_move_to(cr, bx - 6, ty);
      cairo_line_to(cr, bx, ty);
      cairo_stroke(cr);
    }
    cairo_set_line_width(cr, 1);
    cairo_save(cr);
    SetColour(cr, kInk);
    VerticalText(cr, bx + kBarWidth + 6 + bar_labels_w + 18, by + bh / 2, std::string(s.name()) + " (median)",
                 12, true);
    cairo_restore(cr);
  }
};

// The key below heat-maps: what the grey cells and the marks mean, and how
// to read each scale.
// Invalid points' reasons too: a picture shown alone (CDash) must say why a
// cell is grey. The same reason for many points is listed once.
std::vector<std::string> HeatmapKey(const CaseView& v, const std::vector<plot::Metric>& metrics) {
  std::vector<std::string> lines;
  lines.reserve(metrics.size());
  for (plot::Metric m : metrics)
    lines.push_back(std::string(plot::MetricName(m)) + ": " + plot::ScaleOf(m).legend());
  std::vector<std::string> reasons;
  std::size_t invalid = 0;
  for (const plot::Point& p : v.points) {
    if (p.valid) continue;
    ++invalid;
    const std::string r = p.invalid_reason.empty() ? "no reason recorded" : p.invalid_reason;
    if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
  }
  constexpr std::size_t kMaxReasons = 3;
  for (std::size_t i = 0; i < reasons.size() && i < kMaxReasons; ++i)
    lines.push_back((i == 0 ? "invalid (" + std::to_string(invalid) + "): " : "invalid: ") + reasons[i]);
  if (reasons.size() > kMaxReasons)
    lines.push_back("invalid: " + std::to_string(reasons.size() - kMaxReasons) +
                    " more reason(s) in results.json");
  return lines;
}

double KeyHeight(std::size_t lines) { return 26 + 17.0 * (lines + 1); }

void DrawKey(cairo_t* cr, std::vector<std::string> lines, double y, double width) {
  const double max_w = width - 2 * kMargin;
  double x = kMargin;
  Hatch(cr, x, y, 22, 14);
  Text(cr, x + 28, y + 7, "invalid point", 11, Align::kLeft, false, kMuted);
  x += 28 + Width(cr, "invalid point", 11) + 18;
  DashedRect(cr, x, y, 22, 14);
  Text(cr, x + 28, y + 7, "not measured", 11, Align::kLeft, false, kMuted);
  x += 28 + Width(cr, "not measured", 11) + 18;
  Text(cr, x, y + 7, Fit(cr, "cell: median [confidence interval]", 11, false, kMargin + max_w - x), 11,
       Align::kLeft, false, kMuted);
  y += 26;
  lines.insert(lines.begin(), "marks left of a colour bar: where this test's cells sit on its scale");
  for (const std::string& l : lines) {
    Text(cr, kMargin, y, Fit(cr, l, 11, false, max_w), 11, Align::kLeft, false, kMuted);
    y += 17;
  }
}

double PpdFor(const plot::Grid& g, double max_w, double max_h) {
  return plot::PixelsPerDecade(g.comm, g.comp, max_w, max_h, 64, 400);
}

Figure HeatmapFigure(cairo_t* m, const CaseView& v, const plot::Grid& grid,
                     const std::vector<plot::Metric>& metrics) {
  const bool pair = metrics.size() > 1;
  // The pair shares one scale and the width with each other.
  const double ppd = PpdFor(grid, pair ? 400 : 560, 480);
  auto panels = std::make_shared<std::vector<Panel>>();
  for (plot::Metric mt : metrics) {
    Panel p;
    p.view = &v;
    p.grid = &grid;
    p.metric = mt;
    p.ppd = ppd;
    if (pair) p.caption = plot::MetricName(mt);
    p.Measure(m);
    panels->push_back(p);
  }
  const Header header = MakeHeader(v, pair ? "r_comm and r_comp_slowdown" : "r_overhead");
  double content_w = 0, panel_h = 0;
  for (const Panel& p : *panels) {
    content_w += p.W() + (content_w > 0 ? 24 : 0);
    panel_h = std::max(panel_h, p.H());
  }
  Figure f;
  f.w = std::max({content_w + 2 * kMargin, std::min(header.Width(m) + 2 * kMargin, 1000.0), 640.0});
  std::vector<std::string> key;
  for (const std::string& l : HeatmapKey(v, metrics))
    for (std::string& w : Wrap(m, l, 11, f.w - 2 * kMargin, 2)) key.push_back(std::move(w));
  f.h = header.Height() + panel_h + 12 + KeyHeight(key.size()) + 26 + kMargin;
  f.paint = [&v, panels, header, key, f_w = f.w, panel_h, content_w](cairo_t* cr) {
    header.Draw(cr, f_w);
    // A narrow grid under a long title sits in the middle, not at the left.
    double x = std::max(kMargin, (f_w - content_w) / 2);
    const double y = header.Height();
    for (const Panel& p : *panels) {
      p.Draw(cr, x, y);
      x += p.W() + 24;
    }
    DrawKey(cr, key, y + panel_h + 12, f_w);
    DrawVerdict(cr, v, y + panel_h + 12 + KeyHeight(key.size()) + 10, f_w);
  };
  return f;
}

// --------------------------------------------------------------- bars --

// The plot area of the r_mpi_impact bars: where a ratio lands.
struct ImpactArea {
  double px, py, ph, w;
  plot::LinearAxis axis;
  double Y(double r) const { return py + ph - axis.Fraction(r) * ph; }
};

// Grid lines, y ticks and the y label.
void DrawImpactGrid(cairo_t* cr, const ImpactArea& a) {
  cairo_set_line_width(cr, 1);
  for (double t : a.axis.ticks) {
    const double ty = std::round(a.Y(t)) + 0.5;
    SetColour(cr, {0.90, 0.90, 0.90});
    cairo_move_to(cr, a.px, ty);
    cairo_line_to(cr, a.px + a.w, ty);
    cairo_stroke(cr);
    Text(cr, a.px - 8, ty, plot::FormatRatio(t), kTickFont, Align::kRight);
  }
  cairo_save(cr);
  SetColour(cr, kMuted);
  VerticalText(cr, kMargin + 9, a.py + a.ph / 2, "r_mpi_impact (idle MPI / no MPI)", kAxisFont);
  cairo_restore(cr);
}

// One bar centred on cx, bw wide: the median, its interval as a whisker,
// both as text above; a dashed outline where there is no ratio.
void DrawImpactBar(cairo_t* cr, const ImpactArea& a, const plot::ImpactBar& b, double cx, double bw) {
  Text(cr, cx, a.py + a.ph + 14, FormatDuration(b.comp), kTickFont, Align::kCentre);
  if (!b.impact.present()) {
    DashedRect(cr, cx - bw / 2, a.Y(1), bw, a.Y(0) - a.Y(1));
    Text(cr, cx, (a.Y(0) + a.Y(1)) / 2, "no ratio", 11, Align::kCentre, false, kMuted);
    return;
  }
  const Rgb fill = plot::ImpactScale().At(b.impact.median);
  FillRect(cr, cx - bw / 2, a.Y(b.impact.median), bw, a.Y(0) - a.Y(b.impact.median), fill);
  double label_top = a.Y(b.impact.median);
  if (std::isfinite(b.impact.lo) && std::isfinite(b.impact.hi)) {
    SetColour(cr, kInk);
    cairo_set_line_width(cr, 1.5);
    cairo_move_to(cr, cx, a.Y(b.impact.lo));
    cairo_line_to(cr, cx, a.Y(b.impact.hi));
    for (double e : {b.impact.lo, b.impact.hi}) {
      cairo_move_to(cr, cx - 9, a.Y(e));
      cairo_line_to(cr, cx + 9, a.Y(e));
    }
    cairo_stroke(cr);
    label_top = std::min(label_top, a.Y(b.impact.hi));
  }
  Text(cr, cx, label_top - 22, plot::FormatRatio(b.impact.median), 13, Align::kCentre, true);
  Text(cr, cx, label_top - 8, plot::FormatInterval(b.impact.lo, b.impact.hi), 10, Align::kCentre, false,
       kMuted);
}

// The line at 1 (no impact), drawn over the bars so it reads through them,
// the frame and the x label.
void DrawImpactAxes(cairo_t* cr, const ImpactArea& a) {
  const double one = std::round(a.Y(1)) + 0.5;
  const double dash[] = {6, 4};
  cairo_save(cr);
  SetColour(cr, kInk);
  cairo_set_line_width(cr, 1.5);
  cairo_set_dash(cr, dash, 2, 0);
  cairo_move_to(cr, a.px, one);
  cairo_line_to(cr, a.px + a.w, one);
  cairo_stroke(cr);
  cairo_restore(cr);
  SetColour(cr, kFrame);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, a.px + 0.5, a.py);
  cairo_line_to(cr, a.px + 0.5, a.py + a.ph + 0.5);
  cairo_line_to(cr, a.px + a.w, a.py + a.ph + 0.5);
  cairo_stroke(cr);
  Text(cr, a.px + a.w / 2, a.py + a.ph + 36, "computation time (target)", kAxisFont, Align::kCentre, false,
       kMuted);
}

Figure ImpactFigure(cairo_t* m, const CaseView& v) {
  const Header header = MakeHeader(v, "r_mpi_impact");
  auto bars = std::make_shared<std::vector<plot::ImpactBar>>(v.impact);
  const plot::LinearAxis axis = plot::ImpactAxis(*bars);
  constexpr double kSlot = 120, kPlotH = 300;
  double tick_w = 0;
  for (double t : axis.ticks) tick_w = std::max(tick_w, Width(m, plot::FormatRatio(t), kTickFont));
  const double left = kMargin + 22 + tick_w + 8;
  double plot_w = std::max(kSlot * std::max<std::size_t>(bars->size(), 1), 240.0);
  std::vector<std::string> notes;
  for (const plot::ImpactBar& b : *bars)
    if (!b.impact.present()) notes.push_back(FormatDuration(b.comp) + ": no ratio: " + b.error);
  const std::vector<std::string> legend = {
      "r_mpi_impact: " + plot::ImpactScale().legend(),
      "bar: median over rounds, whisker: its confidence interval; dashed line: 1 = no impact"};
  Figure f;
  f.w = std::max({left + plot_w + kMargin + 10, std::min(header.Width(m) + 2 * kMargin, 1000.0), 640.0});
  plot_w = f.w - left - kMargin - 10;  // the bars use the width the title needs
  const double top = header.Height() + 10;
  f.h = top + kPlotH + 44 + 17.0 * (notes.size() + legend.size()) + 30 + kMargin;
  const ImpactArea area{left, top, kPlotH, plot_w, axis};
  f.paint = [&v, bars, area, header, notes, legend, f_w = f.w](cairo_t* cr) {
    header.Draw(cr, f_w);
    DrawImpactGrid(cr, area);
    const double slot = area.w / std::max<std::size_t>(bars->size(), 1);
    for (std::size_t i = 0; i < bars->size(); ++i)
      DrawImpactBar(cr, area, (*bars)[i], area.px + slot * (i + 0.5), std::min(72.0, slot * 0.5));
    DrawImpactAxes(cr, area);
    double y = area.py + area.ph + 60;
    for (const std::string& n : notes) {
      Text(cr, kMargin, y, Fit(cr, n, 11, false, f_w - 2 * kMargin), 11, Align::kLeft, false, kMuted);
      y += 17;
    }
    for (const std::string& l : legend) {
      Text(cr, kMargin, y, Fit(cr, l, 11, false, f_w - 2 * kMargin), 11, Align::kLeft, false, kMuted);
      y += 17;
    }
    DrawVerdict(cr, v, y + 7, f_w);
  };
  return f;
}

}  // namespace

namespace {
void Render(const nlohmann::json& results, const fs::path& dir, std::vector<fs::path>* written,
            std::string* error);
}  // namespace

const std::vector<PlotKind>& PlotKinds() {
  static const std::vector<PlotKind> kinds = {
      {"heatmap-r_overhead", "heatmap r_overhead"},
      {"heatmap-r_comm-r_comp_slowdown", "heatmap r_comm r_comp_slowdown"},
      {"bars-r_mpi_impact", "bars r_mpi_impact"},
  };
  return kinds;
}

std::string NoPicturesReason(const nlohmann::json& results) {
  if (results.is_object() && results.value("kind", std::string()) == "partitioned")
    return "partitioned results (kind: partitioned) have no heat-maps: their bandwidths and r_partitioned are in "
           "the table (nbcguard summary)";
  return "";
}

std::vector<fs::path> RenderPlots(const nlohmann::json& results, const fs::path& dir, std::string* error) {
  std::string scratch;
  if (!error) error = &scratch;
  error->clear();
  std::vector<fs::path> written;
  // A malformed document (a field of an unexpected type) is a reason not to
  // draw, reported like any other, never an exception escaping into a run.
  try {
    Render(results, dir, &written, error);
  } catch (const std::exception& e) {
    *error = std::string("cannot draw the pictures: ") + e.what();
  }
  return written;
}

namespace {

void Render(const nlohmann::json& results, const fs::path& dir, std::vector<fs::path>* written,
            std::string* error) {
  CaseView v;
  if (!ReadCase(results, &v, error)) return;
  if (v.IsPartitioned()) {
    *error = NoPicturesReason(results);
    return;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);

  // Layout needs text sizes before a figure's surface exists: measure on a
  // throwaway one.
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> ms(
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1), cairo_surface_destroy);
  std::unique_ptr<cairo_t, decltype(&cairo_destroy)> m(cairo_create(ms.get()), cairo_destroy);
  const plot::Grid grid = plot::MakeGrid(v.points, v.planned_comm, v.planned_comp);
  const std::vector<Figure> figures = {
      HeatmapFigure(m.get(), v, grid, {plot::Metric::kOverhead}),
      HeatmapFigure(m.get(), v, grid, {plot::Metric::kComm, plot::Metric::kSlowdown}),
      ImpactFigure(m.get(), v),
  };

  for (std::size_t i = 0; i < figures.size(); ++i) {
    const fs::path base = dir / PlotKinds()[i].stem;
    for (const char* ext : {".png", ".svg"}) {
      fs::path path = base;
      path += ext;
      const bool ok =
          std::string(ext) == ".png" ? WritePng(figures[i], path, error) : WriteSvg(figures[i], path, error);
      if (!ok) return;
      written->push_back(path);
    }
  }
}

}  // namespace

}  // namespace nbcguard::report
