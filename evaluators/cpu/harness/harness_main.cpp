// The cpu harness: a separate program that checks and times one candidate.
//
// Not linked into the evaluator. The cpu backend embeds this file, compiles it
// once per machine (cached), and links it per problem with a generated glue
// file (AcceloptCallKernel / AcceloptCallReference, see harness_builder.cpp)
// and the problem's reference.cpp. It runs under RunProcess with rlimits, its
// own process group and a private network namespace.
//
// Modes (first stdin line "mode ..."; the rest of stdin is the job, see
// ReadJob):
//   prepare  computes the reference outputs (double) of every case whose
//            file is missing and writes them atomically. Trusted code only.
//   run      loads the candidate .so (after a first seccomp stage), forbids
//            the rest (second stage), runs every correctness case, then times.
//
// Output: progress lines "stage ..." on stderr; one final line on stdout:
//   ACCELOPT <nonce> {json}
// Exit 0 when that line was written (the JSON says pass/fail), 2 on a harness
// error (message on stderr), 77 when the kernel made a forbidden system call.
#include <dlfcn.h>
#include <fcntl.h>
#include <omp.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "evaluators/stats.hpp"

extern "C" void AcceloptCallKernel(void* fn, void* const* args);
extern "C" void AcceloptCallReference(void* const* args);

namespace {

// ---- job description --------------------------------------------------------

struct Dist { std::string kind = "normal"; double a = 0, b = 1; };
struct Param {
  char kind = 'i';  // i input, o output, s scalar, d dim
  std::string name;
  int64_t elements = 0;
  char scalar_type = 'f';  // f float, i int64
  double value = 0;
  Dist dist;
};
struct Case {
  uint64_t seed = 0;
  int perturb = 0;
  std::vector<std::pair<int, Dist>> overrides;
  std::string ref_path;
};
struct Job {
  std::string mode, nonce, so_path, function;
  std::vector<Param> params;
  std::vector<Case> cases;
  std::vector<int> timing_cases;
  int warmup = 1, min_samples = 5, max_samples = 1000, min_rounds = 3, max_rounds = 5;
  double min_time_s = 0.2, target_spread = 0.01, tolerance = 2e-5;
  int seccomp = 1;
  int background_check_ms = 20;
};

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "harness error: %s\n", msg.c_str());
  std::fflush(stderr);
  _exit(2);
}

Dist ReadDist(std::istringstream& in) {
  Dist d;
  if (!(in >> d.kind >> d.a >> d.b)) Die("bad distribution");
  return d;
}

Job ReadJob() {
  Job job;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string key;
    if (!(in >> key)) continue;
    if (key == "mode") in >> job.mode;
    else if (key == "nonce") in >> job.nonce;
    else if (key == "function") in >> job.function;
    else if (key == "so") { in >> std::ws; std::getline(in, job.so_path); }
    else if (key == "param") {
      Param p;
      in >> p.kind >> p.name >> p.elements >> p.scalar_type >> p.value;
      if (p.kind == 'i') p.dist = ReadDist(in);
      if (!in) Die("bad param line: " + line);
      job.params.push_back(p);
    } else if (key == "case") {
      Case c;
      int n = 0;
      in >> c.seed >> c.perturb >> n;
      for (int k = 0; k < n; ++k) {
        int idx = -1;
        in >> idx;
        Dist d = ReadDist(in);
        c.overrides.emplace_back(idx, d);
      }
      in >> std::ws;
      std::getline(in, c.ref_path);
      if (c.ref_path.empty()) Die("bad case line: " + line);
      job.cases.push_back(c);
    } else if (key == "timing") {
      int n = 0;
      in >> job.warmup >> job.min_time_s >> job.min_samples >> job.max_samples >> job.min_rounds >>
          job.max_rounds >> job.target_spread >> n;
      for (int k = 0; k < n; ++k) { int c; in >> c; job.timing_cases.push_back(c); }
      if (!in) Die("bad timing line");
    } else if (key == "tolerance") in >> job.tolerance;
    else if (key == "seccomp") in >> job.seccomp;
    else if (key == "background_check_ms") in >> job.background_check_ms;
    else Die("unknown job key " + key);
  }
  if (job.mode != "run" && job.mode != "prepare") Die("mode must be run or prepare");
  if (job.cases.empty()) Die("no cases");
  return job;
}

