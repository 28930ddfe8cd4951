// The judge's job: what one evaluation checks and times, read from the
// judge's stdin (written by the evaluator, harness_builder.cpp JobText).
// Only the evaluator writes it; the runner never sees it. Included once, by
// judge_main.cpp.
//
// Lines:
//   mode judge|prepare
//   function NAME            the kernel's extern "C" symbol
//   so PATH                  the candidate .so (opened by the judge, passed as fd 3)
//   runner PATH              the runner executable of this problem
//   compare_so PATH          optional: a second kernel (the baseline) timed interleaved with the candidate
//   param KIND NAME ELEMENTS SCALAR_TYPE VALUE [DIST A B]   (inputs carry a distribution)
//   case ROLE SEED PERTURB N [IDX DIST A B]... REF
//        ROLE c (a correctness case: called once), p (a timing pool case:
//        called at most once by each runner process, see judge_main.cpp);
//        REF a reference file, or "-" for a reference the judge computes now
//        (c only); a pool case's inputs are cached next to it in REF.in
//   timing WARMUP MIN_TIME MIN_SAMPLES MAX_SAMPLES MIN_ROUNDS MAX_ROUNDS TARGET_SPREAD
//   tolerance X   cores ID...   threads N   null_calls N
//   pool_make_budget_s X     seconds this evaluation may spend computing timing
//                            pool cases not yet cached (default 0: cached ones only)
//   durable 1                prepare: every case file written is on disk
//                            (fdatasync) before the judge answers; the idle
//                            refills ask for it, so that the page cache does
//                            not write their gigabytes back during the next
//                            evaluation's timed calls
//   clock host|device        host (default): a sample is the judge's round trip;
//                            device: the runner answers with DeviceReply (wire.hpp)
//                            and a sample is its device time, bounded by the
//                            judge's round trip (device_clock.hpp; the cuda runner)
//   judge_memory_mb N        the judge limits its own address space (soft RLIMIT_AS)
//                            to N MiB at start (the cuda backend: its runner must not
//                            inherit a limit, so the evaluator cannot set one on both)
//   runner_address_space unlimited   the runner's soft RLIMIT_AS is raised to the
//                            hard limit before exec (the CUDA driver reserves
//                            address space the size of device plus host memory)
//   runner_file_size_mb N    the runner may write files up to N MiB (RLIMIT_FSIZE;
//                            default 0: no file grows; the triton runner: Triton's
//                            kernel cache in the evaluation's work folder)
//   runner_env NAME=VALUE    a variable of the runner's environment, which is
//                            otherwise OMP_NUM_THREADS alone (the cuda backend:
//                            CUDA_VISIBLE_DEVICES, the runner's one GPU); NAME is
//                            [A-Za-z_][A-Za-z0-9_]*, not OMP_NUM_THREADS nor LD_*
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace judge {

struct Dist {
  std::string kind = "normal";
  double a = 0, b = 1;
};
struct Param {
  char kind = 'i';  // i input, o output, s scalar, d dim
  std::string name;
  int64_t elements = 0;
  char scalar_type = 'f';  // f float, i int64
  double value = 0;
  Dist dist;
};
struct Case {
  char role = 'c';  // c correctness (called once), p timing pool (once per runner process)
  uint64_t seed = 0;
  int perturb = 0;
  std::vector<std::pair<int, Dist>> overrides;
  std::string ref_path;  // "-": computed by the judge
};
struct Job {
  std::string mode, so_path, runner_path, function, compare_so_path;
  std::vector<Param> params;
  std::vector<Case> cases;
  int warmup = 1, min_samples = 5, max_samples = 1000, min_rounds = 3, max_rounds = 5;
  double min_time_s = 0.2, target_spread = 0.01, tolerance = 2e-5;
  std::vector<int> cores;  // empty: the judge's own affinity
  int threads = 0;         // 0: one per core
  int null_calls = 200;
  bool device_clock = false;     // `clock device`
  uint64_t judge_memory_mb = 0;  // 0: no limit of the judge's own
  bool runner_unlimited_as = false;
  std::vector<std::string> runner_env;  // NAME=VALUE, checked by ReadJob
  uint64_t runner_file_size_mb = 0;
  double pool_make_budget_s = 0;
  bool durable = false;  // `durable 1`: case files fdatasync'ed (prepare)
};

[[noreturn]] inline void Die(const std::string& msg) {
  std::fprintf(stderr, "judge error: %s\n", msg.c_str());
  std::fflush(stderr);
  _exit(2);
}

inline void Stage(const std::string& s) {
  std::string line = "stage " + s + "\n";
  (void)!write(2, line.data(), line.size());
}

inline double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

inline Dist ReadDist(std::istringstream& in) {
  Dist d;
  if (!(in >> d.kind >> d.a >> d.b)) Die("bad distribution");
  return d;
}

inline Job ReadJob() {
  Job job;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string key;
    if (!(in >> key)) continue;
    if (key == "mode")
      in >> job.mode;
    else if (key == "function")
      in >> job.function;
    else if (key == "so") {
      in >> std::ws;
      std::getline(in, job.so_path);
    } else if (key == "runner") {
      in >> std::ws;
      std::getline(in, job.runner_path);
    } else if (key == "compare_so") {
      in >> std::ws;
      std::getline(in, job.compare_so_path);
    } else if (key == "param") {
      Param p;
      in >> p.kind >> p.name >> p.elements >> p.scalar_type >> p.value;
      if (p.kind == 'i') p.dist = ReadDist(in);
      if (!in) Die("bad param line: " + line);
      job.params.push_back(p);
    } else if (key == "case") {
      Case c;
      int n = 0;
      in >> c.role >> c.seed >> c.perturb >> n;
      for (int k = 0; k < n; ++k) {
        int idx = -1;
        in >> idx;
        Dist d = ReadDist(in);
        c.overrides.emplace_back(idx, d);
      }
      if (!in) Die("bad case line: " + line);
      in >> std::ws;
      std::getline(in, c.ref_path);
      if (c.ref_path.empty() || (c.role != 'c' && c.role != 'p') || (c.role == 'p' && c.ref_path == "-"))
        Die("bad case line: " + line);
      job.cases.push_back(c);
    } else if (key == "timing") {
      in >> job.warmup >> job.min_time_s >> job.min_samples >> job.max_samples >> job.min_rounds >> job.max_rounds >>
          job.target_spread;
      if (!in) Die("bad timing line");
    } else if (key == "tolerance")
      in >> job.tolerance;
    else if (key == "threads")
      in >> job.threads;
    else if (key == "pool_make_budget_s")
      in >> job.pool_make_budget_s;
    else if (key == "durable")
      in >> job.durable;
    else if (key == "null_calls")
      in >> job.null_calls;
    else if (key == "judge_memory_mb")
      in >> job.judge_memory_mb;
    else if (key == "runner_address_space") {
      std::string v;
      in >> v;
      if (v != "unlimited") Die("job: runner_address_space must be unlimited, not '" + v + "'");
      job.runner_unlimited_as = true;
    } else if (key == "runner_file_size_mb") {
      in >> job.runner_file_size_mb;
      if (!in || job.runner_file_size_mb > (1u << 20)) Die("job: runner_file_size_mb must be 0..1048576");
    } else if (key == "runner_env") {
      std::string v;
      in >> std::ws;
      std::getline(in, v);
      const size_t eq = v.find('=');
      const std::string name = v.substr(0, eq);
      bool ok = eq != std::string::npos && !name.empty() && !(name[0] >= '0' && name[0] <= '9') &&
                name != "OMP_NUM_THREADS" && name.rfind("LD_", 0) != 0;
      for (char ch : name)
        ok = ok && (ch == '_' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'));
      if (!ok)
        Die("job: runner_env must be NAME=VALUE with a plain name other than OMP_NUM_THREADS and LD_*, not '" + v +
            "'");
      job.runner_env.push_back(v);
    } else if (key == "clock") {
      std::string v;
      in >> v;
      if (v != "host" && v != "device") Die("job: clock must be host or device, not '" + v + "'");
      job.device_clock = v == "device";
    } else if (key == "cores") {
      for (int c; in >> c;) job.cores.push_back(c);
    } else
      Die("unknown job key " + key);
  }
  if (job.mode != "judge" && job.mode != "prepare") Die("mode must be judge or prepare");
  if (job.cases.empty()) Die("no cases");
  if (job.params.size() > 64) Die("too many parameters");
  return job;
}

// The judge's own address-space limit (judge_memory_mb): the soft limit
// only, so a runner it starts may be given more (up to the hard limit).
inline void LimitJudgeMemory(const Job& job) {
  if (job.judge_memory_mb == 0) return;
  rlimit as{};
  getrlimit(RLIMIT_AS, &as);
  as.rlim_cur = static_cast<rlim_t>(job.judge_memory_mb) << 20;
  if (as.rlim_max != RLIM_INFINITY && as.rlim_cur > as.rlim_max) as.rlim_cur = as.rlim_max;
  if (setrlimit(RLIMIT_AS, &as) != 0) Die("cannot set the judge's memory limit");
}

inline void* AlignedAlloc(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 64, bytes < 64 ? 64 : bytes) != 0) Die("out of memory allocating buffers");
  return p;
}

