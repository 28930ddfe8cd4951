// An iteration's outcome as the search policies see it: one Group per
// (parent beam member, plan), holding that plan's K executor samples.
// Built by the campaign from its state; policies are pure functions of it,
// so they can be tested on hand-built cases.
#pragma once

#include <string>
#include <vector>

namespace accelopt::workflows {

struct Sample {
  std::string candidate_id;
  std::string source_sha256;      // empty when the executor produced no usable code
  bool correct = false;           // compiled, passed the check, timed
  double latency_us = 0;          // meaningful only when correct
  double spread = 0;              // relative noise of latency_us (docs/contracts.md)
  std::string normalized_sha256;  // NormalizedCodeSha256 ("default" mode; else empty)
  bool evaluated = false;         // usable code that was evaluated, whatever the verdict (correct implies it)
  // Timed while other processes took its cores in every round (the judge's
  // profile.contended): the figure is an upper bound (contention only makes
  // it slower). The beam ranks clean picks before contended ones; a clean
  // figure "faster" than a contended one, or a contended one "slower" than a
  // clean one, is no lesson, no credit and no improvement (beam.cpp,
  // memory_policy.cpp, decide_memory.cpp); figures timed alike, and a
  // contended child that still beats a clean parent, stand.
  bool contended = false;
};

// True when a latency `a` (relative noise `a_spread`) is faster than `b`
// (noise `b_spread`) beyond the noise of both: a * (1 + a_spread) <
// b * (1 - b_spread). Spreads below 0 count as 0.
bool FasterBeyondNoise(double a, double a_spread, double b, double b_spread);

struct Group {
  int parent_index = 0;  // index of the parent in the iteration's beam
  std::string parent_beam_id;
  std::string parent_source_sha256;
  double parent_latency_us = 0;          // the parent's (re-)measured latency
  double parent_spread = 0;              // its relative noise
  std::string parent_normalized_sha256;  // "default" mode; else empty
  // The parent's re-measurement ran and did not pass (its latency is then
  // the one it was selected with, unconfirmed). DefaultBeamPolicy neither
  // carries nor keeps such a parent as the elite; PaperBeamPolicy ignores it.
  bool parent_failed = false;
  bool parent_contended = false;  // the parent's latency was timed contended (see Sample)
  int plan_index = 0;
  std::string plan_id;          // the planner activity id
  std::vector<Sample> samples;  // in sample order (k = 0..K-1)

  // The fastest correct sample, or nullptr when none is correct (a failed
  // group). Ties: the earlier sample.
  const Sample* Fastest() const;
  // The slowest correct sample, or nullptr. Ties: the earlier sample.
  const Sample* Slowest() const;
};

}  // namespace accelopt::workflows