// ---- deterministic inputs ---------------------------------------------------

struct SplitMix {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Normal() {
    double u1 = Uniform(), u2 = Uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
  double Draw(const Dist& d) {
    if (d.kind == "normal") return d.a + d.b * Normal();
    if (d.kind == "uniform") return d.a + (d.b - d.a) * Uniform();
    if (d.kind == "abs_normal") return std::fabs(d.a * Normal()) + d.b;
    if (d.kind == "constant") return d.a;
    Die("unknown distribution " + d.kind);
  }
};

uint64_t StreamSeed(uint64_t seed, int param, uint64_t salt) {
  SplitMix m{seed * 0x100000001b3ULL + static_cast<uint64_t>(param) * 7919 + salt};
  return m.Next();
}

// Counter-based: element k depends only on (stream, k), two normals per
// Box-Muller pair; no sequential generator state in the loop.
inline uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline double U01(uint64_t stream, uint64_t k) {  // (0, 1]
  return (static_cast<double>(Mix(stream + 0x9e3779b97f4a7c15ULL * (k + 1)) >> 11) + 1.0) * 0x1.0p-53;
}
void FillDist(float* x, int64_t n, const Dist& d, uint64_t stream) {
  if (d.kind == "normal" || d.kind == "abs_normal") {
    const double mean = d.kind == "normal" ? d.a : 0, sd = d.kind == "normal" ? d.b : d.a;
    for (int64_t k = 0; k < n; k += 2) {
      double r = std::sqrt(-2 * std::log(U01(stream, k))), t = 2 * M_PI * U01(stream, k + 1);
      double v0 = mean + sd * r * std::cos(t), v1 = mean + sd * r * std::sin(t);
      if (d.kind == "abs_normal") { v0 = std::fabs(v0) + d.b; v1 = std::fabs(v1) + d.b; }
      x[k] = static_cast<float>(v0);
      if (k + 1 < n) x[k + 1] = static_cast<float>(v1);
    }
  } else if (d.kind == "uniform") {
    for (int64_t k = 0; k < n; ++k) x[k] = static_cast<float>(d.a + (d.b - d.a) * (U01(stream, k) - 0x1.0p-53));
  } else if (d.kind == "constant") {
    for (int64_t k = 0; k < n; ++k) x[k] = static_cast<float>(d.a);
  } else {
    Die("unknown distribution " + d.kind);
  }
}

// Fills every input of `c` in place (same buffers every case).
void DrawInputs(const Job& job, const Case& c, std::vector<float*>& bufs) {
  for (size_t i = 0; i < job.params.size(); ++i) {
    const Param& p = job.params[i];
    if (p.kind != 'i') continue;
    Dist d = p.dist;
    for (const auto& [idx, od] : c.overrides) if (idx == static_cast<int>(i)) d = od;
    float* x = bufs[i];
    FillDist(x, p.elements, d, StreamSeed(c.seed, static_cast<int>(i), 0));
    if (c.perturb) {  // change a few elements somewhere inside; the rest stays bit-identical
      SplitMix prng{StreamSeed(c.seed, static_cast<int>(i), 0x9e7u)};
      for (int k = 0; k < 3; ++k) {
        int64_t pos = static_cast<int64_t>(prng.Uniform() * static_cast<double>(p.elements));
        float old = x[pos];
        float nv = static_cast<float>(prng.Draw(d));
        if (nv == old) nv = old + 1.0f;
        x[pos] = nv;
      }
    }
  }
}

void* AlignedAlloc(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 64, bytes < 64 ? 64 : bytes) != 0) Die("out of memory allocating buffers");
  return p;
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double CpuNow() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void Stage(const std::string& s) {
  std::string line = "stage " + s + "\n";
  (void)!write(2, line.data(), line.size());
}

// ---- reference files --------------------------------------------------------

void WriteFileAtomic(const std::string& path, const void* data, size_t bytes) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die("cannot write " + tmp + ": " + std::strerror(errno));
  const char* p = static_cast<const char*>(data);
  size_t off = 0;
  while (off < bytes) {
    ssize_t n = write(fd, p + off, bytes - off);
    if (n <= 0) Die("write " + tmp + ": " + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) Die("rename " + tmp + ": " + std::strerror(errno));
}