inline int64_t OutputElements(const Job& job) {
  int64_t n = 0;
  for (const auto& p : job.params)
    if (p.kind == 'o') n += p.elements;
  return n;
}

inline void WriteFileAtomic(const std::string& path, const void* data, size_t bytes) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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

inline bool ReadFileExact(const std::string& path, void* data, size_t bytes) {
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

// ---- cached case files ----------------------------------------------------------
// A cached case (a correctness case's reference; a timing pool case's inputs
// and reference) is one file: its parts back to back, then a trailer that
// makes it one verified unit: magic, the file's own name's hash (a file
// copied or renamed onto another case's name does not verify), the payload
// length and a checksum of the payload. A file that does not verify is
// recomputed by the judge and rewritten, never trusted and never an error
// (docs/evaluation.md, "The reference cache").

struct CasePart {
  void* data;
  size_t bytes;
};

// Four independent lanes over 32-byte blocks, folded at the end: the
// multiplications of one lane wait for each other, four lanes keep the
// multiplier busy (about 3x the bytes per second of one lane here; a timing
// case is read and checked once per timed call, so this is on the clock of
// every evaluation).
inline uint64_t Checksum64(const void* data, size_t n, uint64_t h) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  auto mix = [](uint64_t x, uint64_t w) {
    x = (x ^ w) * kMul;
    return x ^ (x >> 29);
  };
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t lane[4] = {h, h ^ 0xc2b2ae3d27d4eb4fULL, h ^ 0x165667b19e3779f9ULL, h ^ 0x27d4eb2f165667c5ULL};
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      lane[k] = mix(lane[k], w);
    }
  uint64_t r = mix(mix(mix(mix(lane[0], lane[1]), lane[2]), lane[3]), n);
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    r = mix(r, w);
  }
  for (; i < n; ++i) r = (r ^ p[i]) * 0x100000001b3ULL;
  return r;
}

