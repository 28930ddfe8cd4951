// One readable line per campaign event, for `acceloptctl events` in table
// mode: what a person wants from each type (an EvaluationCompleted shows
// status, latency and % of peak, not the compiler's output). Types it does
// not know are shown as compact JSON, cut to a line.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "base/json.hpp"

namespace accelopt::cli {

// `event` as the API returns it: {version, type, recorded_at_us, data, ...}.
// "<version>  <HH:MM:SS>  <type>  <summary>", no newline.
std::string EventLine(const json& event);

}  // namespace accelopt::cli
