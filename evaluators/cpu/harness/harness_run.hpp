// The harness's "run" mode: sandbox the process, load the candidate, check
// every case, time. Included once, by harness_main.cpp (same translation
// unit; it uses that file's Job, DrawInputs, Stage, ...).
#pragma once

namespace {

// ---- seccomp ---------------------------------------------------------------

struct Forbidden { int nr; const char* name; };
Forbidden g_forbidden[128];
int g_forbidden_count = 0;

void OnSigsys(int, siginfo_t* info, void*) {
  const char* name = "unknown";
  for (int i = 0; i < g_forbidden_count; ++i)
    if (g_forbidden[i].nr == info->si_syscall) name = g_forbidden[i].name;
  char msg[160];
  int n = std::snprintf(msg, sizeof msg, "forbidden system call: %s (nr %d)\n", name, info->si_syscall);
  (void)!write(2, msg, n > 0 ? static_cast<size_t>(n) : 0);
  _exit(77);
}

void Rule(scmp_filter_ctx ctx, uint32_t action, const char* name, unsigned argc = 0,
          scmp_arg_cmp a = scmp_arg_cmp{}) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return;  // not on this architecture
  int rc = argc ? seccomp_rule_add(ctx, action, nr, 1, a) : seccomp_rule_add(ctx, action, nr, 0);
  if (rc != 0) Die(std::string("seccomp rule for ") + name + ": " + std::strerror(-rc));
  if (action == SCMP_ACT_TRAP && g_forbidden_count < 128) g_forbidden[g_forbidden_count++] = {nr, name};
}

void LoadFilter(scmp_filter_ctx ctx) {
  int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) Die(std::string("seccomp_load: ") + std::strerror(-rc));
}

// Stage 1, before dlopen: no processes, sockets, signals to others, writes to
// files, or changes to the file system. Read-only opens stay (the loader).
void InstallStage1() {
  struct sigaction sa{};
  sa.sa_sigaction = OnSigsys;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &sa, nullptr);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) Die("seccomp_init failed");
  const uint32_t T = SCMP_ACT_TRAP;
  for (const char* s : {"execve", "execveat", "fork", "vfork", "socket", "socketpair", "connect", "bind",
                        "listen", "accept", "accept4", "sendto", "sendmsg", "sendmmsg", "ptrace",
                        "process_vm_readv", "process_vm_writev", "mount", "umount2", "unshare", "setns",
                        "chroot", "pivot_root", "reboot", "init_module", "finit_module", "delete_module",
                        "kexec_load", "io_uring_setup", "unlink", "unlinkat", "rename", "renameat",
                        "renameat2", "mkdir", "mkdirat", "rmdir", "truncate", "chmod", "fchmodat", "chown",
                        "fchownat", "symlink", "symlinkat", "link", "linkat", "bpf", "perf_event_open",
                        "userfaultfd", "setuid", "setgid", "setpgid", "setsid", "memfd_create",
                        "creat", "name_to_handle_at", "open_by_handle_at"}) {
    Rule(ctx, T, s);
  }
  // Threads only: clone without CLONE_THREAD is a new process.
  Rule(ctx, T, "clone", 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  // clone3's flags live in memory seccomp cannot read: make glibc fall back to clone.
  Rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3");
  Rule(ctx, T, "kill", 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(getpid())));
  Rule(ctx, T, "tgkill", 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(getpid())));
  const scmp_datum_t kWrite = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
  Rule(ctx, T, "open", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, kWrite, O_WRONLY));
  Rule(ctx, T, "open", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, O_RDWR, O_RDWR));
  Rule(ctx, T, "open", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
  Rule(ctx, T, "openat", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_WRONLY, O_WRONLY));
  Rule(ctx, T, "openat", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_RDWR, O_RDWR));
  Rule(ctx, T, "openat", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
  Rule(ctx, T, "openat2");
  LoadFilter(ctx);
}

