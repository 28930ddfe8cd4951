// The calibration program: peak fp32 FMA throughput (widest SIMD the compiler
// targets with -march=native) and streaming bandwidth (triad, triad with
// non-temporal stores, and read-only: the fastest of the three) at several
// working-set sizes, each with all cores and with one core. Non-temporal
// stores skip the write-allocate read, so beyond the caches an honest
// streaming kernel that uses them moves its bytes faster than a plain triad
// (78 GB/s against 66 GB/s at 256 MiB was measured on a Zen 5 VM): the
// roofline must know the fastest a machine can stream.
// Embedded in the evaluator, compiled at run time, run under RunProcess by
// calibration.cpp (in the same cleared environment as the harness, with
// OMP_NUM_THREADS set to the cores it may use). Prints one JSON object.
//
//   calibrate BUDGET_S [BYTES...]     (default sizes: 256 KiB ... 256 MiB)
//
// Every figure is the best of many short trials (~1-2 ms, at least 3), so
// that time slices lost to other processes do not count; its "spread" is
// 1 - median/best over those trials (0 when the trials agree), which is how
// a busy machine shows even when the best trial is good. The program also
// reports how much CPU time other processes took while it ran (from
// /proc/stat minus its own CPU time) and the hypervisor's steal time.
#include <omp.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// Best and spread of one figure's trials (seconds per unit of work).
struct Trials {
  std::vector<double> t;
  double Best() const { return *std::min_element(t.begin(), t.end()); }
  double Spread() const {  // 1 - median throughput / best throughput
    std::vector<double> s = t;
    std::sort(s.begin(), s.end());
    double med = s[s.size() / 2];
    return med > 0 ? 1 - s.front() / med : 0;
  }
};

// CPU time of the CPUs this process may use, from /proc/stat (jiffies).
struct CpuTimes {
  double busy = 0, steal = 0;
};
static CpuTimes ReadCpuTimes() {
  CpuTimes out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return out;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    int cpu;
    unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
    if (std::strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9') continue;
    if (std::sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &user, &nice, &sys, &idle, &iowait,
                    &irq, &softirq, &steal) != 9)
      continue;
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)) continue;
    out.busy += user + nice + sys + irq + softirq;
    out.steal += steal;
  }
  std::fclose(f);
  double hz = sysconf(_SC_CLK_TCK);
  out.busy /= hz;
  out.steal /= hz;
  return out;
}

static double OwnCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + 1e-6 * u.ru_utime.tv_usec + u.ru_stime.tv_sec + 1e-6 * u.ru_stime.tv_usec;
}

