// The calibration program: peak fp32 FMA throughput (all cores, widest SIMD
// the compiler targets with -march=native) and streaming-triad bandwidth
// (all cores) at several working-set sizes. Embedded in the evaluator,
// compiled at run time, run under RunProcess. Prints one JSON object.
#include <omp.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(__AVX512F__)
constexpr int kVecBytes = 64;
#elif defined(__AVX__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif
typedef float vf __attribute__((vector_size(kVecBytes)));
constexpr int kLanes = kVecBytes / 4;
constexpr int kAcc = 12;  // independent chains: covers FMA latency x ports

static double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// Returns seconds for `iters` rounds on every thread; flops via out param.
static double FmaRun(int nthreads, long iters, double* flops, float* sink) {
  int threads = 1;
  double t0 = Now();
#pragma omp parallel num_threads(nthreads)
  {
#pragma omp single
    threads = omp_get_num_threads();
    vf m, c;
    for (int l = 0; l < kLanes; ++l) { m[l] = 0.999999f; c[l] = 1e-7f * (l + 1); }
    vf a0 = m + 1, a1 = m + 2, a2 = m + 3, a3 = m + 4, a4 = m + 5, a5 = m + 6;
    vf a6 = m + 7, a7 = m + 8, a8 = m + 9, a9 = m + 10, a10 = m + 11, a11 = m + 12;
    for (long it = 0; it < iters; ++it) {
      a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
      a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
      a8 = a8 * m + c; a9 = a9 * m + c; a10 = a10 * m + c; a11 = a11 * m + c;
    }
    vf s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11));
    float tot = 0;
    for (int l = 0; l < kLanes; ++l) tot += s[l];
#pragma omp atomic
    *sink += tot;
  }
  double t = Now() - t0;
  *flops = 2.0 * kLanes * kAcc * static_cast<double>(iters) * threads;
  return t;
}

// Best seconds per triad pass over n floats per array, with `threads` threads:
// the minimum over many short trials (~1 ms each) within `budget` seconds, so
// that time slices lost to other processes do not count.
static double TriadBest(long n, int threads, double budget, float* sink, bool read_only = false) {
  float* a = static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64));
  float* b = static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64));
  float* c = static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < n; ++i) { a[i] = 0; b[i] = 1.0f + i % 7; c[i] = 2.0f; }
  const float s = 1.0001f;
  float acc = 0;
  auto pass = [&] {
    if (read_only) {  // reads 3n floats, writes nothing: the read bandwidth
      float r = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : r)
      for (long i = 0; i < n; ++i) r += a[i] + b[i] * c[i];
      acc += r;
      return;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
  };
  pass();
  long reps = 1;
  for (;;) {
    double t0 = Now();
    for (long r = 0; r < reps; ++r) pass();
    if (Now() - t0 > 1e-3 || reps > (1L << 20)) break;
    reps *= 2;
  }
  double best = 1e300, end = Now() + budget;
  int trials = 0;
  do {
    double t0 = Now();
    for (long k = 0; k < reps; ++k) pass();
    best = std::min(best, (Now() - t0) / reps);
  } while (++trials < 3 || Now() < end);
  *sink += a[n / 2] + acc;
  std::free(a); std::free(b); std::free(c);
  return best;
}

// Best GFLOP/s over many short trials (~2 ms each) within `budget` seconds.
static double PeakGflops(int threads, double budget, float* sink) {
  double flops = 0;
  long iters = 1 << 10;
  while (FmaRun(threads, iters, &flops, sink) < 2e-3) iters *= 2;
  double best = 0, end = Now() + budget;
  int trials = 0;
  do {
    double t = FmaRun(threads, iters, &flops, sink);
    best = std::max(best, flops / t / 1e9);
  } while (++trials < 3 || Now() < end);
  return best;
}

// Every figure is the best of the all-core and the one-core measurement: on a
// loaded machine an all-core run can lose whole time slices at its barriers,
// and the peak must be an upper bound.
int main(int argc, char** argv) {
  double budget = argc > 1 ? std::atof(argv[1]) : 0.2;  // seconds per measurement
  int all = omp_get_max_threads();
  float sink = 0;
  double g_all = PeakGflops(all, budget, &sink);
  double g_one = PeakGflops(1, budget / 2, &sink);
  std::printf("{\"peak_gflops\": %.3f, \"peak_gflops_all_cores\": %.3f, \"peak_gflops_one_core\": %.3f, "
              "\"simd_bits\": %d, \"threads\": %d, \"bandwidth\": [",
              std::max(g_all, g_one), g_all, g_one, kVecBytes * 8, all);
  const long sizes[] = {256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20, 256L << 20};
  bool first = true;
  for (long bytes : sizes) {
    long n = bytes / 12;
    double t_all = TriadBest(n, all, budget / 2, &sink);
    double t_one = all > 1 ? TriadBest(n, 1, budget / 4, &sink) : t_all;
    // A read-only pass can move more bytes per second than triad (no write-allocate).
    t_one = std::min(t_one, TriadBest(n, 1, budget / 4, &sink, true));
    t_all = std::min(t_all, TriadBest(n, all, budget / 4, &sink, true));
    double bw_all = 12.0 * n / t_all / 1e9, bw_one = 12.0 * n / t_one / 1e9;
    std::printf("%s{\"bytes\": %ld, \"gbps\": %.3f, \"gbps_all_cores\": %.3f, \"gbps_one_core\": %.3f}",
                first ? "" : ", ", 12 * n, std::max(bw_all, bw_one), bw_all, bw_one);
    first = false;
  }
  std::printf("], \"sink\": %g}\n", static_cast<double>(sink));
  return 0;
}
