// Checks that a PNG is a real picture with the expected content, for the
// report tests: it decodes (cairo), has the expected size, and shows enough
// pixels of the heat-map anchor colours. The HTML summary never uses those
// exact colours outside the pictures (its table uses pale tints), so on a
// screenshot of the summary they prove the heat-maps were loaded and drawn.
//
//   nbcguard-png-check FILE [--size WxH] [--min good|serial|bad|below|novalue=PIXELS]...
#include <cairo.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "nbcguard/plot_model.h"

namespace {

int Usage() {
  std::fprintf(stderr, "usage: nbcguard-png-check FILE [--size WxH] [--min COLOUR=PIXELS]...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nbcguard::plot;
  if (argc < 2) return Usage();
  const std::string file = argv[1];
  int want_w = 0, want_h = 0;
  std::map<std::string, long> want;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--size" && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%dx%d", &want_w, &want_h) != 2) return Usage();
    } else if (a == "--min" && i + 1 < argc) {
      const std::string spec = argv[++i];
      const auto eq = spec.find('=');
      if (eq == std::string::npos) return Usage();
      want[spec.substr(0, eq)] = std::atol(spec.c_str() + eq + 1);
    } else {
      return Usage();
    }
  }
  const std::map<std::string, Rgb> anchors = {
      {"good", kGood}, {"serial", kSerial}, {"bad", kBad}, {"below", kBelow}, {"novalue", kNoValue}};
  for (const auto& [name, n] : want)
    if (!anchors.count(name)) return Usage();

  cairo_surface_t* s = cairo_image_surface_create_from_png(file.c_str());
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: not a readable PNG (%s)\n", file.c_str(),
                 cairo_status_to_string(cairo_surface_status(s)));
    return 1;
  }
  const int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  int rc = 0;
  if (want_w > 0 && (w != want_w || h != want_h)) {
    std::fprintf(stderr, "%s: %dx%d, expected %dx%d\n", file.c_str(), w, h, want_w, want_h);
    rc = 1;
  }
  // Count pixels within a small distance of each anchor (anti-aliasing and
  // the browser's scaling leave cell interiors exact or nearly so).
  std::map<std::string, long> count;
  long non_white = 0;
  cairo_surface_flush(s);
  const unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < h; ++y) {
    const auto* row = reinterpret_cast<const uint32_t*>(data + static_cast<long>(y) * stride);
    for (int x = 0; x < w; ++x) {
      const uint32_t px = row[x];  // native-endian 0xAARRGGBB (premultiplied; PNGs here are opaque)
      const int r = static_cast<int>((px >> 16) & 255), g = static_cast<int>((px >> 8) & 255),
                b = static_cast<int>(px & 255);
      if (r < 250 || g < 250 || b < 250) ++non_white;
      for (const auto& [name, c] : anchors) {
        const double d = std::hypot(r - c.r * 255, g - c.g * 255, b - c.b * 255);
        if (d <= 12) ++count[name];
      }
    }
  }
  std::printf("%s: %dx%d, %ld non-white pixels", file.c_str(), w, h, non_white);
  for (const auto& [name, c] : anchors) std::printf(", %s %ld", name.c_str(), count[name]);
  std::printf("\n");
  if (non_white < static_cast<long>(w) * h / 100) {
    std::fprintf(stderr, "%s: almost blank\n", file.c_str());
    rc = 1;
  }
  for (const auto& [name, n] : want) {
    if (count[name] < n) {
      std::fprintf(stderr, "%s: %ld pixels of the '%s' colour, expected at least %ld\n", file.c_str(),
                   count[name], name.c_str(), n);
      rc = 1;
    }
  }
  cairo_surface_destroy(s);
  return rc;
}