// Stage 2, after dlopen: no file opens at all (EACCES, so a library probing
// /sys falls back quietly) and no new executable memory.
void InstallStage2() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) Die("seccomp_init failed");
  Rule(ctx, SCMP_ACT_ERRNO(EACCES), "open");
  Rule(ctx, SCMP_ACT_ERRNO(EACCES), "openat");
  Rule(ctx, SCMP_ACT_TRAP, "prctl");
  Rule(ctx, SCMP_ACT_TRAP, "mmap", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  Rule(ctx, SCMP_ACT_TRAP, "mprotect", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  Rule(ctx, SCMP_ACT_TRAP, "pkey_mprotect", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  LoadFilter(ctx);
}

// ---- reporting ---------------------------------------------------------------

std::string JsonEscape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += static_cast<char>(c); }
    else if (c == '\n') o += "\\n";
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += static_cast<char>(c);
  }
  return o;
}

[[noreturn]] void ReportFailure(const Job& job, const char* failure, int case_index, const std::string& msg) {
  std::printf("ACCELOPT %s {\"ok\": false, \"failure\": \"%s\", \"case\": %d, \"message\": \"%s\"}\n",
              job.nonce.c_str(), failure, case_index, JsonEscape(msg).c_str());
  std::fflush(stdout);
  _exit(0);
}

std::string Num(double v, int digits = 6) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

struct Compare {
  double rel = 0, max_abs = 0, got = 0, want = 0;
  int64_t max_idx = -1, nonfinite = 0, first_nonfinite = -1;
};

