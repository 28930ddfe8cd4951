#include "base/baseline_table.hpp"

#include <cmath>
#include <cstdio>

namespace accelopt::baseline_table {
namespace {

std::string Num(const std::optional<double>& v, int precision, double scale = 1, const char* suffix = "") {
  if (!v) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%s", precision, scale * *v, suffix);
  return buf;
}

std::string Line(const std::vector<std::string>& c) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-24s %-14s %12s %8s %10s %8s  ", c[0].c_str(), c[1].c_str(), c[2].c_str(),
                c[3].c_str(), c[4].c_str(), c[5].c_str());
  std::string line = buf + c[6];
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

}  // namespace

std::vector<std::string> Headers() {
  return {"PROBLEM", "STATUS", "MEDIAN_US", "SPREAD", "% OF PEAK", "BOUND", "REASON"};
}

std::string HeaderLine() { return Line(Headers()); }

std::string RowLine(const Row& r) {
  return Line({r.problem, r.status, Num(r.median_us, 1), Num(r.spread, 2, 100, "%"), Num(r.percent_of_peak, 3), r.bound,
               r.reason});
}

std::string GeomeanLine(const std::vector<double>& percents) {
  double log_sum = 0;
  size_t n = 0;
  for (double p : percents) {
    if (!(p > 0)) continue;
    log_sum += std::log(p);
    ++n;
  }
  char buf[128];
  std::snprintf(buf, sizeof buf, "geometric mean of %% of peak: %.3f over %zu problems\n",
                n ? std::exp(log_sum / n) : 0.0, n);
  return buf;
}

}  // namespace accelopt::baseline_table