bool ReadFileExact(const std::string& path, void* data, size_t bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char* p = static_cast<char*>(data);
  size_t off = 0;
  while (off < bytes) {
    ssize_t n = read(fd, p + off, bytes - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  char extra;
  bool exact = off == bytes && read(fd, &extra, 1) == 0;
  close(fd);
  return exact;
}

int64_t OutputElements(const Job& job) {
  int64_t n = 0;
  for (const auto& p : job.params) if (p.kind == 'o') n += p.elements;
  return n;
}

// Builds the argument vectors; scalar storage lives in `fs`, `is`.
struct Args {
  std::vector<void*> kernel, reference;
  std::vector<float> f;
  std::vector<double> d;
  std::vector<int64_t> i;
};
void BuildScalarArgs(const Job& job, Args& a) {
  size_t n = job.params.size();
  a.kernel.assign(n, nullptr); a.reference.assign(n, nullptr);
  a.f.assign(n, 0); a.d.assign(n, 0); a.i.assign(n, 0);
  for (size_t k = 0; k < n; ++k) {
    const Param& p = job.params[k];
    if (p.kind == 'd' || (p.kind == 's' && p.scalar_type == 'i')) {
      a.i[k] = p.kind == 'd' ? p.elements : static_cast<int64_t>(p.value);
      a.kernel[k] = a.reference[k] = &a.i[k];
    } else if (p.kind == 's') {
      a.f[k] = static_cast<float>(p.value);
      a.d[k] = static_cast<double>(a.f[k]);
      a.kernel[k] = &a.f[k];
      a.reference[k] = &a.d[k];
    }
  }
}

void Prepare(const Job& job) {
  Args a;
  BuildScalarArgs(job, a);
  std::vector<float*> fin(job.params.size(), nullptr);
  std::vector<double*> dbuf(job.params.size(), nullptr);
  for (size_t k = 0; k < job.params.size(); ++k) {
    const Param& p = job.params[k];
    if (p.kind == 'i' || p.kind == 'o') {
      dbuf[k] = static_cast<double*>(AlignedAlloc(sizeof(double) * p.elements));
      a.reference[k] = dbuf[k];
    }
    if (p.kind == 'i') fin[k] = static_cast<float*>(AlignedAlloc(sizeof(float) * p.elements));
  }
  std::vector<double> all(static_cast<size_t>(OutputElements(job)));
  for (size_t c = 0; c < job.cases.size(); ++c) {
    if (access(job.cases[c].ref_path.c_str(), F_OK) == 0) continue;
    Stage("reference case " + std::to_string(c));
    DrawInputs(job, job.cases[c], fin);
    for (size_t k = 0; k < job.params.size(); ++k) {
      const Param& p = job.params[k];
      if (p.kind == 'i') for (int64_t e = 0; e < p.elements; ++e) dbuf[k][e] = fin[k][e];
      if (p.kind == 'o') for (int64_t e = 0; e < p.elements; ++e) dbuf[k][e] = std::nan("");
    }
    AcceloptCallReference(a.reference.data());
    size_t off = 0;
    for (size_t k = 0; k < job.params.size(); ++k) {
      const Param& p = job.params[k];
      if (p.kind != 'o') continue;
      for (int64_t e = 0; e < p.elements; ++e) {
        if (!std::isfinite(dbuf[k][e])) {
          Die("reference output " + p.name + " is not finite at index " + std::to_string(e) + " in case " +
              std::to_string(c) + " (a problem bug)");
        }
      }
      std::memcpy(all.data() + off, dbuf[k], sizeof(double) * p.elements);
      off += static_cast<size_t>(p.elements);
    }
    WriteFileAtomic(job.cases[c].ref_path, all.data(), sizeof(double) * all.size());
  }
  std::printf("ACCELOPT %s {\"ok\": true}\n", job.nonce.c_str());
}

}  // namespace

#include "evaluators/cpu/harness/harness_run.hpp"

int main() {
  Job job = ReadJob();
  if (job.mode == "prepare") Prepare(job);
  else Run(job);
  std::fflush(stdout);
  _exit(0);  // no static destructors: a kernel's leftover threads must not matter
}
