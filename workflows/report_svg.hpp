// Small inline-SVG charts for the HTML report (report_html.hpp): a line
// chart (series of points with optional ~95% intervals and markers, plus
// horizontal reference lines) and a bar chart with a reference line. No
// scripts, no external resources: each function returns one <svg> element.
//
// Every text (names, titles, labels) is escaped here; callers pass plain
// text. Every data point carries its values as data- attributes (given by
// the caller, numbers written with HtmlNumber so they read back exactly),
// which is what tests read back from the rendered page.
//
// Thread safety: pure functions.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace accelopt::workflows::svg {

using DataAttrs = std::vector<std::pair<std::string, std::string>>;  // name (without "data-"), value

inline constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

struct Point {
  double x = 0, y = 0;
  double low = kNone, high = kNone;  // interval on y, drawn as a whisker when both are set
  std::string title;                 // tooltip
  DataAttrs data;
};

struct Series {
  std::string name;
  std::string css_class;          // e.g. "best", "candidate", "remeasured"
  bool line = true;               // join the points
  std::string marker = "circle";  // "circle" | "diamond" | "none"
  std::vector<Point> points;
};

struct RefLine {
  double y = 0;
  std::string label, css_class;
  DataAttrs data;
};

struct LineChart {
  std::string title, x_label, y_label;
  bool log_y = false;
  double width = 640, height = 300;
  std::vector<Series> series;
  std::vector<RefLine> lines;
  std::string css_class;  // on the <svg>
  DataAttrs data;         // on the <svg>
};

struct Bar {
  std::string label;
  double value = 0;
  std::string title;
  DataAttrs data;
};

struct BarChart {
  std::string title, y_label, value_suffix;  // suffix after each bar's value label, e.g. "x"
  bool log_y = false;
  double width = 640, height = 300;
  std::vector<Bar> bars;
  std::vector<RefLine> lines;
  std::string css_class;
  DataAttrs data;
};

std::string Render(const LineChart& chart);
std::string Render(const BarChart& chart);

// A short form of a number for axis ticks and labels ("0.5", "12", "1.2k").
std::string ShortNumber(double v);

}  // namespace accelopt::workflows::svg
