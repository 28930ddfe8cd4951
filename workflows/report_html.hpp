// The campaign report as one self-contained HTML page: inline CSS and SVG,
// no scripts, fonts or other resources (a Content-Security-Policy meta tag
// forbids loading any), so the file can be mailed, archived or opened from
// disk.
//
// Input: the detailed report (report_detail.hpp, BuildDetailedReport) and
// the texts of the kernels it names, by sha256 (the best kernel of each
// problem and its baseline; a missing text is shown as missing). Sections:
// summary; speedup and % of peak bars with the geometric mean; per problem
// the % of peak trace over iterations (best so far, every measurement with
// its ~95% interval, re-measured winners, baseline and roofline lines), the
// per-iteration table (latency, % of peak, GFLOP/s, GB/s), how the best
// kernel was found (its lineage with plan titles), every candidate, the
// memory items read and written with their credit, the best source and its
// diff against the baseline; LLM cost and tokens per role and model over
// time, with where each figure came from.
//
// Plot points carry the report's numbers as data- attributes, written so
// they parse back to the same doubles: trace points data-iteration and
// data-pct (== percent_of_peak_by_iteration), measurements data-id,
// data-pct, data-low, data-high, bars data-problem and data-speedup /
// data-pct, reference lines data-pct / data-speedup.
//
// Every text from the report (ids, plan titles, model names, sources) is
// untrusted and escaped.
//
// Thread safety: pure function.
#pragma once

#include <map>
#include <string>

#include "base/json.hpp"

namespace accelopt::workflows {

std::string RenderReportHtml(const json& detailed_report, const std::map<std::string, std::string>& sources);

// The reports' one style sheet (also the experiment report's,
// experiment_html.hpp): the text of a <style> element.
const char* ReportStyleSheet();

// The sha256s of the texts RenderReportHtml shows (best and baseline
// sources of each problem), for the caller to look up.
std::vector<std::string> ReportHtmlSources(const json& detailed_report);

}  // namespace accelopt::workflows
