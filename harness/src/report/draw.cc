// Drawing with cairo for the project's pictures (draw.h).
#include "draw.h"

#include <cairo-svg.h>

#include <cmath>

namespace nbcguard::report::draw {

namespace fs = std::filesystem;

void SetColour(cairo_t* cr, Rgb c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }

void Font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, kFont, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double Width(cairo_t* cr, const std::string& s, double size, bool bold) {
  Font(cr, size, bold);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  return e.x_advance;
}

// Shortens s (at a UTF-8 character boundary) with a trailing ellipsis
// until it fits max_w.
std::string Fit(cairo_t* cr, std::string s, double size, bool bold, double max_w) {
  if (Width(cr, s, size, bold) <= max_w) return s;
  const std::string ellipsis = "\xE2\x80\xA6";
  while (!s.empty() && Width(cr, s + ellipsis, size, bold) > max_w) {
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
    if (!s.empty()) s.pop_back();
  }
  return s + ellipsis;
}

// Splits s at spaces into lines no wider than max_w, at most max_lines (the
// last one ellipsized if the text goes on).
std::vector<std::string> Wrap(cairo_t* cr, const std::string& s, double size, double max_w,
                              std::size_t max_lines) {
  std::vector<std::string> lines;
  std::string rest = s;
  while (!rest.empty() && lines.size() + 1 < max_lines && Width(cr, rest, size) > max_w) {
    std::size_t cut = std::string::npos;
    for (std::size_t sp = rest.find(' '); sp != std::string::npos; sp = rest.find(' ', sp + 1)) {
      if (Width(cr, rest.substr(0, sp), size) > max_w) break;
      cut = sp;
    }
    if (cut == std::string::npos) break;  // one long word: ellipsize below
    lines.push_back(rest.substr(0, cut));
    rest = rest.substr(cut + 1);
  }
  lines.push_back(Fit(cr, rest, size, false, max_w));
  return lines;
}

// Draws s with its x-height centred on y (middle) or its baseline on y.
void Text(cairo_t* cr, double x, double y, const std::string& s, double size, Align a, bool bold, Rgb colour,
          bool middle) {
  Font(cr, size, bold);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  double tx = x;
  if (a == Align::kCentre) tx -= e.x_advance / 2;
  if (a == Align::kRight) tx -= e.x_advance;
  const double ty = middle ? y + size * 0.36 : y;  // DejaVu's x-height is about 0.72 em
  SetColour(cr, colour);
  cairo_move_to(cr, tx, ty);
  cairo_show_text(cr, s.c_str());
}

// Text read bottom to top, centred on (x, y).
void VerticalText(cairo_t* cr, double x, double y, const std::string& s, double size, bool bold) {
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -M_PI / 2);
  Text(cr, 0, 0, s, size, Align::kCentre, bold);
  cairo_restore(cr);
}

void FillRect(cairo_t* cr, double x, double y, double w, double h, Rgb c) {
  SetColour(cr, c);
  cairo_rectangle(cr, x, y, w, h);
  cairo_fill(cr);
}

// Grey with diagonal lines: an invalid point must not read as any value.
void Hatch(cairo_t* cr, double x, double y, double w, double h) {
  FillRect(cr, x, y, w, h, {0.88, 0.88, 0.88});
  cairo_save(cr);
  cairo_rectangle(cr, x, y, w, h);
  cairo_clip(cr);
  SetColour(cr, {0.66, 0.66, 0.66});
  cairo_set_line_width(cr, 1.2);
  for (double d = -h; d < w; d += 8) {
    cairo_move_to(cr, x + d, y + h);
    cairo_line_to(cr, x + d + h, y);
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

void DashedRect(cairo_t* cr, double x, double y, double w, double h) {
  const double dash[] = {4, 3};
  cairo_save(cr);
  SetColour(cr, kFrame);
  cairo_set_line_width(cr, 1);
  cairo_set_dash(cr, dash, 2, 0);
  cairo_rectangle(cr, x + 0.5, y + 0.5, w - 1, h - 1);
  cairo_stroke(cr);
  cairo_restore(cr);
}

static bool Check(cairo_surface_t* s, const fs::path& path, std::string* error) {
  const cairo_status_t st = cairo_surface_status(s);
  if (st == CAIRO_STATUS_SUCCESS) return true;
  *error = path.string() + ": " + cairo_status_to_string(st);
  return false;
}

bool WritePng(const Figure& f, const fs::path& path, std::string* error) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(std::ceil(f.w)),
                                                  static_cast<int>(std::ceil(f.h)));
  cairo_t* cr = cairo_create(s);
  FillRect(cr, 0, 0, f.w, f.h, {1, 1, 1});
  f.paint(cr);
  bool ok = Check(s, path, error);
  cairo_destroy(cr);
  if (ok) {
    const cairo_status_t st = cairo_surface_write_to_png(s, path.c_str());
    if (st != CAIRO_STATUS_SUCCESS) {
      *error = path.string() + ": " + cairo_status_to_string(st);
      ok = false;
    }
  }
  cairo_surface_destroy(s);
  std::error_code ec;
  if (!ok) fs::remove(path, ec);  // a cut or empty picture is no picture
  return ok;
}

bool WriteSvg(const Figure& f, const fs::path& path, std::string* error) {
  cairo_surface_t* s = cairo_svg_surface_create(path.c_str(), std::ceil(f.w), std::ceil(f.h));
  if (!Check(s, path, error)) {
    cairo_surface_destroy(s);
    return false;
  }
  cairo_t* cr = cairo_create(s);
  FillRect(cr, 0, 0, f.w, f.h, {1, 1, 1});
  f.paint(cr);
  cairo_destroy(cr);
  cairo_surface_finish(s);  // writes the file; errors show up only now
  const bool ok = Check(s, path, error);
  cairo_surface_destroy(s);
  std::error_code ec;
  if (!ok) fs::remove(path, ec);  // a cut or empty picture is no picture
  return ok;
}

}  // namespace nbcguard::report::draw
