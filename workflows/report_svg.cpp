#include "workflows/report_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/html.hpp"

namespace accelopt::workflows::svg {

namespace {

constexpr double kLeft = 64, kRight = 16, kTop = 44, kBottom = 44;  // legend between title and plot

std::string F(double v) {  // a coordinate
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Attrs(const DataAttrs& data) {
  std::string out;
  for (const auto& [k, v] : data) out += " data-" + HtmlEscape(k) + "=\"" + HtmlEscape(v) + "\"";
  return out;
}

// Maps values to pixels on one axis (linear or log10).
struct Scale {
  double lo = 0, hi = 1, p0 = 0, p1 = 1;
  bool log = false;
  double T(double v) const { return log ? std::log10(std::max(v, 1e-300)) : v; }
  double operator()(double v) const {
    const double a = T(lo), b = T(hi);
    return b == a ? (p0 + p1) / 2 : p0 + (T(v) - a) / (b - a) * (p1 - p0);
  }
};

std::vector<double> Ticks(double lo, double hi, bool log) {
  std::vector<double> t;
  if (log) {
    for (double d = std::pow(10, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
      for (double m : {1.0, 2.0, 5.0})
        if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) t.push_back(d * m);
    if (t.size() > 9) {  // decades only
      std::vector<double> d;
      for (double v : t)
        if (std::abs(std::log10(v) - std::round(std::log10(v))) < 1e-9) d.push_back(v);
      t = d;
    }
    return t;
  }
  const double span = hi - lo;
  if (span <= 0) return {lo};
  const double raw = span / 5, mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (mag * m >= raw) {
      step = mag * m;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

// Range of the values, padded; a log range keeps to positive values.
std::pair<double, double> Range(std::vector<double> v, bool log) {
  if (log) v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }), v.end());
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return log ? std::pair{1.0, 100.0} : std::pair{0.0, 1.0};
  double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
  if (log) {
    lo = std::pow(10, std::floor(std::log10(lo / 1.3)));
    return {lo, hi * 1.4};
  }
  lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + 1;
  return {lo, hi + (hi - lo) * 0.08};
}

std::string Frame(const std::string& css_class, const DataAttrs& data, double w, double h, const std::string& title) {
  std::string s = "<svg class=\"chart " + HtmlEscape(css_class) + "\" width=\"" + F(w) + "\" height=\"" + F(h) +
                  "\" viewBox=\"0 0 " + F(w) + " " + F(h) + "\"" + Attrs(data) + " role=\"img\">";
  s += "<title>" + HtmlEscape(title) + "</title>";
  s += "<text class=\"chart-title\" x=\"" + F(kLeft) + "\" y=\"16\">" + HtmlEscape(title) + "</text>";
  return s;
}

std::string YAxis(const Scale& y, double x0, double x1, const std::string& label, double h) {
  std::string s;
  for (double t : Ticks(y.lo, y.hi, y.log)) {
    const double py = y(t);
    s += "<line class=\"grid\" x1=\"" + F(x0) + "\" x2=\"" + F(x1) + "\" y1=\"" + F(py) + "\" y2=\"" + F(py) + "\"/>";
    s += "<text class=\"tick\" x=\"" + F(x0 - 6) + "\" y=\"" + F(py + 4) + "\" text-anchor=\"end\">" +
         HtmlEscape(ShortNumber(t)) + "</text>";
  }
  s += "<text class=\"axis-label\" transform=\"translate(14," + F((kTop + h - kBottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + HtmlEscape(label) + "</text>";
  return s;
}

std::string RefLines(const std::vector<RefLine>& lines, const Scale& y, double x0, double x1) {
  std::string s;
  for (const RefLine& l : lines) {
    if (!std::isfinite(l.y) || (y.log && l.y <= 0)) continue;
    const double py = std::clamp(y(l.y), std::min(y.p0, y.p1), std::max(y.p0, y.p1));
    s += "<g class=\"refline " + HtmlEscape(l.css_class) + "\"" + Attrs(l.data) + ">";
    s += "<line x1=\"" + F(x0) + "\" x2=\"" + F(x1) + "\" y1=\"" + F(py) + "\" y2=\"" + F(py) + "\"/>";
    s += "<text x=\"" + F(x1 - 4) + "\" y=\"" + F(py - 4) + "\" text-anchor=\"end\">" + HtmlEscape(l.label) + "</text>";
    s += "</g>";
  }
  return s;
}

}  // namespace

std::string ShortNumber(double v) {
  char buf[32];
  const double a = std::abs(v);
  if (a >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
  else if (a >= 1e4)
    std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
  else if (a >= 100)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string Render(const LineChart& c) {
  const double x0 = kLeft, x1 = c.width - kRight, y0 = c.height - kBottom, y1 = kTop;
  std::vector<double> ys, xs;
  for (const Series& s : c.series)
    for (const Point& p : s.points) {
      xs.push_back(p.x);
      ys.push_back(p.y);
      if (std::isfinite(p.low)) ys.push_back(p.low);
      if (std::isfinite(p.high)) ys.push_back(p.high);
    }
  for (const RefLine& l : c.lines) ys.push_back(l.y);
  auto [ylo, yhi] = Range(ys, c.log_y);
  double xlo = 0, xhi = 1;
  if (!xs.empty()) {
    xlo = *std::min_element(xs.begin(), xs.end());
    xhi = *std::max_element(xs.begin(), xs.end());
  }
  if (xhi <= xlo) xhi = xlo + 1;
  const Scale x{xlo - (xhi - xlo) * 0.04, xhi + (xhi - xlo) * 0.04, x0, x1, false};
  const Scale y{ylo, yhi, y0, y1, c.log_y};

  std::string s = Frame(c.css_class, c.data, c.width, c.height, c.title);
  s += YAxis(y, x0, x1, c.y_label, c.height);
  const bool integer_x = std::all_of(xs.begin(), xs.end(), [](double v) { return v == std::floor(v); });
  for (double t : Ticks(xlo, xhi, false)) {
    if (integer_x && t != std::floor(t)) continue;
    s += "<text class=\"tick\" x=\"" + F(x(t)) + "\" y=\"" + F(y0 + 16) + "\" text-anchor=\"middle\">" +
         HtmlEscape(ShortNumber(t)) + "</text>";
  }
  s += "<line class=\"axis\" x1=\"" + F(x0) + "\" x2=\"" + F(x1) + "\" y1=\"" + F(y0) + "\" y2=\"" + F(y0) + "\"/>";
  s += "<line class=\"axis\" x1=\"" + F(x0) + "\" x2=\"" + F(x0) + "\" y1=\"" + F(y0) + "\" y2=\"" + F(y1) + "\"/>";
  s += "<text class=\"axis-label\" x=\"" + F((x0 + x1) / 2) + "\" y=\"" + F(c.height - 8) +
       "\" text-anchor=\"middle\">" + HtmlEscape(c.x_label) + "</text>";
  s += RefLines(c.lines, y, x0, x1);
  for (const Series& se : c.series) {
    s += "<g class=\"series " + HtmlEscape(se.css_class) + "\" data-series=\"" + HtmlEscape(se.name) + "\">";
    if (se.line && se.points.size() > 1) {
      s += "<polyline fill=\"none\" points=\"";
      for (const Point& p : se.points) s += F(x(p.x)) + "," + F(y(p.y)) + " ";
      s += "\"/>";
    }
    for (const Point& p : se.points) {
      const double px = x(p.x), py = y(p.y);
      s += "<g class=\"point\"" + Attrs(p.data) + ">";
      if (!p.title.empty()) s += "<title>" + HtmlEscape(p.title) + "</title>";
      if (std::isfinite(p.low) && std::isfinite(p.high)) {
        const double a = y(p.low), b = y(p.high);
        s += "<path class=\"whisker\" d=\"M" + F(px) + " " + F(a) + "V" + F(b) + "M" + F(px - 3) + " " + F(a) + "H" +
             F(px + 3) + "M" + F(px - 3) + " " + F(b) + "H" + F(px + 3) + "\"/>";
      }
      if (se.marker == "diamond") {
        s += "<path class=\"marker\" d=\"M" + F(px) + " " + F(py - 6) + "L" + F(px + 6) + " " + F(py) + "L" + F(px) +
             " " + F(py + 6) + "L" + F(px - 6) + " " + F(py) + "Z\"/>";
      } else if (se.marker == "circle") {
        s += "<circle class=\"marker\" cx=\"" + F(px) + "\" cy=\"" + F(py) + "\" r=\"3.5\"/>";
      }
      s += "</g>";
    }
    s += "</g>";
  }
  // Legend.
  double lx = x0 + 8;
  for (const Series& se : c.series) {
    s += "<g class=\"legend series " + HtmlEscape(se.css_class) + "\"><circle class=\"marker\" cx=\"" + F(lx) +
         "\" cy=\"" + F(y1 - 14) + "\" r=\"4\"/><text x=\"" + F(lx + 8) + "\" y=\"" + F(y1 - 10) + "\">" +
         HtmlEscape(se.name) + "</text></g>";
    lx += 22 + 7.0 * static_cast<double>(se.name.size());
  }
  return s + "</svg>";
}

std::string Render(const BarChart& c) {
  const double x0 = kLeft, x1 = c.width - kRight, y0 = c.height - kBottom, y1 = kTop;
  std::vector<double> ys;
  for (const Bar& b : c.bars) ys.push_back(b.value);
  for (const RefLine& l : c.lines) ys.push_back(l.y);
  if (c.log_y) ys.push_back(1);
  auto [ylo, yhi] = Range(ys, c.log_y);
  const Scale y{ylo, yhi, y0, y1, c.log_y};
  std::string s = Frame(c.css_class, c.data, c.width, c.height, c.title);
  s += YAxis(y, x0, x1, c.y_label, c.height);
  const double slot = (x1 - x0) / std::max<size_t>(1, c.bars.size()), bw = std::min(60.0, slot * 0.6);
  const double base = c.log_y ? y(ylo) : y(0);
  for (size_t i = 0; i < c.bars.size(); ++i) {
    const Bar& b = c.bars[i];
    const double cx = x0 + slot * (static_cast<double>(i) + 0.5);
    const double top = std::isfinite(b.value) && (!c.log_y || b.value > 0) ? y(b.value) : base;
    s += "<g class=\"bar\"" + Attrs(b.data) + ">";
    if (!b.title.empty()) s += "<title>" + HtmlEscape(b.title) + "</title>";
    s += "<rect x=\"" + F(cx - bw / 2) + "\" y=\"" + F(std::min(top, base)) + "\" width=\"" + F(bw) + "\" height=\"" +
         F(std::abs(base - top)) + "\"/>";
    s += "<text class=\"value\" x=\"" + F(cx) + "\" y=\"" + F(std::min(top, base) - 4) + "\" text-anchor=\"middle\">" +
         HtmlEscape(ShortNumber(b.value) + c.value_suffix) + "</text>";
    s += "<text class=\"tick\" x=\"" + F(cx) + "\" y=\"" + F(y0 + 16) + "\" text-anchor=\"middle\">" +
         HtmlEscape(b.label) + "</text>";
    s += "</g>";
  }
  s += "<line class=\"axis\" x1=\"" + F(x0) + "\" x2=\"" + F(x1) + "\" y1=\"" + F(base) + "\" y2=\"" + F(base) + "\"/>";
  s += RefLines(c.lines, y, x0, x1);
  return s + "</svg>";
}

}  // namespace accelopt::workflows::svg
