// The judge's cases as the calls see them: a correctness case's inputs drawn
// from its seed and its reference (from the cache or computed now), and the
// timing pool, whose cases' inputs and references are computed once per
// problem and secret, the first time an evaluation uses each, and read back
// from their case files (inputs and reference as one verified unit, 0600, in
// a folder no runner can open; job.hpp WriteCaseFile) ever after. Included once, by judge_main.cpp.
//
// Why a pool: every timed call must run on inputs its runner process has
// never seen (docs/evaluation.md, "Inputs"), and each one needs a double
// reference, which costs far more than the candidate's call. The pool's
// cases are secret-seeded like every other case, and the judge hands each
// runner process every pool case at most once, so from inside a runner a
// pooled case is indistinguishable from a fresh one: the runner has no
// memory of earlier runner processes (no files it may write, no IPC, a new
// region per process).
//
// Thread safety: single-threaded (the judge's main thread).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "evaluators/judge/harness/job.hpp"
#include "evaluators/judge/harness/references.hpp"

namespace judge {

// One case's inputs (every input, concatenated in parameter order) and its
// reference outputs (double, every output concatenated), held by the judge.
struct CaseData {
  int index = -1;  // into job.cases
  std::vector<float> inputs;
  std::vector<double> ref;
  std::vector<float*> Inputs(const Job& job) { return InputPointers(job, inputs.data()); }
};

class CasePool {
 public:
  explicit CasePool(const Job& job) : job_(job) {
    for (size_t c = 0; c < job.cases.size(); ++c)
      (job.cases[c].role == 'p' ? pool_ : correctness_).push_back(static_cast<int>(c));
  }

  const std::vector<int>& correctness() const { return correctness_; }
  size_t pool_size() const { return pool_.size(); }

  // Loads case c into d: inputs drawn from the seed (correctness cases) or
  // read from the cache (pool cases), and the reference. A cached file that
  // is missing or does not verify (job.hpp ReadCaseFile) is computed again
  // and rewritten: a damaged cache costs time, never a verdict.
  void Load(int c, CaseData* d) const {
    const Case& cs = job_.cases[static_cast<size_t>(c)];
    d->index = c;
    d->inputs.resize(static_cast<size_t>(InputElements(job_)));
    d->ref.resize(static_cast<size_t>(OutputElements(job_)));
    if (cs.role == 'p') {
      if (!ReadCaseFile(cs.ref_path, {{d->inputs.data(), sizeof(float) * d->inputs.size()},
                                      {d->ref.data(), sizeof(double) * d->ref.size()}}))
        Make(c, d);
      return;
    }
    DrawInputs(job_, cs, d->Inputs(job_));
    if (cs.ref_path == "-") {
      d->ref = ReferenceOf(job_, d->Inputs(job_), static_cast<size_t>(c));
    } else if (!ReadCaseFile(cs.ref_path, {{d->ref.data(), sizeof(double) * d->ref.size()}})) {
      Heal(c, d->Inputs(job_), &d->ref);
    }
  }

  // Case c's reference alone (for the zero-norm check), or false when the
  // judge computes it now ("-").
  bool ReadReference(int c, std::vector<double>* ref) const {
    const Case& cs = job_.cases[static_cast<size_t>(c)];
    if (cs.ref_path == "-") return false;
    ref->resize(static_cast<size_t>(OutputElements(job_)));
    if (!ReadCaseFile(cs.ref_path, {{ref->data(), sizeof(double) * ref->size()}})) {
      std::vector<float> in(static_cast<size_t>(InputElements(job_)));
      const std::vector<float*> fin = InputPointers(job_, in.data());
      DrawInputs(job_, cs, fin);
      Heal(c, fin, ref);
    }
    return true;
  }

  // A correctness case whose cached reference was missing or damaged: the
  // reference computed again from its inputs and written back.
  void Heal(int c, const std::vector<float*>& inputs, std::vector<double>* ref) const {
    const Case& cs = job_.cases[static_cast<size_t>(c)];
    Stage("reference case " + std::to_string(c) + ": cached file missing or damaged, computing it again");
    *ref = ReferenceOf(job_, inputs, static_cast<size_t>(c));
    WriteCaseFile(cs.ref_path, {{ref->data(), sizeof(double) * ref->size()}});
    ++healed_;
  }
  int healed() const { return healed_; }

