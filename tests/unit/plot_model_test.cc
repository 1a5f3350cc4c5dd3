#include "nbcguard/plot_model.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nbcguard::plot {
namespace {

void ExpectColour(Rgb expected, Rgb got, double tol = 1e-9) {
  EXPECT_NEAR(expected.r, got.r, tol);
  EXPECT_NEAR(expected.g, got.g, tol);
  EXPECT_NEAR(expected.b, got.b, tol);
}

double Distance(Rgb a, Rgb b) { return std::hypot(a.r - b.r, a.g - b.g, a.b - b.b); }

// ------------------------------------------------------------- colours --

TEST(PlotColour, OverheadAnchorsAreTheMethodsColours) {
  // docs/method.md, "Showing results": green 0, yellow 1, red > 1, blue < 0.
  ExpectColour(kGood, OverheadScale().At(0));
  ExpectColour(kSerial, OverheadScale().At(1));
  ExpectColour(kBad, OverheadScale().At(2));
  ExpectColour(kBelow, OverheadScale().At(-0.5));
  // The anchors themselves read as their names.
  EXPECT_GT(kGood.g, kGood.r);
  EXPECT_GT(kGood.g, kGood.b);
  EXPECT_GT(kSerial.r, 0.9);
  EXPECT_GT(kSerial.g, 0.8);
  EXPECT_LT(kSerial.b, 0.3);
  EXPECT_GT(kBad.r, 2 * kBad.g);
  EXPECT_GT(kBelow.b, kBelow.r);
}

TEST(PlotColour, OverheadSaturatesBeyondTheEnds) {
  ExpectColour(kBad, OverheadScale().At(3.1));
  ExpectColour(kBad, OverheadScale().At(1e9));
  ExpectColour(kBelow, OverheadScale().At(-7));
  ExpectColour(kNoValue, OverheadScale().At(NAN));
}

TEST(PlotColour, OverheadIsContinuous) {
  // Halfway between two anchors is the mix of both, not a step.
  const Rgb half = OverheadScale().At(0.5);
  ExpectColour({(kGood.r + kSerial.r) / 2, (kGood.g + kSerial.g) / 2, (kGood.b + kSerial.b) / 2}, half);
  const Rgb between = OverheadScale().At(1.5);
  ExpectColour({(kSerial.r + kBad.r) / 2, (kSerial.g + kBad.g) / 2, (kSerial.b + kBad.b) / 2}, between);
  // Small steps give small colour changes everywhere on the scale.
  for (double v = -1; v < 3; v += 0.01)
    EXPECT_LT(Distance(OverheadScale().At(v), OverheadScale().At(v + 0.01)), 0.05) << v;
  // A slightly negative value (imprecision) is still mostly green.
  EXPECT_LT(Distance(OverheadScale().At(-0.02), kGood), Distance(OverheadScale().At(-0.02), kBelow));
}

TEST(PlotColour, OverheadGetsRedderAsItGrows) {
  // From 0 to 2, red gains on green at every step (green -> yellow -> red),
  // and blue only appears below 0.
  double last = -2;
  for (double v = 0; v <= 2.0001; v += 0.05) {
    const Rgb c = OverheadScale().At(v);
    EXPECT_GT(c.r - c.g, last) << v;
    last = c.r - c.g;
    EXPECT_LE(c.b, kGood.b + 1e-12) << v;
  }
  EXPECT_GT(OverheadScale().At(-0.3).b, OverheadScale().At(0).b);
  EXPECT_LT(Distance(OverheadScale().At(1.9), kBad), Distance(OverheadScale().At(1.9), kSerial));
}

TEST(PlotColour, CommAndSlowdownScalesPutGoodWhereTheRatioIsGood) {
  ExpectColour(kGood, CommScale().At(0));    // background progress
  ExpectColour(kSerial, CommScale().At(1));  // all the work in MPI calls
  ExpectColour(kBad, CommScale().At(2.5));
  ExpectColour(kGood, SlowdownScale().At(1));  // computation undisturbed
  ExpectColour(kBad, SlowdownScale().At(2));
  ExpectColour(kBelow, SlowdownScale().At(0.5));
  EXPECT_LT(Distance(SlowdownScale().At(1.1), kGood), Distance(SlowdownScale().At(1.1), kBad));
  ExpectColour(kGood, ImpactScale().At(1));
  ExpectColour(kBad, ImpactScale().At(1.5));
}

TEST(PlotColour, ScalesRejectUnorderedStops) {
  EXPECT_THROW(ColourScale("x", "", {{1, kGood, ""}, {0, kBad, ""}}), std::invalid_argument);
  EXPECT_THROW(ColourScale("x", "", {{1, kGood, ""}}), std::invalid_argument);
}

TEST(PlotColour, TextContrastsWithItsCell) {
  ExpectColour({0, 0, 0}, TextColourOn(kSerial));  // yellow: black text
  ExpectColour({0, 0, 0}, TextColourOn({1, 1, 1}));
  ExpectColour({1, 1, 1}, TextColourOn(kBelow));  // blue: white text
  ExpectColour({1, 1, 1}, TextColourOn(kBad));
  ExpectColour({1, 1, 1}, TextColourOn({0, 0, 0}));
}

TEST(PlotColour, HexAndTint) {
  EXPECT_EQ("#000000", ToHex({0, 0, 0}));
  EXPECT_EQ("#ff8000", ToHex({1, 0.502, 0}));
  EXPECT_EQ("#ffffff", ToHex({2, 1.5, 1}));  // clamped
  ExpectColour({1, 1, 1}, Tint(kBad, 1));
  ExpectColour(kBad, Tint(kBad, 0));
  ExpectColour({0.5, 0.5, 0.5}, Tint({0, 0, 0}, 0.5));
}

// --------------------------------------------------------------- cells --

Point Valid(double comm, double comp, double overhead) {
  Point p;
  p.comm = comm;
  p.comp = comp;
  p.valid = true;
  p.overhead = {overhead, overhead - 0.1, overhead + 0.2};
  return p;
}

TEST(PlotCell, KindsAndLabels) {
  Point p = Valid(1e-3, 2e-3, 1.2345);
  EXPECT_EQ(CellKind::kValue, KindOf(&p, Metric::kOverhead));
  EXPECT_EQ("1.23", CellLabel(&p, Metric::kOverhead).main);
  EXPECT_EQ("[1.13, 1.43]", CellLabel(&p, Metric::kOverhead).detail);
  // Valid, but r_mpi_impact not measured (null median in results.json).
  EXPECT_EQ(CellKind::kNoValue, KindOf(&p, Metric::kImpact));
  EXPECT_EQ("n/a", CellLabel(&p, Metric::kImpact).main);
  p.valid = false;
  EXPECT_EQ(CellKind::kInvalid, KindOf(&p, Metric::kOverhead));  // invalid wins over a stale value
  EXPECT_EQ("invalid", CellLabel(&p, Metric::kOverhead).main);
  EXPECT_EQ(CellKind::kNotMeasured, KindOf(nullptr, Metric::kOverhead));
  EXPECT_EQ("not measured", CellLabel(nullptr, Metric::kOverhead).main);
}

TEST(PlotCell, RatioText) {
  EXPECT_EQ("0.97", FormatRatio(0.9712));
  EXPECT_EQ("-0.15", FormatRatio(-0.149));
  EXPECT_EQ("0.00", FormatRatio(-0.001));  // no sign the precision cannot show
  EXPECT_EQ("12.3", FormatRatio(12.34));
  EXPECT_EQ("123", FormatRatio(123.4));
  EXPECT_EQ("-", FormatRatio(NAN));
  EXPECT_EQ("-", FormatRatio(INFINITY));
  EXPECT_EQ("[0.91, 1.04]", FormatInterval(0.911, 1.04));
  EXPECT_EQ("", FormatInterval(NAN, 1));
}

// ---------------------------------------------------------------- axes --

TEST(PlotAxis, LogAxisCellsAreCentredOnTheTargets) {
  const LogAxis a = MakeLogAxis({2e-3, 5e-4, 8e-3, 2e-3});  // unsorted, duplicate
  ASSERT_EQ(3u, a.values.size());
  EXPECT_DOUBLE_EQ(5e-4, a.values[0]);
  ASSERT_EQ(4u, a.edges.size());
  // Edges at the geometric midpoints: 1ms between 500us and 2ms.
  EXPECT_NEAR(1e-3, a.edges[1], 1e-15);
  EXPECT_NEAR(4e-3, a.edges[2], 1e-15);
  // Outer cells as wide as their neighbours (factor 4 grid: factor 2 halves).
  EXPECT_NEAR(2.5e-4, a.lo(), 1e-15);
  EXPECT_NEAR(16e-3, a.hi(), 1e-15);
  // Log scale: each target sits in the middle of its cell, cells equal.
  EXPECT_NEAR(1.0 / 6, a.Fraction(5e-4), 1e-12);
  EXPECT_NEAR(0.5, a.Fraction(2e-3), 1e-12);
  EXPECT_NEAR(5.0 / 6, a.Fraction(8e-3), 1e-12);
  EXPECT_NEAR(std::log10(64), a.Decades(), 1e-12);
  EXPECT_EQ((std::vector<std::string>{"500us", "2ms", "8ms"}), a.labels);
  EXPECT_EQ(1, a.IndexOf(2e-3 * (1 + 1e-9)));  // JSON round-off still finds its cell
  EXPECT_EQ(-1, a.IndexOf(3e-3));
}

TEST(PlotAxis, SingleValueGetsOneCellOfTheDefaultFactor) {
  const LogAxis a = MakeLogAxis({1e-3}, 4);
  ASSERT_EQ(2u, a.edges.size());
  EXPECT_NEAR(0.5e-3, a.lo(), 1e-15);
  EXPECT_NEAR(2e-3, a.hi(), 1e-15);
  EXPECT_NEAR(0.5, a.Fraction(1e-3), 1e-12);
  // Nothing usable: still an axis to draw on.
  const LogAxis empty = MakeLogAxis({0, -1, NAN});
  EXPECT_EQ(1u, empty.values.size());
  EXPECT_GT(empty.Decades(), 0);
}

TEST(PlotAxis, BothAxesShareOneScale) {
  const LogAxis x = MakeLogAxis({1e-4, 1e-3, 1e-2, 1e-1});  // 4 decades
  const LogAxis y = MakeLogAxis({1e-3, 1e-2});              // 2 decades
  // The wide axis limits: 400 px / 4 decades.
  EXPECT_DOUBLE_EQ(100, PixelsPerDecade(x, y, 400, 400, 10, 1000));
  // The tall limit when it is tighter.
  EXPECT_DOUBLE_EQ(50, PixelsPerDecade(x, y, 400, 100, 10, 1000));
  // Never larger than the cap.
  EXPECT_DOUBLE_EQ(30, PixelsPerDecade(x, y, 400, 400, 10, 30));
  // The narrowest cell (1 decade) keeps its minimum size: the picture grows.
  EXPECT_DOUBLE_EQ(120, PixelsPerDecade(x, y, 400, 400, 120, 1000));
}

TEST(PlotAxis, GridPlacesPointsAndKeepsPlannedHoles) {
  std::vector<Point> pts = {Valid(5e-4, 5e-4, 0.1), Valid(2e-3, 5e-4, 0.2), Valid(5e-4, 2e-3, 0.3)};
  // The run planned 2ms x 2ms too but never measured it.
  const Grid g = MakeGrid(pts, {5e-4, 2e-3}, {5e-4, 2e-3});
  ASSERT_EQ(2u, g.cell.size());
  ASSERT_EQ(2u, g.cell[0].size());
  EXPECT_EQ(0, g.cell[0][0]);  // row = comp index, column = comm index
  EXPECT_EQ(1, g.cell[0][1]);
  EXPECT_EQ(2, g.cell[1][0]);
  EXPECT_EQ(-1, g.cell[1][1]);
}

TEST(PlotAxis, OneColumnGridKeepsSquareCells) {
  // One comm time, three comp times by 4: the comm cell is one factor 4 wide.
  std::vector<Point> pts = {Valid(1e-3, 1e-3, 0), Valid(1e-3, 4e-3, 0), Valid(1e-3, 16e-3, 0)};
  const Grid g = MakeGrid(pts);
  EXPECT_NEAR(std::log10(4.0), g.comm.Decades(), 1e-12);
  EXPECT_NEAR(3 * std::log10(4.0), g.comp.Decades(), 1e-12);
  const Grid single = MakeGrid({Valid(1e-3, 4e-3, 0)});
  EXPECT_NEAR(single.comm.Decades(), single.comp.Decades(), 1e-12);
  EXPECT_EQ(0, single.cell[0][0]);
}

TEST(PlotAxis, ThinLabelsDropsOverlaps) {
  // Labels 40 px wide every 30 px: every other one.
  EXPECT_EQ((std::vector<std::size_t>{0, 2, 4}), ThinLabels({0, 30, 60, 90, 120}, {40, 40, 40, 40, 40}, 4));
  EXPECT_EQ((std::vector<std::size_t>{0, 1, 2}), ThinLabels({0, 100, 200}, {40, 40, 40}, 4));
  EXPECT_TRUE(ThinLabels({}, {}, 4).empty());
}

TEST(PlotAxis, NiceLinearTicks) {
  const LinearAxis a = NiceLinearAxis(0, 1.12, 6);
  EXPECT_DOUBLE_EQ(0, a.lo);
  EXPECT_DOUBLE_EQ(0.25, a.step);
  EXPECT_DOUBLE_EQ(1.25, a.hi);
  EXPECT_EQ(6u, a.ticks.size());
  EXPECT_DOUBLE_EQ(0.5, a.Fraction(0.625));
  const LinearAxis b = NiceLinearAxis(0, 4.8, 6);
  EXPECT_DOUBLE_EQ(1, b.step);
  EXPECT_DOUBLE_EQ(5, b.hi);
  EXPECT_LE(b.ticks.size(), 6u);
}

TEST(PlotAxis, ImpactAxisShowsTheLineAtOneAndEveryWhisker) {
  std::vector<ImpactBar> bars(2);
  bars[0].impact = {0.5, 0.4, 0.6};
  bars[1].impact = {NAN, NAN, NAN};
  LinearAxis a = ImpactAxis(bars);
  EXPECT_DOUBLE_EQ(0, a.lo);  // bars start at 0
  EXPECT_GT(a.hi, 1.0);       // the line at 1 is inside even when all bars are below
  bars[1].impact = {1.1, 0.9, 4.3};
  a = ImpactAxis(bars);
  EXPECT_GT(a.hi, 4.3);
}

// ---------------------------------------------------------------- text --

TEST(PlotText, HtmlEscape) {
  EXPECT_EQ("r_comm &gt; 1 &amp; &lt;b&gt; &quot;x&quot; &#39;y&#39;",
            HtmlEscape("r_comm > 1 & <b> \"x\" 'y'"));
}

TEST(PlotText, UrlPath) {
  EXPECT_EQ("../results/a%20b/heatmap-r_overhead.png", UrlPath("../results/a b/heatmap-r_overhead.png"));
  EXPECT_EQ("x%23y%3F%26%22.png", UrlPath("x#y?&\".png"));
}

TEST(PlotText, MarkdownCell) {
  EXPECT_EQ("a \\| b", MarkdownCell("a | b"));
  EXPECT_EQ("line one line two", MarkdownCell("line one\nline two\n"));
  // '<' could open an HTML tag; brackets and '_' inside words stay as they are.
  EXPECT_EQ("r_overhead = 2.35 [2.27, 2.45] \\<shared>",
            MarkdownCell("r_overhead = 2.35 [2.27, 2.45] <shared>"));
  EXPECT_EQ("\\*\\*not bold\\*\\*", MarkdownCell("**not bold**"));
}

TEST(PlotText, EllipsizeCountsCharacters) {
  EXPECT_EQ("abc", Ellipsize("abc", 3));
  EXPECT_EQ("ab\xE2\x80\xA6", Ellipsize("abcd", 3));
  EXPECT_EQ(3u, Utf8Length(Ellipsize("\xE2\x89\xA5\xE2\x89\xA5\xE2\x89\xA5\xE2\x89\xA5", 3)));
  EXPECT_EQ(2u, Utf8Length("\xE2\x89\xA5"
                           "2"));
}

}  // namespace
}  // namespace nbcguard::plot