inline uint64_t NameTag(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  return Checksum64(name.data(), name.size(), 0xcbf29ce484222325ULL);
}

struct CaseTrailer {
  char magic[8];
  uint64_t name_tag, payload_bytes, checksum;
};
constexpr char kCaseMagic[8] = {'A', 'C', 'C', 'A', 'S', 'E', '0', '2'};

// durable: the file's data is on disk (fdatasync) before it is renamed into
// place.
inline void WriteCaseFile(const std::string& path, const std::vector<CasePart>& parts, bool durable = false) {
  CaseTrailer t{};
  std::memcpy(t.magic, kCaseMagic, 8);
  t.name_tag = NameTag(path);
  uint64_t h = 0x84222325cbf29ce4ULL;
  for (const auto& part : parts) {
    h = Checksum64(part.data, part.bytes, h);
    t.payload_bytes += part.bytes;
  }
  t.checksum = h;
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Die("cannot write " + tmp + ": " + std::strerror(errno));
  auto write_all = [&](const void* data, size_t bytes) {
    const char* p = static_cast<const char*>(data);
    for (size_t off = 0; off < bytes;) {
      const ssize_t n = write(fd, p + off, bytes - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) Die("write " + tmp + ": " + std::strerror(errno));
      off += static_cast<size_t>(n);
    }
  };
  for (const auto& part : parts) write_all(part.data, part.bytes);
  write_all(&t, sizeof t);
  if (durable && fdatasync(fd) != 0) Die("fdatasync " + tmp + ": " + std::strerror(errno));
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) Die("rename " + tmp + ": " + std::strerror(errno));
}

// True when `path` holds exactly `parts` (sizes, name, checksum): they are
// filled. False when it is missing, of another size, another case's, or
// damaged: the caller recomputes it.
inline bool ReadCaseFile(const std::string& path, const std::vector<CasePart>& parts) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  auto read_all = [fd](void* data, size_t bytes) {
    char* p = static_cast<char*>(data);
    size_t off = 0;
    while (off < bytes) {
      const ssize_t n = read(fd, p + off, bytes - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  };
  uint64_t h = 0x84222325cbf29ce4ULL, payload = 0;
  bool ok = true;
  for (const auto& part : parts) {
    ok = ok && read_all(part.data, part.bytes);
    if (!ok) break;
    h = Checksum64(part.data, part.bytes, h);
    payload += part.bytes;
  }
  CaseTrailer t{};
  char extra;
  ok = ok && read_all(&t, sizeof t) && read(fd, &extra, 1) == 0;
  close(fd);
  return ok && std::memcmp(t.magic, kCaseMagic, 8) == 0 && t.name_tag == NameTag(path) && t.payload_bytes == payload &&
         t.checksum == h;
}

}  // namespace judge
