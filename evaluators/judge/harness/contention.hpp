// What other processes do on an evaluation slot's cores (the judge's
// contended-round rule, judge_main.cpp Timing; docs/evaluation.md,
// "Contended rounds"). Part of the judge program (embedded, compiled at run
// time); reads /proc directly: the judge is below the Env seam.
//
// Thread safety: reentrant; blocks the caller for `ms`.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace judge {

// Share of `cores`' time that was busy during a pause of `ms` (/proc/stat:
// busy ticks / all ticks of those cores). The caller sleeps meanwhile with
// its own work stopped, so what is busy is other processes. 1 when
// /proc/stat cannot be read (then nothing is re-run).
inline double SlotBusyShare(const std::vector<int>& cores, int ms) {
  auto ticks = [&cores](double* busy, double* all) {
    std::ifstream in("/proc/stat");
    *busy = *all = 0;
    for (std::string line; std::getline(in, line);) {
      int cpu = -1;
      unsigned long long v[8] = {};
      if (std::sscanf(line.c_str(), "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3],
                      &v[4], &v[5], &v[6], &v[7]) < 8 ||
          std::find(cores.begin(), cores.end(), cpu) == cores.end())
        continue;
      double total = 0;
      for (unsigned long long x : v) total += static_cast<double>(x);
      *busy += total - static_cast<double>(v[3] + v[4]);  // minus idle and iowait
      *all += total;
    }
    return *all > 0;
  };
  double b0, a0, b1, a1;
  if (!ticks(&b0, &a0)) return 1;
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  if (!ticks(&b1, &a1) || a1 <= a0) return 1;
  return (b1 - b0) / (a1 - a0);
}

}  // namespace judge
