// Drawing with cairo, shared by the pictures of a run (plots.h) and of the
// results history (trends.h): text, fills and one figure written as PNG and
// as SVG by the same painter.
#pragma once

#include <cairo.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "nbcguard/plot_model.h"

namespace nbcguard::report::draw {

using plot::Rgb;

// DejaVu ships with Debian's fonts-dejavu-core: the pictures look the same
// on every CI runner that installed the project's dependencies.
constexpr const char* kFont = "DejaVu Sans";
constexpr double kMargin = 20;
constexpr Rgb kInk{0.13, 0.13, 0.13};
constexpr Rgb kMuted{0.38, 0.38, 0.38};
constexpr Rgb kFrame{0.55, 0.55, 0.55};
constexpr Rgb kPassInk{0.08, 0.45, 0.20};
constexpr Rgb kFailInk{0.75, 0.10, 0.08};
constexpr Rgb kUndecidedInk{0.66, 0.38, 0.0};  // INCONCLUSIVE: neither pass nor fail

enum class Align { kLeft, kCentre, kRight };

void SetColour(cairo_t* cr, Rgb c);
void Font(cairo_t* cr, double size, bool bold);
double Width(cairo_t* cr, const std::string& s, double size, bool bold = false);
// Shortens s (at a UTF-8 character boundary) with a trailing ellipsis
// until it fits max_w.
std::string Fit(cairo_t* cr, std::string s, double size, bool bold, double max_w);
// Splits s at spaces into lines no wider than max_w, at most max_lines (the
// last one ellipsized if the text goes on).
std::vector<std::string> Wrap(cairo_t* cr, const std::string& s, double size, double max_w,
                              std::size_t max_lines);
// Draws s with its x-height centred on y (middle) or its baseline on y.
void Text(cairo_t* cr, double x, double y, const std::string& s, double size, Align a = Align::kLeft,
          bool bold = false, Rgb colour = kInk, bool middle = true);
// Text read bottom to top, centred on (x, y).
void VerticalText(cairo_t* cr, double x, double y, const std::string& s, double size, bool bold = false);
void FillRect(cairo_t* cr, double x, double y, double w, double h, Rgb c);
// Grey with diagonal lines: an invalid point must not read as any value.
void Hatch(cairo_t* cr, double x, double y, double w, double h);
void DashedRect(cairo_t* cr, double x, double y, double w, double h);

// A picture: its size is known before drawing, so the same painter draws
// into a PNG and an SVG surface.
struct Figure {
  double w = 0, h = 0;
  std::function<void(cairo_t*)> paint;
};

// The figure as a PNG or an SVG file; false with *error (the path and
// cairo's reason) when it cannot be written.
bool WritePng(const Figure& f, const std::filesystem::path& path, std::string* error);
bool WriteSvg(const Figure& f, const std::filesystem::path& path, std::string* error);

}  // namespace nbcguard::report::draw
