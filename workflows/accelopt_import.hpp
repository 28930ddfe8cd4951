// AccelOpt's experience list (the published rewrites_selection.py output) as
// memory items.
//
// A published item is
//   {service_name, case_name, id, speedup_original, speedup, slow_kernel,
//    fast_kernel, raw_response, title, summary}
// with `speedup` = max(s, 1/s) >= 1 and the sign in `speedup_original`
// (s = parent latency / child latency; < 1 is a negative pair, whose
// slow_kernel is the child and fast_kernel the parent). `summary` is the
// summarizer's reply and is absent on "No optimization found" items (their
// title is "**No optimization found**"). The mapping:
//   title        the title without its ** markers
//   description  the summary without its bold title line, up to "Original code:"
//   slow/fast    the first fenced block after "Original code:" / after
//   snippet      "Optimized code:" in the summary (without the markers: the
//                summary's first two fenced blocks)
//   kind         negative when speedup_original < 1, else positive
//   pair         speedup = `speedup` (>= 1), child_speedup = speedup_original,
//                plan_id "<service_name>/<id>", slow/fast_sha256 = sha256 of
//                slow_kernel / fast_kernel (the whole kernels are provenance
//                only and are not stored)
//   problem      case_name (e.g. "silu_M4096_N7168")
//   no_optimization  summary absent, or "No optimization found" in the title
//                or summary (the published plain substring test)
// Items get ids "<id_prefix>/<i>". kInvalidArgument naming the entry when an
// item is not an object, lacks speedup_original (or speedup) as a positive
// number, or has neither a title nor a summary.
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "workflows/memory_policy.hpp"

namespace accelopt::workflows {

Result<std::vector<MemoryItem>> ParseAccelOptExperiences(const json& list, const std::string& id_prefix);

}  // namespace accelopt::workflows
