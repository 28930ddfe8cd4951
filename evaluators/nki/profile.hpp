// A profile summary, as `neuron-profile view --output-format summary-json
// -n NEFF -s NTFF` (Neuron up to 2.28) or `neuron-explorer view ...` (from
// 2.29, the same option) prints it: a JSON object with the profiled
// kernel's summary, an object of metrics, as one member (neuron-profile:
// {kernel: {...}}) among possibly several others in any order, or as an
// array of one object; the member that holds total_time is the summary,
// found by its content, never by its position. We read the device time
// `total_time` (seconds) and the 16
// fields the AccelOpt paper showed its planner (kProfileFields). Any other
// member is ignored; a field we want that is absent is recorded as missing
// (the profiler's fields vary across SDK releases); a field that is present
// but not a number (or a numeric string) is an error.
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::eval::nki {

inline constexpr std::array<std::string_view, 16> kProfileFields = {
    "hbm_read_bytes",        "hbm_write_bytes",
    "psum_read_bytes",       "psum_write_bytes",
    "sbuf_read_bytes",       "sbuf_write_bytes",
    "spill_reload_bytes",    "spill_save_bytes",
    "hardware_flops",        "transpose_flops",
    "peak_flops_bandwidth_ratio", "mm_arithmetic_intensity",
    "hfu_estimated_percent", "scalar_engine_active_time_percent",
    "vector_engine_active_time_percent", "gpsimd_engine_active_time_percent"};

struct DeviceProfile {
  std::string kernel;                    // the summary's key (the profiled kernel)
  double total_time_s = 0;               // device time, seconds (> 0)
  std::map<std::string, double> fields;  // of kProfileFields, those present
  std::vector<std::string> missing;      // of kProfileFields, those absent

  // {"total_time_us", "fields": {...}, "missing": [...]} for results.
  json ToJson() const;
};

// `file` names the summary in messages. kInvalidArgument when the text is
// not JSON, not an object, has no member or several members with a
// total_time, or its total_time is not a positive finite number.
Result<DeviceProfile> ParseProfileSummary(std::string_view text, const std::string& file);

}  // namespace accelopt::eval::nki
