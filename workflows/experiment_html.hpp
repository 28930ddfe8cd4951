// The experiment report as one self-contained HTML page (inline CSS and SVG,
// no scripts; the campaign report's style sheet and charts, report_svg.hpp).
//
// Input: the report JSON of `acceloptctl experiment report -o json`
// (cli/experiment_report.cpp): experiment, against, campaigns,
// still_running, arms (per-arm summaries), comparisons (per arm and metric:
// the interval, verdict, pairs and per_problem outcomes), learn (the
// learning phase's campaigns) and cost_curves (per campaign: arm, seed,
// points [[cost_usd, best % of peak], ...]).
//
// Sections: the verdict sentences; the arms side by side; per comparison an
// interval chart (per problem and over all problems: the paired difference
// in % with its ~95% interval, 0 marked) and a table of the per-problem
// outcomes (helped / hurt, flagged as negative transfer / unresolved); per
// problem a paired plot of the speedup (one line per seed from the
// reference arm to the other); the cost-efficiency curves (best % of peak
// against dollars spent, a line per campaign, coloured by arm).
//
// Plot points carry the numbers as data- attributes that read back as the
// same doubles: interval points data-problem ("*" for all problems),
// data-percent, data-low, data-high, data-outcome; paired points
// data-problem, data-seed, data-arm, data-value; curve points data-arm,
// data-seed, data-cost, data-pct.
//
// Every text (arm names, problem ids) is escaped.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "base/json.hpp"

namespace accelopt::workflows {

std::string RenderExperimentHtml(const json& experiment_report);

}  // namespace accelopt::workflows
