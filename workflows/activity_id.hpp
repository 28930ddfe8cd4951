// Activity ids: the one place that spells them. Every id of a campaign's
// work is a path under the iteration's prefix, stable across runs (the
// replay provider, resumption and reports key on them):
//
//   <campaign>/p<problem>                               Problem()
//     /it<iteration>                                    Iteration()
//     /beam/b<j>            a beam member (BeamSelected.beam_id)
//     /measure/b<j>         its (re-)measurement
//     /memsnap              the bank snapshot the iteration's planners see
//     /summ/m<m>            summarizer call of pair m
//     /mem/m<m>             the memory item it wrote
//     /plan/b<b>/n<n>       planner call
//     /exec/b<b>/n<n>/k<k>  executor call of sample k
//     /cand/b<b>/n<n>/k<k>  the candidate it proposed
//     /eval/b<b>/n<n>/k<k>[/f<a>]   its evaluation (version a after a fix)
//     /fix/b<b>/n<n>/k<k>/f<a>      fix attempt a
//     /final                the final best, re-measured ("default")
//
// A re-distillation of a memory bank (workflows/redistill.hpp) is no
// campaign's work; its ids are spelled here too:
//
//   redistill/<bank>/<id>/<pair>    summarizer call of a pair  RedistillCall()
//   redistill/<bank>/<id>/m<pair>   the memory item it wrote   RedistillItem()
//   redistill/<id>/<pair>           the item's summarizer_activity
//                                                              RedistillSummarizer()
//
// Keys of the campaign's deterministic randomness (rng.hpp) are spelled
// here too: they are no activities, but as stable (a replay draws the same):
//
//   <beam member id>/profile   the profile shuffle of its planners ("paper")
//   <iteration>/memory         the memory's random retention ("paper")
//
// Pure functions; thread-safe.
#pragma once

#include <string>

namespace accelopt::workflows::activity_id {

std::string Problem(const std::string& campaign_id, int problem);
std::string Iteration(const std::string& campaign_id, int problem, int iteration);

// "/b<b>/n<n>/k<k>": the sample part shared by exec, cand, eval and fix.
std::string SampleSuffix(int beam, int plan, int sample);

std::string BeamMember(const std::string& iteration, int member);
std::string Measure(const std::string& iteration, int member);
std::string MemorySnapshot(const std::string& iteration);
std::string Summarize(const std::string& iteration, int pair);
std::string MemoryItem(const std::string& iteration, int pair);
std::string Plan(const std::string& iteration, int beam, int plan);
std::string Execute(const std::string& iteration, const std::string& sample_suffix);
std::string Candidate(const std::string& iteration, const std::string& sample_suffix);
// attempt 0: the executor's sample; a > 0: the version after fix a.
std::string Evaluate(const std::string& iteration, const std::string& sample_suffix, int attempt);
std::string Fix(const std::string& iteration, const std::string& sample_suffix, int attempt);
std::string FinalMeasure(const std::string& iteration);

std::string RedistillCall(const std::string& bank, const std::string& redistill_id, int pair);
std::string RedistillItem(const std::string& bank, const std::string& redistill_id, int pair);
std::string RedistillSummarizer(const std::string& redistill_id, int pair);

std::string ProfileShuffleKey(const std::string& beam_member);
std::string MemoryRetainKey(const std::string& iteration);

// The iteration an id lies in ("<c>/p0/it3/cand/..." -> 3); 0 when the id
// has no "/it<n>" part (e.g. "baseline").
int IterationOf(const std::string& id);

// The iteration prefix of an id ("<c>/p0/it3/beam/b1" -> "<c>/p0/it3"); the
// whole id when it has no "/it<n>" part.
std::string IterationPrefixOf(const std::string& id);

// An id within its campaign, for people ("<c>/p0/it2/eval/b0/n1/k0" ->
// "p0/it2/eval/b0/n1/k0"): what follows the campaign, i.e. the id from its
// first "/p<n>" part (Problem()) on. The whole id when it has no such part
// ("baseline", a re-distillation's ids).
std::string WithinCampaign(const std::string& id);

}  // namespace accelopt::workflows::activity_id
