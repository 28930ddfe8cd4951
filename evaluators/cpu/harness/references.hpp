// The judge's trusted references: the problem's reference function (linked
// into the judge, called through the generated AcceloptCallReference glue) on
// a case's inputs converted to double, and "prepare" mode, which computes the
// pooled cases' references once and caches them (0600). Included once, by
// judge_main.cpp.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "evaluators/cpu/harness/inputs.hpp"
#include "evaluators/cpu/harness/job.hpp"

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

// The reference outputs of `c` (all outputs, concatenated), in double.
inline std::vector<double> ComputeReference(const Job& job, const Case& c, size_t case_index) {
  RefArgs a = BuildRefArgs(job);
  std::vector<std::vector<float>> fin(job.params.size());
  std::vector<float*> fptr(job.params.size(), nullptr);
  std::vector<std::vector<double>> dbuf(job.params.size());
  for (size_t k = 0; k < job.params.size(); ++k) {
    const Param& p = job.params[k];
    if (p.kind == 'i') { fin[k].resize(static_cast<size_t>(p.elements)); fptr[k] = fin[k].data(); }
  }
  DrawInputs(job, c, fptr);
  for (size_t k = 0; k < job.params.size(); ++k) {
    const Param& p = job.params[k];
    if (p.kind == 'i') dbuf[k].assign(fin[k].begin(), fin[k].end());
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

inline void Prepare(const Job& job) {
  for (size_t c = 0; c < job.cases.size(); ++c) {
    const std::string& path = job.cases[c].ref_path;
    if (path == "-" || access(path.c_str(), F_OK) == 0) continue;
    Stage("reference case " + std::to_string(c));
    std::vector<double> all = ComputeReference(job, job.cases[c], c);
    WriteFileAtomic(path, all.data(), sizeof(double) * all.size());
  }
  std::printf("ACCELOPT-JUDGE {\"ok\": true}\n");
}


}  // namespace judge
