#include "nbcguard/plot_model.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "nbcguard/units.h"

namespace nbcguard::plot {

ColourScale::ColourScale(std::string name, std::string legend, std::vector<Stop> stops)
    : name_(std::move(name)), legend_(std::move(legend)), stops_(std::move(stops)) {
  if (stops_.size() < 2) throw std::invalid_argument("a colour scale needs two stops");
  for (std::size_t i = 1; i < stops_.size(); ++i)
    if (!(stops_[i].value > stops_[i - 1].value)) throw std::invalid_argument("colour stops must ascend");
}

Rgb ColourScale::At(double v) const {
  if (std::isnan(v)) return kNoValue;
  if (v <= stops_.front().value) return stops_.front().colour;
  if (v >= stops_.back().value) return stops_.back().colour;
  std::size_t i = 1;
  while (v > stops_[i].value) ++i;
  const Stop& a = stops_[i - 1];
  const Stop& b = stops_[i];
  const double t = (v - a.value) / (b.value - a.value);
  return {a.colour.r + t * (b.colour.r - a.colour.r), a.colour.g + t * (b.colour.g - a.colour.g),
          a.colour.b + t * (b.colour.b - a.colour.b)};
}

// The end labels say the scale saturates, so a red cell reading 3.1 is not
// mistaken for a colour-bar error.
const ColourScale& OverheadScale() {
  static const ColourScale s(
      "r_overhead", "0 overlap, 1 serialized, >1 worse than not overlapping, <0 imprecision",
      {{-0.5, kBelow, "\u2264-0.5"}, {0, kGood, "0"}, {1, kSerial, "1"}, {2, kBad, "\u22652"}});
  return s;
}

const ColourScale& CommScale() {
  static const ColourScale s("r_comm",
                             "0 background progress, 1 all work in MPI calls, >1 communication slowed",
                             {{0, kGood, "0"}, {1, kSerial, "1"}, {2, kBad, "\u22652"}});
  return s;
}

const ColourScale& SlowdownScale() {
  static const ColourScale s(
      "r_comp_slowdown", "1 computation undisturbed, >1 progress stole CPU or bandwidth",
      {{0.8, kBelow, "\u22640.8"}, {1, kGood, "1"}, {1.5, kSerial, "1.5"}, {2, kBad, "\u22652"}});
  return s;
}

const ColourScale& ImpactScale() {
  static const ColourScale s(
      "r_mpi_impact", "1 no impact, >1 the idle MPI runtime slows computing",
      {{0.9, kBelow, "\u22640.9"}, {1, kGood, "1"}, {1.1, kSerial, "1.1"}, {1.3, kBad, "\u22651.3"}});
  return s;
}

namespace {
double Linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
}  // namespace

Rgb TextColourOn(Rgb bg) {
  const double l = 0.2126 * Linear(bg.r) + 0.7152 * Linear(bg.g) + 0.0722 * Linear(bg.b);
  // Contrast with black (l + 0.05) / 0.05 against white 1.05 / (l + 0.05):
  // equal at l = 0.179.
  return l > 0.179 ? Rgb{0, 0, 0} : Rgb{1, 1, 1};
}

std::string ToHex(Rgb c) {
  auto byte = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
  return buf;
}

Rgb Tint(Rgb c, double amount) {
  const double a = std::clamp(amount, 0.0, 1.0);
  return {c.r + a * (1 - c.r), c.g + a * (1 - c.g), c.b + a * (1 - c.b)};
}

const char* MetricName(Metric m) {
  switch (m) {
    case Metric::kOverhead:
      return "r_overhead";
    case Metric::kComm:
      return "r_comm";
    case Metric::kSlowdown:
      return "r_comp_slowdown";
    case Metric::kImpact:
      return "r_mpi_impact";
  }
  return "?";
}

const Ratio& Get(const Point& p, Metric m) {
  switch (m) {
    case Metric::kOverhead:
      return p.overhead;
    case Metric::kComm:
      return p.comm_ratio;
    case Metric::kSlowdown:
      return p.slowdown;
    case Metric::kImpact:
      return p.impact;
  }
  return p.overhead;
}

const ColourScale& ScaleOf(Metric m) {
  switch (m) {
    case Metric::kOverhead:
      return OverheadScale();
    case Metric::kComm:
      return CommScale();
    case Metric::kSlowdown:
      return SlowdownScale();
    case Metric::kImpact:
      return ImpactScale();
  }
  return OverheadScale();
}

CellKind KindOf(const Point* p, Metric m) {
  if (!p) return CellKind::kNotMeasured;
  if (!p->valid) return CellKind::kInvalid;
  return Get(*p, m).present() ? CellKind::kValue : CellKind::kNoValue;
}

std::string FormatRatio(double v) {
  if (!std::isfinite(v)) return "-";
  const double a = std::fabs(v);
  const int decimals = a < 10 ? 2 : a < 100 ? 1 : 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  // "-0.00" would claim a sign the value does not have at this precision.
  if (std::string(buf).find_first_not_of("-0.") == std::string::npos && buf[0] == '-') return buf + 1;
  return buf;
}

std::string FormatInterval(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "";
  return "[" + FormatRatio(lo) + ", " + FormatRatio(hi) + "]";
}

CellText CellLabel(const Point* p, Metric m) {
  switch (KindOf(p, m)) {
    case CellKind::kNotMeasured:
      return {"not measured", ""};
    case CellKind::kInvalid:
      return {"invalid", ""};
    case CellKind::kNoValue:
      return {"n/a", ""};
    case CellKind::kValue:
      break;
  }
  const Ratio& r = Get(*p, m);
  return {FormatRatio(r.median), FormatInterval(r.lo, r.hi)};
}

double LogAxis::Decades() const { return std::log10(hi() / lo()); }

double LogAxis::Fraction(double v) const { return std::log(v / lo()) / std::log(hi() / lo()); }

int LogAxis::IndexOf(double v) const {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::fabs(values[i] - v) <= 1e-6 * values[i]) return static_cast<int>(i);
  return -1;
}

