// The judge's trusted references: the problem's reference function (linked
// into the judge, called through the generated AcceloptCallReference glue) on
// a case's inputs converted to double, and "prepare" mode, which computes the
// pooled cases' inputs and references once and caches them (0600). Included
// once, by judge_main.cpp.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "evaluators/judge/harness/inputs.hpp"
#include "evaluators/judge/harness/job.hpp"

extern "C" void AcceloptCallReference(void* const* args);

namespace judge {

// Scalar and dim arguments of the reference (double) signature.
struct RefArgs {
  std::vector<void*> ptr;
  std::vector<double> d;
  std::vector<int64_t> i;
};
inline RefArgs BuildRefArgs(const Job& job) {
  size_t n = job.params.size();
  RefArgs a;
  a.ptr.assign(n, nullptr);
  a.d.assign(n, 0);
  a.i.assign(n, 0);
  for (size_t k = 0; k < n; ++k) {
    const Param& p = job.params[k];
    if (p.kind == 'd' || (p.kind == 's' && p.scalar_type == 'i')) {
      a.i[k] = p.kind == 'd' ? p.elements : static_cast<int64_t>(p.value);
      a.ptr[k] = &a.i[k];
    } else if (p.kind == 's') {
      a.d[k] = static_cast<double>(static_cast<float>(p.value));  // the value the kernel sees, in double
      a.ptr[k] = &a.d[k];
    }
  }
  return a;
}

inline int64_t InputElements(const Job& job) {
  int64_t n = 0;
  for (const auto& p : job.params)
    if (p.kind == 'i') n += p.elements;
  return n;
}

// Pointers to each input inside one buffer holding every input, concatenated
// in parameter order (nullptr for the other parameters).
inline std::vector<float*> InputPointers(const Job& job, float* all) {
  std::vector<float*> ptr(job.params.size(), nullptr);
  int64_t off = 0;
  for (size_t k = 0; k < job.params.size(); ++k) {
    if (job.params[k].kind != 'i') continue;
    ptr[k] = all + off;
    off += job.params[k].elements;
  }
  return ptr;
}

// The reference outputs (all outputs, concatenated), in double, of the
// inputs at `fin` (per parameter, as InputPointers gives them).
inline std::vector<double> ReferenceOf(const Job& job, const std::vector<float*>& fin, size_t case_index) {
  RefArgs a = BuildRefArgs(job);
  std::vector<std::vector<double>> dbuf(job.params.size());
  for (size_t k = 0; k < job.params.size(); ++k) {
    const Param& p = job.params[k];
    if (p.kind == 'i') dbuf[k].assign(fin[k], fin[k] + p.elements);
    if (p.kind == 'o') dbuf[k].assign(static_cast<size_t>(p.elements), std::nan(""));
    if (p.kind == 'i' || p.kind == 'o') a.ptr[k] = dbuf[k].data();
  }
  AcceloptCallReference(a.ptr.data());
  std::vector<double> all;
  all.reserve(static_cast<size_t>(OutputElements(job)));
  for (size_t k = 0; k < job.params.size(); ++k) {
    const Param& p = job.params[k];
    if (p.kind != 'o') continue;
    for (int64_t e = 0; e < p.elements; ++e) {
      if (!std::isfinite(dbuf[k][static_cast<size_t>(e)])) {
        Die("reference output " + p.name + " is not finite at index " + std::to_string(e) + " in case " +
            std::to_string(case_index) + " (a problem bug)");
      }
    }
    all.insert(all.end(), dbuf[k].begin(), dbuf[k].end());
  }
  return all;
}

// The reference outputs of `c`, its inputs drawn from its seed.
inline std::vector<double> ComputeReference(const Job& job, const Case& c, size_t case_index) {
  std::vector<float> in(static_cast<size_t>(InputElements(job)));
  const std::vector<float*> fin = InputPointers(job, in.data());
  DrawInputs(job, c, fin);
  return ReferenceOf(job, fin, case_index);
}

// Computes and writes (0600, atomically; job.hpp WriteCaseFile) every
// missing or unverifiable file of the job's cases: a correctness case's
// reference; a pool case's inputs and reference, as one file.
inline void Prepare(const Job& job) {
  for (size_t c = 0; c < job.cases.size(); ++c) {
    const Case& cs = job.cases[c];
    const std::string& path = cs.ref_path;
    if (path == "-") continue;
    const bool pool = cs.role == 'p';
    std::vector<float> in(static_cast<size_t>(InputElements(job)));
    std::vector<double> all(static_cast<size_t>(OutputElements(job)));
    std::vector<CasePart> parts;
    if (pool) parts.push_back({in.data(), sizeof(float) * in.size()});
    parts.push_back({all.data(), sizeof(double) * all.size()});
    if (ReadCaseFile(path, parts)) continue;
    Stage("reference case " + std::to_string(c));
    const std::vector<float*> fin = InputPointers(job, in.data());
    DrawInputs(job, cs, fin);
    all = ReferenceOf(job, fin, c);
    parts.back().data = all.data();
    WriteCaseFile(path, parts, job.durable);
  }
  std::printf("ACCELOPT-JUDGE {\"ok\": true}\n");
}

}  // namespace judge
