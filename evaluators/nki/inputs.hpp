// The nki judge's inputs: every array input of every case drawn from a
// stream derived from the evaluation's secret key (never written where the
// runner can read it before the inputs themselves), counter-based so element
// k depends only on (stream, k). Case c < normal_cases uses the problem's
// distributions; case normal_cases + a uses adversarial case a's overrides.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workflows/problem_json.hpp"

namespace accelopt::eval::nki {

// The stream of input `param` (its index in params) of case `c`.
uint64_t InputStream(uint64_t secret_key, int c, int param);

// n draws of `d` from `stream`, elements first..first+n-1 of it (a chunk of
// a larger input gets the same numbers as one fill of the whole).
void FillInput(float* x, int64_t n, const workflows::Distribution& d, uint64_t stream, int64_t first = 0);

// The distribution of input `p` in case `c` (see above).
workflows::Distribution CaseDistribution(const workflows::ProblemSpec& problem, const workflows::Param& p, int c,
                                         int normal_cases);

// The integer shape of an array param (dim names resolved through dims).
std::vector<int64_t> ResolvedShape(const workflows::ProblemSpec& problem, const workflows::Param& p);

}  // namespace accelopt::eval::nki