LogAxis MakeLogAxis(std::vector<double> values, double default_factor) {
  LogAxis a;
  values.erase(
      std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0) || !std::isfinite(v); }),
      values.end());
  std::sort(values.begin(), values.end());
  // Targets read back from JSON may differ in the last bit; 1e-6 relative
  // is far below any grid step.
  for (double v : values)
    if (a.values.empty() || v > a.values.back() * (1 + 1e-6)) a.values.push_back(v);
  if (a.values.empty()) a.values.push_back(1e-3);  // an empty run still gets a drawable axis
  const std::size_t n = a.values.size();
  const double half_default = std::sqrt(default_factor);
  a.edges.resize(n + 1);
  for (std::size_t i = 1; i < n; ++i) a.edges[i] = std::sqrt(a.values[i - 1] * a.values[i]);
  if (n == 1) {
    a.edges[0] = a.values[0] / half_default;
    a.edges[1] = a.values[0] * half_default;
  } else {
    a.edges[0] = a.values[0] * a.values[0] / a.edges[1];
    a.edges[n] = a.values[n - 1] * a.values[n - 1] / a.edges[n - 1];
  }
  for (double v : a.values) a.labels.push_back(FormatDuration(v));
  return a;
}

double PixelsPerDecade(const LogAxis& x, const LogAxis& y, double max_w, double max_h, double min_cell,
                       double max_ppd) {
  double ppd = std::min({max_w / x.Decades(), max_h / y.Decades(), max_ppd});
  double narrowest = INFINITY;
  for (const LogAxis* a : {&x, &y})
    for (std::size_t i = 0; i + 1 < a->edges.size(); ++i)
      narrowest = std::min(narrowest, std::log10(a->edges[i + 1] / a->edges[i]));
  return std::max(ppd, min_cell / narrowest);
}

Grid MakeGrid(const std::vector<Point>& points, const std::vector<double>& extra_comm,
              const std::vector<double>& extra_comp) {
  std::vector<double> comm = extra_comm, comp = extra_comp;
  for (const Point& p : points) {
    comm.push_back(p.comm);
    comp.push_back(p.comp);
  }
  // Both axes step by the same factor when the other has one value only:
  // a one-column grid keeps square cells.
  auto factor = [](const std::vector<double>& v) {
    LogAxis a = MakeLogAxis(v);
    return a.values.size() > 1 ? a.values[1] / a.values[0] : 0.0;
  };
  const double fx = factor(comm), fy = factor(comp);
  Grid g;
  g.comm = MakeLogAxis(comm, fx > 0 ? fx : fy > 0 ? fy : 4.0);
  g.comp = MakeLogAxis(comp, fy > 0 ? fy : fx > 0 ? fx : 4.0);
  g.cell.assign(g.comp.values.size(), std::vector<int>(g.comm.values.size(), -1));
  for (std::size_t i = 0; i < points.size(); ++i) {
    const int c = g.comm.IndexOf(points[i].comm), r = g.comp.IndexOf(points[i].comp);
    if (c >= 0 && r >= 0) g.cell[r][c] = static_cast<int>(i);
  }
  return g;
}

std::vector<std::size_t> ThinLabels(const std::vector<double>& centres, const std::vector<double>& widths,
                                    double gap) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < centres.size() && i < widths.size(); ++i) {
    if (!kept.empty()) {
      const std::size_t k = kept.back();
      const double room = std::fabs(centres[i] - centres[k]) - (widths[i] + widths[k]) / 2;
      if (room < gap) continue;
    }
    kept.push_back(i);
  }
  return kept;
}

LinearAxis NiceLinearAxis(double lo, double hi, int max_ticks) {
  LinearAxis a;
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo < 1e-12) hi = lo + 1;
  max_ticks = std::max(max_ticks, 2);
  const double raw = (hi - lo) / (max_ticks - 1);
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    const double s = m * mag;
    if (std::floor(lo / s + 1e-9) * s + s * (max_ticks - 1) >= hi - 1e-9 * s) {
      step = s;
      break;
    }
  }
  a.step = step;
  a.lo = std::floor(lo / step + 1e-9) * step;
  a.hi = std::ceil(hi / step - 1e-9) * step;
  if (a.hi <= a.lo) a.hi = a.lo + step;
  for (double t = a.lo; t <= a.hi + step * 1e-6; t += step)
    a.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return a;
}

LinearAxis ImpactAxis(const std::vector<ImpactBar>& bars) {
  double top = 1.0;
  for (const ImpactBar& b : bars)
    for (double v : {b.impact.median, b.impact.hi})
      if (std::isfinite(v)) top = std::max(top, v);
  // Room above the highest whisker for its value label.
  return NiceLinearAxis(0, top * 1.12, 6);
}

std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string UrlPath(const std::string& generic_path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : generic_path) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r') {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    // Only what would change the table or start markup; '_' inside words
    // and lone brackets render as themselves, and the raw text stays
    // readable in a CI log.
    if (c == '|' || c == '*' || c == '`' || c == '<' || c == '\\') out += '\\';
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::size_t Utf8Length(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string Ellipsize(const std::string& s, std::size_t max_chars) {
  if (Utf8Length(s) <= max_chars) return s;
  if (max_chars == 0) return "";
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80) {
      if (chars == max_chars - 1) break;
      ++chars;
    }
    out += s[i];
  }
  return out + "\xE2\x80\xA6";
}

}  // namespace nbcguard::plot