// Seconds for `iters` rounds on every thread, timed from a barrier inside the
// parallel region (every thread awake) to the join; flops via out param.
static double FmaRun(int nthreads, long iters, double* flops, float* sink) {
  int threads = 1;
  double t0 = 0;
#pragma omp parallel num_threads(nthreads)
  {
#pragma omp barrier
#pragma omp master
    {
      threads = omp_get_num_threads();
      t0 = Now();
    }
    // Declared after the barrier: nothing here lives across a call, so the
    // compiler keeps every operand in registers (spilled operands cost ~30%).
    vf m, c;
    for (int l = 0; l < kLanes; ++l) {
      m[l] = 0.999999f;
      c[l] = 1e-7f * (l + 1);
    }
    vf a0 = m + 1, a1 = m + 2, a2 = m + 3, a3 = m + 4, a4 = m + 5, a5 = m + 6;
    vf a6 = m + 7, a7 = m + 8, a8 = m + 9, a9 = m + 10, a10 = m + 11, a11 = m + 12;
    for (long it = 0; it < iters; ++it) {
      a0 = a0 * m + c;
      a1 = a1 * m + c;
      a2 = a2 * m + c;
      a3 = a3 * m + c;
      a4 = a4 * m + c;
      a5 = a5 * m + c;
      a6 = a6 * m + c;
      a7 = a7 * m + c;
      a8 = a8 * m + c;
      a9 = a9 * m + c;
      a10 = a10 * m + c;
      a11 = a11 * m + c;
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

// GFLOP/s trials (~2 ms each) within `budget` seconds; *best_gflops, *spread.
static void PeakGflops(int threads, double budget, float* sink, double* best_gflops, double* spread) {
  double flops = 0;
  long iters = 1 << 10;
  while (FmaRun(threads, iters, &flops, sink) < 2e-3) iters *= 2;
  Trials tr;
  double end = Now() + budget;
  do {
    double t = FmaRun(threads, iters, &flops, sink);
    tr.t.push_back(t / flops);
  } while (tr.t.size() < 3 || Now() < end);
  *best_gflops = 1 / tr.Best() / 1e9;
  *spread = tr.Spread();
}

// Streaming passes over three arrays of n floats (12n bytes in all).
struct Arrays {
  long n;
  float *a, *b, *c;
  explicit Arrays(long n_, int threads) : n(n_) {
    size_t sz = (n * 4 + 63) / 64 * 64;
    a = static_cast<float*>(std::aligned_alloc(64, sz));
    b = static_cast<float*>(std::aligned_alloc(64, sz));
    c = static_cast<float*>(std::aligned_alloc(64, sz));
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < n; ++i) {
      a[i] = 0;
      b[i] = 1.0f + i % 7;
      c[i] = 2.0f;
    }
  }
  ~Arrays() {
    std::free(a);
    std::free(b);
    std::free(c);
  }
};

// The three streaming passes.
enum class Pass { kTriad, kRead, kNtTriad };

// a = b + s * c with non-temporal stores of whole vectors (x86; elsewhere a
// plain triad). Each thread's part starts on a vector boundary (the arrays
// are 64-byte aligned and parts are whole vectors); the tail is scalar.
static void NtTriad(float* a, const float* b, const float* c, long n, float s, int threads) {
#if defined(__x86_64__)
  const long vecs = n / kLanes;
#pragma omp parallel num_threads(threads)
  {
    const vf sv = vf{} + s;
#pragma omp for schedule(static)
    for (long v = 0; v < vecs; ++v) {
      vf x, y;
      std::memcpy(&x, b + v * kLanes, sizeof x);
      std::memcpy(&y, c + v * kLanes, sizeof y);
      const vf r = x + sv * y;
#if defined(__AVX512F__)
      _mm512_stream_ps(a + v * kLanes, reinterpret_cast<const __m512&>(r));
#elif defined(__AVX__)
      _mm256_stream_ps(a + v * kLanes, reinterpret_cast<const __m256&>(r));
#else
      _mm_stream_ps(a + v * kLanes, reinterpret_cast<const __m128&>(r));
#endif
    }
    _mm_sfence();
  }
  for (long i = vecs * kLanes; i < n; ++i) a[i] = b[i] + s * c[i];
#else
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
#endif
}

// Seconds-per-pass trials with `threads` threads: triad (reads 2n, writes n
// floats), the same with non-temporal stores, or read-only (reads 3n floats,
// writes nothing: the read bandwidth, no write-allocate). Each trial repeats
// the pass to last >= ~1 ms.
static Trials Passes(Arrays& x, int threads, double budget, float* sink, Pass kind) {
  const long n = x.n;
  float *a = x.a, *b = x.b, *c = x.c;
  const float s = 1.0001f;
  float acc = 0;
  auto pass = [&] {
    if (kind == Pass::kRead) {
      float r = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : r)
      for (long i = 0; i < n; ++i) r += a[i] + b[i] * c[i];
      acc += r;
      return;
    }
    if (kind == Pass::kNtTriad) {
      NtTriad(a, b, c, n, s, threads);
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
  Trials tr;
  double end = Now() + budget;
  do {
    double t0 = Now();
    for (long k = 0; k < reps; ++k) pass();
    tr.t.push_back((Now() - t0) / reps);
  } while (tr.t.size() < 3 || Now() < end);
  *sink += a[n / 2] + acc;
  return tr;
}

// The fastest of the passes' trials, with its spread.
static void Fastest(const Trials& triad, const Trials& read, const Trials& nt, double* best_s, double* spread) {
  const Trials* w = read.Best() < triad.Best() ? &read : &triad;
  if (nt.Best() < w->Best()) w = &nt;
  *best_s = w->Best();
  *spread = w->Spread();
}

int main(int argc, char** argv) {
  double budget = argc > 1 ? std::atof(argv[1]) : 0.2;  // seconds per measurement
  std::vector<long> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(std::atol(argv[i]));
  if (sizes.empty()) sizes = {256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20, 256L << 20};
  int all = omp_get_max_threads();
  float sink = 0;
  const double wall0 = Now(), own0 = OwnCpuSeconds();
  const CpuTimes cpu0 = ReadCpuTimes();

  double g_all = 0, s_all = 0, g_one = 0, s_one = 0;
  PeakGflops(all, budget, &sink, &g_all, &s_all);
  PeakGflops(1, budget / 2, &sink, &g_one, &s_one);
  std::printf(
      "{\"peak_gflops\": %.3f, \"peak_gflops_all_cores\": %.3f, \"peak_gflops_one_core\": %.3f, "
      "\"peak_spread_all_cores\": %.4f, \"peak_spread_one_core\": %.4f, "
      "\"simd_bits\": %d, \"threads\": %d, \"budget_s\": %.3f, \"bandwidth\": [",
      std::max(g_all, g_one), g_all, g_one, s_all, s_one, kVecBytes * 8, all, budget);
  bool first = true;
  for (long bytes : sizes) {
    long n = std::max(64L, bytes / 12);
    Arrays x(n, all);
    Trials tri_all = Passes(x, all, budget / 2, &sink, Pass::kTriad);
    Trials rd_all = Passes(x, all, budget / 4, &sink, Pass::kRead);
    Trials nt_all = Passes(x, all, budget / 4, &sink, Pass::kNtTriad);
    Trials tri_one = all > 1 ? Passes(x, 1, budget / 4, &sink, Pass::kTriad) : tri_all;
    Trials rd_one = all > 1 ? Passes(x, 1, budget / 4, &sink, Pass::kRead) : rd_all;
    Trials nt_one = all > 1 ? Passes(x, 1, budget / 4, &sink, Pass::kNtTriad) : nt_all;
    double t_all, sp_all, t_one, sp_one;
    Fastest(tri_all, rd_all, nt_all, &t_all, &sp_all);
    Fastest(tri_one, rd_one, nt_one, &t_one, &sp_one);
    const double nt_gbps_all = 12.0 * n / nt_all.Best() / 1e9, triad_gbps_all = 12.0 * n / tri_all.Best() / 1e9;
    double bw_all = 12.0 * n / t_all / 1e9, bw_one = 12.0 * n / t_one / 1e9;
    std::printf(
        "%s{\"bytes\": %ld, \"gbps\": %.3f, \"gbps_all_cores\": %.3f, \"gbps_one_core\": %.3f, "
        "\"spread_all_cores\": %.4f, \"spread_one_core\": %.4f, \"gbps_triad_all_cores\": %.3f, "
        "\"gbps_nt_triad_all_cores\": %.3f}",
        first ? "" : ", ", 12 * n, std::max(bw_all, bw_one), bw_all, bw_one, sp_all, sp_one, triad_gbps_all,
        nt_gbps_all);
    first = false;
  }
  const double wall = Now() - wall0, own = OwnCpuSeconds() - own0;
  const CpuTimes cpu1 = ReadCpuTimes();
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  double others = std::max(0.0, (cpu1.busy - cpu0.busy) - own) / (wall * cpus);
  double steal = std::max(0.0, cpu1.steal - cpu0.steal) / (wall * cpus);
  std::printf(
      "], \"wall_s\": %.3f, \"cpu_s\": %.3f, \"cpus\": %d, \"others_cpu_fraction\": %.4f, "
      "\"steal_fraction\": %.4f, \"sink\": %g}\n",
      wall, own, cpus, std::min(1.0, others), std::min(1.0, steal), static_cast<double>(sink));
  return 0;
}
