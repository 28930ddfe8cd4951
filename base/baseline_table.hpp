// The columns of a suite's baseline profile: `accelopt-eval baseline` prints
// them as each problem is measured, `acceloptctl baseline` from the daemon's
// POST /v1/baseline (docs/api.md). One layout here so that the two print
// the same header and the same cells. Fixed widths (not fitted to the rows)
// because accelopt-eval prints a row as soon as its problem is measured.
//
//   PROBLEM                  STATUS            MEDIAN_US   SPREAD  % OF PEAK    BOUND  REASON
//   silu                     ok                    812.4    1.21%      3.412   memory
//   geometric mean of % of peak: 3.412 over 1 problems
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace accelopt::baseline_table {

struct Row {
  std::string problem, status;
  std::optional<double> median_us;        // "-" when absent
  std::optional<double> spread;           // a fraction (0.0121 prints as 1.21%)
  std::optional<double> percent_of_peak;  // "-" when absent
  std::string bound, reason;              // reason: shown for failures only (the caller's choice)
};

std::vector<std::string> Headers();
// The header line and one row's line, each with its trailing newline.
std::string HeaderLine();
std::string RowLine(const Row& row);
// The geometric mean of the positive percents ("... 0.000 over 0 problems"
// when there are none), with its newline.
std::string GeomeanLine(const std::vector<double>& percents_of_peak);

}  // namespace accelopt::baseline_table
