// Selection: the kernels an iteration starts from (its beam) and the one a
// problem ends with (its final best), as the data of the events that
// record them. The ranking itself is the mode's BeamPolicy (beam.hpp); this
// file turns its picks into beam members with their ids and lineage.
//
// Pure functions of their arguments; thread-safe. They read the state (and
// blobs) and return event data; Decide (decide.cpp) emits it.
#pragma once

#include "base/json.hpp"
#include "base/status.hpp"
#include "workflows/blob_source.hpp"
#include "workflows/campaign_state.hpp"

namespace accelopt::workflows {

// BeamSelected.members of iteration i of problem p. Iteration 0: the
// baseline alone. Later: BeamPolicyFor(mode) over the groups of iteration
// i - 1, at most spec.search.B members. With ModeRules.beam_lineage
// ("default") each member also records its normalized code, noise, whether
// it is a carried parent, and its code parent (the member whose code it
// improved on). kCorruption when the baseline's blob is missing.
// REQUIRES: iterations 0..i of problem p exist; i > 0: i - 1 is done.
Result<json> SelectBeamMembers(const CampaignState& state, const BlobSource& blobs, int p, int i);

// "default" mode: BestSelected data for problem p from its last iteration
// i: the fastest of the (re-measured) beam and its correct children. A
// member whose re-measurement failed is no best at an unconfirmed latency,
// unless every member failed. "sampling" (best_of_all_iterations): the
// correct samples of every iteration 0..i compete.
json SelectBest(const CampaignState& state, int p, int i);

}  // namespace accelopt::workflows
