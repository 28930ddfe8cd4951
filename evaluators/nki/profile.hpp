// A profile summary, as `neuron-profile view --output-format summary-json
// -n NEFF -s NTFF` (Neuron up to 2.28) or `neuron-explorer view ...` (from
// 2.29, the same option; "Migration Guide from Neuron Profiler to Neuron
// Explorer") prints it. Its layout is not documented and "may change
// between versions", so every layout seen in what we read is accepted,
// found by content:
//   nested  one member (an object, or an array of one object) holds the
//           metrics: neuron-profile's {kernel: {...}};
//   flat    the metrics at the top level (how AWS's neuron-nki-profiling
//           agent skill, aws-neuron/neuron-agentic-development, reads
//           neuron-explorer's summary);
// and the device time is "total_time" (seconds) or, where absent,
// "latency" (milliseconds). DeviceProfile::layout names which was read. We
// read the 16 fields the AccelOpt paper showed its planner
// (kProfileFields). Any other member is ignored; a field we want that is
// absent is recorded as missing; a field that is present but not a number
// (or a numeric string) is an error. A summary with no device time in any
// of these places is "an unknown summary layout" (kInvalidArgument).
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

inline constexpr std::array<std::string_view, 16> kProfileFields = {"hbm_read_bytes",
                                                                    "hbm_write_bytes",
                                                                    "psum_read_bytes",
                                                                    "psum_write_bytes",
                                                                    "sbuf_read_bytes",
                                                                    "sbuf_write_bytes",
                                                                    "spill_reload_bytes",
                                                                    "spill_save_bytes",
                                                                    "hardware_flops",
                                                                    "transpose_flops",
                                                                    "peak_flops_bandwidth_ratio",
                                                                    "mm_arithmetic_intensity",
                                                                    "hfu_estimated_percent",
                                                                    "scalar_engine_active_time_percent",
                                                                    "vector_engine_active_time_percent",
                                                                    "gpsimd_engine_active_time_percent"};

struct DeviceProfile {
  std::string kernel;                    // the summary's key (the profiled kernel); "" when flat
  std::string layout;                    // "nested total_time (s)", "flat latency (ms)", ...
  double total_time_s = 0;               // device time, seconds (> 0)
  std::map<std::string, double> fields;  // of kProfileFields, those present
  std::vector<std::string> missing;      // of kProfileFields, those absent

  // {"total_time_us", "fields": {...}, "missing": [...]} for results.
  json ToJson() const;
};

// `file` names the summary in messages. kInvalidArgument when the text is
// not JSON, not an object, an unknown layout, several members hold a
// device time, or the time is not a positive finite number.
Result<DeviceProfile> ParseProfileSummary(std::string_view text, const std::string& file);

}  // namespace accelopt::eval::nki
