// The nki backend's prompt set (backend_prompts.hpp), written from what the
// nki evaluator does (evaluators/nki/: static_check.hpp, evaluate.hpp,
// runner.py, profile.hpp, roofline.hpp) and from the NKI documentation
// (partition dimension, SBUF/PSUM, matmul tile shapes, ranges). The facts
// sheet is ours; the profile glossary covers the 16 neuron-profile fields
// the AccelOpt paper showed its planner.
//
// Thread safety: pure functions; the set is immutable.
#pragma once

#include <string>

#include "workflows/backend_prompts.hpp"

namespace accelopt::workflows {

const BackendPrompts& NkiPrompts();

// The hardware facts of an nki campaign as prose: a generation entry of
// evaluators/nki/trainium.json ({"core", "matmul_flops_per_s",
// "vector_flops_per_s", "hbm_bytes_per_s", "sbuf_bytes", "psum_bytes",
// "partitions"}), itself or under the key "nki" of the campaign's hardware
// facts (where the daemon puts it beside the cpu calibration); other JSON as
// a list of facts.
std::string NkiHardwareProse(const json& generation);

}  // namespace accelopt::workflows