  // The first use of pool case c on this machine (or its file did not
  // verify): its inputs drawn from its seed and its reference, written as
  // one case file, 0600 and atomically (a judge beside it may be writing the
  // same bytes).
  void Make(int c, CaseData* d) const {
    const Case& cs = job_.cases[static_cast<size_t>(c)];
    Stage("timing pool case " + std::to_string(c) + ": first use, computing its reference");
    const double t0 = Now();
    DrawInputs(job_, cs, d->Inputs(job_));
    d->ref = ReferenceOf(job_, d->Inputs(job_), static_cast<size_t>(c));
    WriteCaseFile(cs.ref_path, {{d->inputs.data(), sizeof(float) * d->inputs.size()},
                                {d->ref.data(), sizeof(double) * d->ref.size()}});
    ++made_;
    make_s_ += Now() - t0;
  }
  int made() const { return made_; }

  // Makes pool cases not on disk yet, before any timing round, until `want`
  // cases are on disk or the job's pool_make_budget_s is spent: a reference
  // computed between two timed batches would leave the caches cold for the
  // next one (seen: the test silu's spread went from 2% to 20% with cases
  // made during timing). A round that needs more makes them as it goes.
  void MakeAhead(size_t want) {
    size_t on_disk = 0;
    for (int c : pool_) on_disk += access(job_.cases[static_cast<size_t>(c)].ref_path.c_str(), F_OK) == 0 ? 1 : 0;
    CaseData d;
    d.inputs.resize(static_cast<size_t>(InputElements(job_)));
    d.ref.resize(static_cast<size_t>(OutputElements(job_)));
    for (int c : pool_) {
      if (on_disk >= want || make_s_ >= job_.pool_make_budget_s) break;
      if (access(job_.cases[static_cast<size_t>(c)].ref_path.c_str(), F_OK) == 0) continue;
      Make(c, &d);
      ++on_disk;
    }
  }

  // The pool in a fresh random order, once per evaluation: every case is
  // taken at most once in the whole evaluation (every round, every runner
  // process), so nothing one runner process could have learned about a
  // case is ever worth anything to another. Cases whose files exist come
  // first: an evaluation makes new pool cases only when the cached ones are
  // used up, and only within its budget (CanTake).
  void Shuffle(std::mt19937_64& rng) {
    std::vector<int> cached, fresh;
    for (int c : pool_) {
      const Case& cs = job_.cases[static_cast<size_t>(c)];
      (access(cs.ref_path.c_str(), F_OK) == 0 ? cached : fresh).push_back(c);
    }
    std::shuffle(cached.begin(), cached.end(), rng);
    std::shuffle(fresh.begin(), fresh.end(), rng);
    order_ = cached;
    order_.insert(order_.end(), fresh.begin(), fresh.end());
    first_fresh_ = cached.size();
    next_ = 0;
  }
  size_t left() const { return order_.size() - next_; }
  // Whether the next n cases may be taken: there are n unused ones, and
  // those not yet on disk fit the job's pool_make_budget_s (seconds of
  // making references this evaluation may spend; the rest of its timeout
  // belongs to the candidate).
  bool CanTake(size_t n) const {
    if (left() < n) return false;
    return next_ + n <= first_fresh_ || make_s_ < job_.pool_make_budget_s;
  }
  // The next n never-used cases of this evaluation (CanTake(n)).
  std::vector<int> Take(size_t n) {
    std::vector<int> out(order_.begin() + static_cast<long>(next_), order_.begin() + static_cast<long>(next_ + n));
    next_ += n;
    return out;
  }

 private:
  const Job& job_;
  std::vector<int> correctness_, pool_, order_;
  size_t next_ = 0, first_fresh_ = 0;
  mutable int made_ = 0, healed_ = 0;
  mutable double make_s_ = 0;
};

}  // namespace judge