Compare CompareOutput(const float* got, const double* want, int64_t n) {
  Compare c;
  double num = 0, den = 0;
  for (int64_t e = 0; e < n; ++e) {
    double g = got[e];
    if (!std::isfinite(g)) {
      if (c.first_nonfinite < 0) c.first_nonfinite = e;
      ++c.nonfinite;
      continue;
    }
    double d = g - want[e];
    num += d * d;
    den += want[e] * want[e];
    if (std::fabs(d) > c.max_abs) { c.max_abs = std::fabs(d); c.max_idx = e; c.got = g; c.want = want[e]; }
  }
  c.rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

// Returns "" when every output is within tolerance; else a one-line reason.
std::string CheckOutputs(const Job& job, const std::vector<const float*>& outs, const double* ref,
                         double* worst) {
  size_t off = 0, oi = 0;
  for (const auto& p : job.params) {
    if (p.kind != 'o') continue;
    Compare c = CompareOutput(outs[oi++], ref + off, p.elements);
    off += static_cast<size_t>(p.elements);
    if (c.nonfinite) {
      return "output '" + p.name + "' has " + std::to_string(c.nonfinite) + " NaN/Inf values of " +
             std::to_string(p.elements) + " (first at index " + std::to_string(c.first_nonfinite) +
             "): part of the output was not written before the call returned, or the computation overflowed";
    }
    if (c.rel > *worst) *worst = c.rel;
    if (c.rel > job.tolerance) {
      return "output '" + p.name + "' relative L2 error " + Num(c.rel) + " exceeds tolerance " +
             Num(job.tolerance) + " (max |error| " + Num(c.max_abs) + " at index " + std::to_string(c.max_idx) +
             ": got " + Num(c.got) + ", expected " + Num(c.want) + ")";
    }
  }
  return "";
}

std::string SampledCheck(const Job& job, const std::vector<const float*>& outs, const double* ref, long salt) {
  size_t off = 0, oi = 0;
  for (const auto& p : job.params) {
    if (p.kind != 'o') continue;
    const float* o = outs[oi++];
    const double* r = ref + off;
    off += static_cast<size_t>(p.elements);
    double ss = 0;
    int64_t step = std::max<int64_t>(1, p.elements / 4096);
    for (int64_t e = 0; e < p.elements; e += step) ss += r[e] * r[e];
    double scale = std::sqrt(ss / static_cast<double>((p.elements + step - 1) / step)) + 1e-30;
    int64_t start = static_cast<int64_t>(Mix(static_cast<uint64_t>(salt)) % static_cast<uint64_t>(step));
    for (int64_t e = start; e < p.elements; e += step) {
      double d = std::fabs(static_cast<double>(o[e]) - r[e]);
      if (!(d <= 1e-3 * (std::fabs(r[e]) + scale))) {
        return "output '" + p.name + "' at index " + std::to_string(e) + ": got " + Num(o[e]) + ", expected " +
               Num(r[e]);
      }
    }
  }
  return "";
}

void Run(const Job& job) {
  const size_t np = job.params.size();
  const size_t nc = job.cases.size();
  Args a;
  BuildScalarArgs(job, a);
  std::vector<float*> buf(np, nullptr);
  std::vector<const float*> outs;
  std::vector<float*> out_copy;
  for (size_t k = 0; k < np; ++k) {
    const Param& p = job.params[k];
    if (p.kind != 'i' && p.kind != 'o') continue;
    buf[k] = static_cast<float*>(AlignedAlloc(sizeof(float) * p.elements));
    a.kernel[k] = buf[k];
    if (p.kind == 'o') {
      outs.push_back(buf[k]);
      out_copy.push_back(static_cast<float*>(AlignedAlloc(sizeof(float) * p.elements)));
    }
  }
  const int64_t out_elems = OutputElements(job);
  std::vector<std::vector<double>> refs(nc);
  for (size_t c = 0; c < nc; ++c) {
    refs[c].resize(static_cast<size_t>(out_elems));
    if (!ReadFileExact(job.cases[c].ref_path, refs[c].data(), sizeof(double) * refs[c].size()))
      Die("reference file missing or wrong size: " + job.cases[c].ref_path);
  }
  int threads = omp_get_max_threads();  // also makes sure libgomp is initialized before the sandbox

  if (job.seccomp) InstallStage1();
  Stage("load");
  void* handle = dlopen(job.so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) ReportFailure(job, "load_error", -1, std::string("cannot load the kernel: ") + dlerror());
  void* fn = dlsym(handle, job.function.c_str());
  if (!fn) {
    ReportFailure(job, "load_error", -1,
                  "the kernel does not define extern \"C\" " + job.function + " (is it declared extern \"C\"?)");
  }
  if (job.seccomp) InstallStage2();

  const float kNaN = std::nanf("");
  auto fill_nan = [&] {
    for (size_t k = 0; k < np; ++k)
      if (job.params[k].kind == 'o') std::fill(buf[k], buf[k] + job.params[k].elements, kNaN);
  };
  // Inputs of the timing cases, kept to restore them between timed calls.
  std::vector<std::vector<std::vector<float>>> saved(nc);
  std::vector<std::vector<float>> in_copy(np);
  double worst = 0;
  std::string case_errors;

  for (size_t c = 0; c < nc; ++c) {
    Stage("case " + std::to_string(c));
    DrawInputs(job, job.cases[c], buf);
    for (size_t k = 0; k < np; ++k)
      if (job.params[k].kind == 'i') in_copy[k].assign(buf[k], buf[k] + job.params[k].elements);
    fill_nan();
    AcceloptCallKernel(fn, a.kernel.data());
    size_t oi = 0;  // copy the outputs the moment the call returns
    for (size_t k = 0; k < np; ++k)
      if (job.params[k].kind == 'o') { std::memcpy(out_copy[oi++], buf[k], sizeof(float) * job.params[k].elements); }
    if (c == 0 && job.background_check_ms > 0) {
      timespec ts{0, static_cast<long>(job.background_check_ms) * 1000000L};
      nanosleep(&ts, nullptr);
      oi = 0;
      for (size_t k = 0; k < np; ++k) {
        if (job.params[k].kind != 'o') continue;
        if (std::memcmp(out_copy[oi++], buf[k], sizeof(float) * job.params[k].elements) != 0) {
          ReportFailure(job, "wrong_result", static_cast<int>(c),
                        "output '" + job.params[k].name + "' changed after the kernel returned: work finishing "
                        "in a background thread does not count");
        }
      }
    }
    for (size_t k = 0; k < np; ++k) {
      if (job.params[k].kind != 'i') continue;
      if (std::memcmp(in_copy[k].data(), buf[k], sizeof(float) * job.params[k].elements) != 0) {
        int64_t changed = 0;
        for (int64_t e = 0; e < job.params[k].elements; ++e) changed += in_copy[k][e] != buf[k][e] ? 1 : 0;
        ReportFailure(job, "wrong_result", static_cast<int>(c),
                      "the kernel modified input '" + job.params[k].name + "' (" + std::to_string(changed) +
                      " elements changed); inputs are read-only");
      }
    }
    std::vector<const float*> copies(out_copy.begin(), out_copy.end());
    double case_worst = 0;
    std::string err = CheckOutputs(job, copies, refs[c].data(), &case_worst);
    if (!err.empty()) ReportFailure(job, "wrong_result", static_cast<int>(c), err);
    worst = std::max(worst, case_worst);
    case_errors += (c ? "," : "") + Num(case_worst);
    for (int t : job.timing_cases) {
      if (t == static_cast<int>(c)) {
        saved[c].resize(np);
        for (size_t k = 0; k < np; ++k) if (job.params[k].kind == 'i') saved[c][k] = in_copy[k];
      }
    }
  }

  // ---- timing ----
  std::vector<double> best, samples;
  double best_median = 1e300, busy_cpu = 0, busy_wall = 0;
  int rounds = 0;
  long calls = 0;
  size_t next = 0;
  auto timed_call = [&](bool record) {
    int c = job.timing_cases[next++ % job.timing_cases.size()];
    for (size_t k = 0; k < np; ++k)
      if (job.params[k].kind == 'i') std::memcpy(buf[k], saved[c][k].data(), sizeof(float) * job.params[k].elements);
    fill_nan();
    double c0 = CpuNow();
    double t0 = Now();
    AcceloptCallKernel(fn, a.kernel.data());
    double t1 = Now();
    double c1 = CpuNow();
    ++calls;
    double w = 0;
    // Every 8th timed call gets the full check; the others a sampled one
    // (NaN or far off at 4096 spread positions), which a skipped or stale
    // output cannot pass either.
    std::string err = calls % 8 == 0 ? CheckOutputs(job, outs, refs[c].data(), &w)
                                     : SampledCheck(job, outs, refs[c].data(), calls);
    if (!err.empty()) {
      ReportFailure(job, "wrong_result", c,
                    "timed call " + std::to_string(calls) + " returned a different result than its checked call "
                    "(results must not depend on earlier calls): " + err);
    }
    if (record) {
      samples.push_back((t1 - t0) * 1e9);
      busy_cpu += c1 - c0;
      busy_wall += t1 - t0;
    }
    return t1 - t0;
  };
  if (!job.timing_cases.empty()) {
    for (rounds = 1; rounds <= job.max_rounds; ++rounds) {
      Stage("timing round " + std::to_string(rounds));
      for (int w = 0; w < job.warmup; ++w) timed_call(false);
      samples.clear();
      double total = 0;
      while (static_cast<int>(samples.size()) < job.max_samples &&
             (static_cast<int>(samples.size()) < job.min_samples || total < job.min_time_s)) {
        total += timed_call(true);
      }
      {  // one more call, untimed, always fully checked
        long keep = calls;
        calls = (calls / 8 + 1) * 8 - 1;
        timed_call(false);
        calls = keep + 1;
      }
      // The fastest round is kept: on a shared machine a round that ran
      // next to a busy neighbour is uniformly slower (tight spread, higher
      // median), and its median says more about the neighbour than the kernel.
      const double median = accelopt::eval::stats::Median(samples);
      if (median < best_median) { best_median = median; best = samples; }
      if (rounds >= job.min_rounds && accelopt::eval::stats::Spread(best) <= job.target_spread) break;
    }
    rounds = std::min(rounds, job.max_rounds);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::string s;
  for (size_t i = 0; i < best.size(); ++i) s += (i ? "," : "") + Num(best[i], 10);
  std::printf("ACCELOPT %s {\"ok\": true, \"max_rel_error\": %s, \"case_errors\": [%s], \"rounds\": %d, "
              "\"samples_ns\": [%s], \"avg_cores_busy\": %s, \"maxrss_kb\": %ld, \"omp_max_threads\": %d, "
              "\"calls\": %ld, \"seccomp\": %s}\n",
              job.nonce.c_str(), Num(worst).c_str(), case_errors.c_str(), rounds, s.c_str(),
              Num(busy_wall > 0 ? busy_cpu / busy_wall : 0).c_str(), ru.ru_maxrss, threads, calls,
              job.seccomp ? "true" : "false");
}

}  // namespace
