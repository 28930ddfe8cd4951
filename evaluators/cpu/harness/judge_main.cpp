// The cpu judge: the trusted side of an evaluation. It decides; the runner
// (runner_main.cpp, a separate untrusted process) only loads the candidate
// and calls it when told. docs/evaluation.md ("The judge and its runner")
// says what the judge promises and how each class of attack is stopped.
//
// Not linked into the evaluator. The cpu backend embeds this file, compiles it
// once per machine (cached), and links it per problem with the generated
// reference glue (AcceloptCallReference, harness_builder.cpp) and the
// problem's reference.cpp. It runs under RunProcess (own process group,
// rlimits, private network namespace); the runner is its child, in the same
// process group.
//
// Modes (stdin: the job, see job.hpp):
//   prepare  computes the double-precision reference outputs of every case
//            whose file is missing and writes them atomically (0600).
//   judge    holds the inputs (from secret seeds), the references, the clock,
//            the tolerance and the verdict; starts the runner, checks every
//            call's whole output, times every call itself.
//
// Output: progress lines "stage ..." and the runner's diagnostics (prefixed
// "runner: ") on stderr; one final line on stdout:
//   ACCELOPT-JUDGE {json}
// Exit 0 when that line was written (the JSON says pass or fail), 2 on a
// judge error (message on stderr: a broken problem or machine, never the
// candidate's doing).
//
// Clocks (job `clock`): host (the cpu runner) — a sample is the judge's round
// trip minus the handshake minimum; device (the cuda runner) — a sample is
// the runner's reported CUDA-event time, accepted only within the bounds
// the judge's own round trip allows (device_clock.hpp); a claim outside them
// fails the evaluation ("protocol" or "device_time"). Everything else
// (inputs, references, comparisons, rounds, the history check) is the same.
#include <omp.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>

#include "evaluators/cpu/harness/compare.hpp"
#include "evaluators/cpu/harness/device_clock.hpp"
#include "evaluators/cpu/harness/references.hpp"
#include "evaluators/cpu/harness/shared_region.hpp"
#include "evaluators/cpu/harness/inputs.hpp"
#include "evaluators/cpu/harness/job.hpp"
#include "evaluators/cpu/harness/runner_link.hpp"
#include "evaluators/cpu/harness/wire.hpp"
#include "evaluators/stats.hpp"

namespace judge {
namespace {

namespace stats = accelopt::eval::stats;

std::string JsonEscape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += static_cast<char>(c); }
    else if (c == '\n') o += "\\n";
    else if (c < 0x20 || c >= 0x7f) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += static_cast<char>(c);
  }
  return o;
}

// kind: wrong_result, load_error, exited, crashed, memory, sandbox, protocol,
// history, cores. phase: "handshake", "load", "case", "timing round N".
[[noreturn]] void ReportFailure(const std::string& kind, int case_index, const std::string& phase,
                                const std::string& msg) {
  std::printf("ACCELOPT-JUDGE {\"ok\": false, \"failure\": \"%s\", \"case\": %d, \"phase\": \"%s\", "
              "\"message\": \"%s\"}\n",
              kind.c_str(), case_index, JsonEscape(phase).c_str(), JsonEscape(msg).c_str());
  std::fflush(stdout);
  _exit(0);
}

class Judge {
 public:
  explicit Judge(const Job& job) : job_(job), np_(job.params.size()) {}

  void Run() {
    prctl(PR_SET_DUMPABLE, 0);  // the runner (same uid) cannot ptrace us or read /proc/<judge>/mem
    LoadReferences();
    shared_ = CreateShared(job_);
    cur_.assign(np_, nullptr);
    out_.assign(np_, nullptr);
    for (size_t k = 0; k < np_; ++k) {
      const Param& p = job_.params[k];
      if (p.kind == 'i') cur_[k] = static_cast<float*>(AlignedAlloc(sizeof(float) * p.elements));
      if (p.kind == 'o') out_[k] = static_cast<float*>(AlignedAlloc(sizeof(float) * p.elements));
    }
    int so_fd = open(job_.so_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (so_fd < 0) Die("cannot open the kernel object " + job_.so_path + ": " + std::strerror(errno));
    cores_ = job_.cores.empty() ? AllowedCores() : job_.cores;
    threads_ = job_.threads > 0 ? job_.threads : static_cast<int>(cores_.size());
    link_.Start(job_, so_fd, shared_.fd, cores_, threads_);
    close(so_fd);
    if (!job_.compare_so_path.empty()) {
      // The kernel to compare with (the problem's baseline): a second runner
      // on the same cores and shared memory; only one of the two ever runs.
      int cfd = open(job_.compare_so_path.c_str(), O_RDONLY | O_CLOEXEC);
      if (cfd < 0) Die("cannot open the comparison kernel " + job_.compare_so_path + ": " + std::strerror(errno));
      compare_ = std::make_unique<RunnerLink>();
      compare_->Start(job_, cfd, shared_.fd, cores_, threads_);
      close(cfd);
    }

    warmer_.Start(cores_);
    link_.set_warmer(&warmer_);
    if (compare_) compare_->set_warmer(&warmer_);
    CalibrateHandshake();
    Load();
    CorrectnessCases();
    Timing();
    Decide();
  }

 private:
  void LoadReferences() {
    const int64_t n = OutputElements(job_);
    refs_.resize(job_.cases.size());
    for (size_t c = 0; c < job_.cases.size(); ++c) {
      const Case& cs = job_.cases[c];
      if (cs.role == 'x') continue;  // computed only if HistoryCheck needs it
      if (cs.ref_path == "-") {
        Stage("reference case " + std::to_string(c));
        refs_[c] = ComputeReference(job_, cs, c);
        continue;
      }
      refs_[c].resize(static_cast<size_t>(n));
      if (!ReadFileExact(cs.ref_path, refs_[c].data(), sizeof(double) * refs_[c].size()))
        Die("reference file missing or wrong size: " + cs.ref_path);
    }
    std::string zero = ZeroNormOutput(job_, refs_);
    if (!zero.empty()) {
      Die("reference output '" + zero + "' is zero in every case: these cases cannot tell a kernel that writes "
          "zeros from a correct one (a problem bug: give the inputs a distribution with a nonzero result)");
    }
  }

  // The comparison kernel (the problem's baseline) failing is the
  // problem's fault, never the candidate's: a judge error.
  [[noreturn]] void CompareFailure(int case_index, const std::string& phase) {
    if (compare_->failure_kind.empty()) compare_->AwaitExit();
    Die("the comparison kernel failed (" + compare_->failure_kind + ") during " + phase + " of case " +
        std::to_string(case_index) + ": " + compare_->failure_message);
  }

  [[noreturn]] void RunnerFailure(int case_index, const std::string& phase) {
    Forward();
    ReportFailure(link_.failure_kind, case_index, phase, link_.failure_message);
  }

  void Forward() {
    link_.Finish();
    std::istringstream in(link_.diagnostics());
    for (std::string line; std::getline(in, line);) std::fprintf(stderr, "runner: %s\n", line.c_str());
    std::fflush(stderr);
  }

  // Round trips before any candidate code is loaded: what the handshake
  // itself costs on the judge's clock. Subtracting the minimum from every
  // timed call can only overstate a kernel's latency, never understate it.
  void CalibrateHandshake() {
    Stage("handshake");
    std::vector<double> t;
    for (int k = 0; k < std::max(10, job_.null_calls); ++k) {
      RunnerLink::Trip trip;
      if (!link_.RoundTrip(accelopt_wire::kNull, &trip)) RunnerFailure(-1, "handshake");
      if (k == 0) landlock_abi_ = static_cast<int>(trip.status);
      if (k >= 5) t.push_back(trip.wall_s);
    }
    overhead_min_s_ = stats::Min(t);
    overhead_median_s_ = stats::Median(t);
  }

  void Load() {
    Stage("load");
    RunnerLink::Trip trip;
    if (compare_) {
      for (int k = 0; k < 10; ++k)
        if (!compare_->RoundTrip(accelopt_wire::kNull, &trip)) CompareFailure(-1, "handshake");
      if (!compare_->RoundTrip(accelopt_wire::kLoad, &trip) || trip.status != accelopt_wire::kDone)
        CompareFailure(-1, "load");
    }
    if (!link_.RoundTrip(accelopt_wire::kLoad, &trip)) RunnerFailure(-1, "load");
    if (trip.status != accelopt_wire::kDone) {
      link_.AwaitExit();
      if (link_.failure_kind.empty()) link_.failure_kind = "load_error";
      RunnerFailure(-1, "load");
    }
    seccomp_ = link_.StatusField("Seccomp") == "2" && link_.StatusField("NoNewPrivs") == "1";
    cpus_allowed_ = link_.StatusField("Cpus_allowed_list");
  }

  void NanOutputs(uint32_t slots = 1) {
    const float kNaN = std::nanf("");
    for (size_t k = 0; k < np_; ++k) {
      if (job_.params[k].kind != 'o') continue;
      for (uint32_t i = 0; i < slots; ++i)
        std::fill(shared_.Slot(k, i), shared_.Slot(k, i) + job_.params[k].elements, kNaN);
    }
  }

  // Outputs must not change after the call returned: checked again right
  // before the next call (the runner is stopped in between).
  void OutputsStillAsReturned(int case_index, const std::string& phase) {
    if (last_case_ < 0) return;
    for (size_t k = 0; k < np_; ++k) {
      const Param& p = job_.params[k];
      if (p.kind == 'o' && std::memcmp(out_[k], shared_.Slot(k, last_slot_), sizeof(float) * p.elements) != 0) {
        ReportFailure("wrong_result", last_case_, phase,
                      "output '" + p.name + "' changed after the kernel returned: work finishing in the "
                      "background does not count");
      }
    }
    (void)case_index;
  }

  // Writes case inputs (from cur_) into shared memory, NaN-fills the outputs,
  // calls `batch` times in a row (call i writes output slot i), and checks
  // everything: every slot's whole output, the inputs. Returns the latency
  // per call in seconds (the batch's interval minus the handshake, / batch).
  double CallAndCheck(int c, const std::string& phase, bool comparison = false, uint32_t batch = 1) {
    if (comparison) return CompareCall(c, phase, batch);
    // The runner is stopped between calls, so its outputs cannot change after
    // it returned; the judge still checks it where it costs little (the
    // correctness calls) rather than on every timed call.
    if (phase == "case") OutputsStillAsReturned(c, phase);
    for (size_t k = 0; k < np_; ++k)
      if (job_.params[k].kind == 'i') std::memcpy(shared_.buf[k], cur_[k], sizeof(float) * job_.params[k].elements);
    NanOutputs(batch);
    RunnerLink::Trip trip;
    if (!link_.RoundTrip(accelopt_wire::kCall, &trip, batch)) RunnerFailure(c, phase);
    calls_ += batch;
    tails_.push_back(trip.wall_s - trip.reply_s);
    busy_cpu_s_ += trip.cpu_s;
    busy_wall_s_ += trip.wall_s;
    last_case_ = c;
    // The runner is stopped: nothing can change the slots while they are read.
    std::vector<float*> slot(np_, nullptr);
    for (uint32_t i = 0; i < batch; ++i) {
      for (size_t k = 0; k < np_; ++k)
        if (job_.params[k].kind == 'o') slot[k] = shared_.Slot(k, i);
      CheckOutputsOf(c, phase, slot);
    }
    last_slot_ = batch - 1;
    if (phase == "case" || compare_) {  // kept for OutputsStillAsReturned and CompareCall
      for (size_t k = 0; k < np_; ++k)
        if (job_.params[k].kind == 'o') std::memcpy(out_[k], slot[k], sizeof(float) * job_.params[k].elements);
    }
    CheckInputsUnchanged(c, phase);
    if (job_.device_clock) {
      const auto v = accelopt_device_clock::CheckDeviceClaim(static_cast<double>(trip.device_ns) * 1e-9, trip.wall_s,
                                                             batch, overhead_min_s_, overhead_median_s_);
      if (!v.failure.empty()) {
        Forward();
        ReportFailure(v.failure, c, phase, v.message);
      }
      device_wall_s_ += trip.wall_s;
      device_claimed_s_ += v.sample_s * batch;
      unexplained_.push_back(v.unexplained_ratio);
      return v.sample_s;
    }
    return std::max(0.0, trip.wall_s - overhead_min_s_) / batch;
  }

  // Checks one call's outputs against case c's reference. An output
  // bit-identical to one of this case that already passed the full
  // comparison is just as correct (deterministic kernels repeat themselves
  // exactly), so repeated calls usually cost a memcmp; anything else gets the
  // full comparison, and a timing case keeps the first output that passed.
  void CheckOutputsOf(int c, const std::string& phase, const std::vector<float*>& outs) {
    auto it = verified_.find(c);
    if (it != verified_.end()) {
      bool same = true;
      for (size_t k = 0; k < np_ && same; ++k)
        if (job_.params[k].kind == 'o')
          same = std::memcmp(outs[k], it->second[k].data(), sizeof(float) * job_.params[k].elements) == 0;
      if (same) return;
    }
    double worst = 0;
    std::string err = CheckOutputs(job_, outs, refs_[static_cast<size_t>(c)].data(), &worst);
    if (!err.empty()) {
      if (phase != "case") err = "timed call " + std::to_string(calls_) + ": " + err;
      ReportFailure("wrong_result", c, phase, err);
    }
    case_errors_[static_cast<size_t>(c)] = std::max(case_errors_[static_cast<size_t>(c)], worst);
    max_error_ = std::max(max_error_, worst);
    if (it == verified_.end() && job_.cases[static_cast<size_t>(c)].role == 't') {
      auto& keep = verified_[c];
      keep.resize(np_);
      for (size_t k = 0; k < np_; ++k)
        if (job_.params[k].kind == 'o') keep[k].assign(outs[k], outs[k] + job_.params[k].elements);
    }
  }

  void CheckInputsUnchanged(int c, const std::string& phase) {
    for (size_t k = 0; k < np_; ++k) {
      const Param& p = job_.params[k];
      if (p.kind != 'i' || std::memcmp(cur_[k], shared_.buf[k], sizeof(float) * p.elements) == 0) continue;
      int64_t changed = 0;
      for (int64_t e = 0; e < p.elements; ++e) changed += cur_[k][e] != shared_.buf[k][e] ? 1 : 0;
      ReportFailure("wrong_result", c, phase,
                    "the kernel modified input '" + p.name + "' (" + std::to_string(changed) +
                        " elements changed); inputs are read-only");
    }
  }

  // out_ holds one call's outputs: compare them all with case c's reference.

  // One call of the comparison kernel on case c's inputs (in cur_), checked
  // like the candidate's. Leaves out_ as the candidate left it.
  double CompareCall(int c, const std::string& phase, uint32_t batch = 1) {
    for (size_t k = 0; k < np_; ++k)
      if (job_.params[k].kind == 'i') std::memcpy(shared_.buf[k], cur_[k], sizeof(float) * job_.params[k].elements);
    NanOutputs(batch);
    RunnerLink::Trip trip;
    if (!compare_->RoundTrip(accelopt_wire::kCall, &trip, batch)) CompareFailure(c, phase);
    std::vector<float*> outs(np_, nullptr);
    for (uint32_t i = 0; i < batch; ++i) {
      for (size_t k = 0; k < np_; ++k)
        if (job_.params[k].kind == 'o') outs[k] = shared_.Slot(k, i);  // the runner is stopped
      double worst = 0;
      std::string err = CheckOutputs(job_, outs, refs_[static_cast<size_t>(c)].data(), &worst);
      if (!err.empty()) Die("the comparison kernel is wrong on case " + std::to_string(c) + ": " + err);
    }
    // The candidate's last outputs go back, so OutputsStillAsReturned holds.
    for (size_t k = 0; k < np_; ++k)
      if (job_.params[k].kind == 'o')
        std::memcpy(shared_.Slot(k, last_slot_), out_[k], sizeof(float) * job_.params[k].elements);
    if (job_.device_clock) {  // the baseline's runner is bounded like the candidate's (same handshake figures)
      const auto v = accelopt_device_clock::CheckDeviceClaim(static_cast<double>(trip.device_ns) * 1e-9, trip.wall_s,
                                                             batch, overhead_min_s_, overhead_median_s_);
      if (!v.failure.empty()) Die("the comparison kernel's runner: " + v.message);
      return v.sample_s;
    }
    return std::max(0.0, trip.wall_s - overhead_min_s_) / batch;
  }

  // Case c's inputs drawn ahead, so that the call on them follows the same
  // short gap (a copy into cur_) as a repeated call does: drawing takes the
  // judge milliseconds, and on a shared machine a long gap before a call
  // makes that call slower, which would look like history dependence.
  std::vector<std::vector<float>> Drawn(int c) {
    std::vector<std::vector<float>> in(np_);
    std::vector<float*> ptr(np_, nullptr);
    for (size_t k = 0; k < np_; ++k) {
      if (job_.params[k].kind != 'i') continue;
      in[k].resize(static_cast<size_t>(job_.params[k].elements));
      ptr[k] = in[k].data();
    }
    DrawInputs(job_, job_.cases[static_cast<size_t>(c)], ptr);
    return in;
  }

  void UseInputs(const std::vector<std::vector<float>>& in) {
    for (size_t k = 0; k < np_; ++k)
      if (job_.params[k].kind == 'i') std::memcpy(cur_[k], in[k].data(), sizeof(float) * job_.params[k].elements);
  }

  void DrawCase(int c) {
    DrawInputs(job_, job_.cases[static_cast<size_t>(c)], cur_);
  }

  void CorrectnessCases() {
    case_errors_.assign(job_.cases.size(), 0);
    for (size_t c = 0; c < job_.cases.size(); ++c) {
      const Case& cs = job_.cases[c];
      if (cs.role == 't') timing_.push_back(static_cast<int>(c));
      if (cs.role == 'h') holdouts_.push_back(static_cast<int>(c));
    }
    // Without timing there is no "later": held-out cases are checked now.
    if (timing_.empty() || job_.max_rounds < 1) holdouts_.clear();
    for (size_t c = 0; c < job_.cases.size(); ++c) {
      if (std::find(holdouts_.begin(), holdouts_.end(), static_cast<int>(c)) != holdouts_.end()) continue;
      if (job_.cases[c].role == 'x') continue;
      Stage("case " + std::to_string(c));
      DrawCase(static_cast<int>(c));
      const double t = CallAndCheck(static_cast<int>(c), "case");
      if (job_.cases[c].role == 't') single_s_.push_back(t);
      if (compare_) CallAndCheck(static_cast<int>(c), "case", true);
      if (job_.cases[c].role == 't') {
        auto& keep = saved_[static_cast<int>(c)];
        keep.resize(np_);
        for (size_t k = 0; k < np_; ++k)
          if (job_.params[k].kind == 'i') keep[k].assign(cur_[k], cur_[k] + job_.params[k].elements);
      }
    }
  }

  // One repeated call on the next timing case. With a comparison kernel,
  // that kernel is called on the same inputs right before or after (the
  // order alternates), its latency appended to compare_round_.
  double RepeatCall(const std::string& phase, uint32_t batch = 1, bool sample = false) {
    const size_t n = next_++;
    int c = timing_[n % timing_.size()];
    auto& keep = saved_[c];
    for (size_t k = 0; k < np_; ++k)
      if (job_.params[k].kind == 'i') std::memcpy(cur_[k], keep[k].data(), sizeof(float) * job_.params[k].elements);
    if (!compare_) return CallAndCheck(c, phase, false, batch);
    double other = 0, mine = 0;
    if (n % 2) { other = CompareCall(c, phase, batch); mine = CallAndCheck(c, phase, false, batch); }
    else { mine = CallAndCheck(c, phase, false, batch); other = CompareCall(c, phase, batch); }
    if (sample) compare_round_.push_back(other * 1e9);
    return mine;
  }

  // Rounds of repeated calls on the timing cases; each held-out case is
  // called once, at a random point of one of the first rounds, on inputs the
  // runner has never seen. A kernel that remembers inputs is fast on repeats
  // only; HistoryCheck() compares the two.
  void Timing() {
    if (timing_.empty() || job_.max_rounds < 1) return;
    // Short kernels are timed in batches (one handshake for several calls,
    // each writing its own output slot, every slot checked), so the
    // handshake and the stop of the runner's threads are a small part of
    // each sample. The estimate: the fastest of three single repeated calls.
    // (Kernels whose correctness calls already took longer than a batch
    // are not probed.)
    double single = stats::Min(single_s_);
    if (single < kBatchTargetS) {
      std::vector<double> probe;
      for (int k = 0; k < 3; ++k) probe.push_back(RepeatCall("timing estimate"));
      single = stats::Min(probe);
    }
    batch_ = single > 0 ? static_cast<uint32_t>(std::ceil(kBatchTargetS / single)) : 1;
    batch_ = std::max<uint32_t>(1, std::min(batch_, shared_.max_batch));
    const int planned = std::max(1, std::min(job_.min_rounds, job_.max_rounds));
    std::vector<std::vector<std::pair<int, int>>> plan(static_cast<size_t>(planned));  // (position, case)
    for (size_t j = 0; j < holdouts_.size(); ++j) {
      int pos = 1 + static_cast<int>(rng_() % static_cast<uint64_t>(std::max(1, job_.min_samples - 1)));
      plan[j % static_cast<size_t>(planned)].emplace_back(pos, holdouts_[j]);
    }
    double best_median = 1e300;
    for (rounds_ = 1; rounds_ <= job_.max_rounds; ++rounds_) {
      const std::string phase = "timing round " + std::to_string(rounds_);
      Stage(phase);
      for (int w = 0; w < job_.warmup; ++w) RepeatCall(phase, batch_);
      compare_round_.clear();
      std::vector<double> samples;
      std::vector<std::pair<size_t, double>> first_sight;  // (repeat samples before it, latency)
      double total = 0;
      auto& mine = rounds_ <= planned ? plan[static_cast<size_t>(rounds_ - 1)] : empty_plan_;
      std::map<int, std::vector<std::vector<float>>> ahead;
      if (batch_ == 1)
        for (const auto& [pos, h] : mine) ahead[h] = Drawn(h);
      while (static_cast<int>(samples.size()) < job_.max_samples &&
             (static_cast<int>(samples.size()) < job_.min_samples || total < job_.min_time_s)) {
        for (const auto& [pos, h] : mine) {
          if (pos != static_cast<int>(samples.size())) continue;
          if (batch_ > 1) {
            FirstSight(h, phase);
          } else {  // the samples are single calls: they are the neighbours
            UseInputs(ahead[h]);
            unbatched_first_.emplace_back(samples.size(), CallAndCheck(h, phase) * 1e9);
          }
        }
        double t = RepeatCall(phase, batch_, true);
        samples.push_back(t * 1e9);
        total += t * batch_;
      }
      for (const auto& [pos, ns] : unbatched_first_) {
        size_t lo = pos >= 3 ? pos - 3 : 0, hi = std::min(samples.size(), pos + 3);
        const double med = stats::Median(std::vector<double>(samples.begin() + static_cast<long>(lo),
                                                             samples.begin() + static_cast<long>(hi)));
        first_sight_ns_.push_back(ns);
        ratios_.push_back(med > 0 ? ns / med : 1.0);
      }
      unbatched_first_.clear();
      // The fastest round is kept: on a shared machine a round next to a busy
      // neighbour is uniformly slower, and says more about the neighbour.
      const double median = stats::Median(samples);
      if (median < best_median) { best_median = median; best_ = samples; compare_best_ = compare_round_; }
      if (rounds_ >= job_.min_rounds && stats::Spread(best_) <= job_.target_spread) break;
    }
    rounds_ = std::min(rounds_, job_.max_rounds);
  }

  // One call on held-out case h, never seen before, between single repeated
  // calls (R R R F R R R): compared with its neighbours in time, so a noisy
  // stretch of the machine slows both alike, and with single calls, so the
  // handshake weighs the same on both. (Unbatched timing compares with the
  // three samples on each side instead: they are single calls already.)
  void FirstSight(int h, const std::string& phase) {
    const auto in = Drawn(h);
    std::vector<double> around;
    for (int k = 0; k < 3; ++k) around.push_back(RepeatCall(phase) * 1e9);
    UseInputs(in);
    const double ns = CallAndCheck(h, phase) * 1e9;
    for (int k = 0; k < 3; ++k) around.push_back(RepeatCall(phase) * 1e9);
    const double med = stats::Median(around);
    first_sight_ns_.push_back(ns);
    ratios_.push_back(med > 0 ? ns / med : 1.0);
  }

  // Timing that depends on input history. When even the fastest first-seen
  // call was more than history_ratio x its neighbours, the judge confirms
  // before it accuses: up to four more never-seen cases ('x', references
  // computed now), each called between repeated calls (R R F R R). The kernel
  // is suspicious when at least three of them are again that much slower.
  void HistoryCheck() {
    if (ratios_.empty()) return;
    first_sight_ratio_ = *std::min_element(ratios_.begin(), ratios_.end());
    if (first_sight_ratio_ <= job_.history_ratio) return;
    std::vector<double> confirm;
    for (size_t c = 0; c < job_.cases.size(); ++c) {
      if (job_.cases[c].role != 'x') continue;
      Stage("confirming timing on new inputs");
      refs_[c] = ComputeReference(job_, job_.cases[c], c);
      const auto in = Drawn(static_cast<int>(c));
      std::vector<double> around;
      around.push_back(RepeatCall("timing confirmation") * 1e9);
      around.push_back(RepeatCall("timing confirmation") * 1e9);
      UseInputs(in);
      double ns = CallAndCheck(static_cast<int>(c), "timing confirmation") * 1e9;
      around.push_back(RepeatCall("timing confirmation") * 1e9);
      around.push_back(RepeatCall("timing confirmation") * 1e9);
      double med = stats::Median(around);
      confirm.push_back(med > 0 ? ns / med : 1.0);
      first_sight_ns_.push_back(ns);
    }
    if (confirm.empty()) return;
    size_t slower = 0;
    for (double r : confirm) slower += r > job_.history_ratio ? 1 : 0;
    std::sort(confirm.begin(), confirm.end());
    first_sight_ratio_ = stats::Median(confirm);
    if (slower + 1 < std::max<size_t>(2, confirm.size())) return;  // e.g. 3 of 4
    ReportFailure("history", -1, "timing",
                  "timing depends on input history: calls on inputs the kernel had seen before took a median of " +
                      Num(stats::Median(best_) / 1000, 4) + " us, calls on inputs it had never seen " +
                      Num(first_sight_ratio_, 3) + "x as long as the repeated calls around them (in " +
                      std::to_string(slower) + " of " + std::to_string(confirm.size()) +
                      " confirmations; limit " + Num(job_.history_ratio, 3) +
                      "x): a kernel must not remember earlier inputs or results");
  }

  void Decide() {
    if (job_.device_clock) {  // before the history check: its figures come from the same claims
      const auto v = accelopt_device_clock::CheckUnexplained(unexplained_);
      if (!v.failure.empty()) {
        Forward();
        ReportFailure(v.failure, -1, "timing", v.message);
      }
    }
    HistoryCheck();
    const double busy = busy_wall_s_ > 0 ? busy_cpu_s_ / busy_wall_s_ : 0;
    warmer_.Stop();
    long maxrss = link_.Finish();
    if (compare_) compare_->Finish();
    Forward();
    // (A device-clock runner's host threads — the CUDA runtime's, its spin
    // waits — are not the kernel's work: no cores check there.)
    if (!job_.device_clock && busy > static_cast<double>(cores_.size()) + 0.25) {
      ReportFailure("cores", -1, "timing",
                    "the kernel kept " + Num(busy, 3) + " cores busy but its slot allows " +
                        std::to_string(cores_.size()));
    }
    std::string s, ce, hs, cs, cmp;
    for (size_t i = 0; i < compare_best_.size(); ++i) cmp += (i ? "," : "") + Num(compare_best_[i], 10);
    for (size_t i = 0; i < best_.size(); ++i) s += (i ? "," : "") + Num(best_[i], 10);
    for (size_t i = 0; i < case_errors_.size(); ++i) ce += (i ? "," : "") + Num(case_errors_[i]);
    for (size_t i = 0; i < first_sight_ns_.size(); ++i) hs += (i ? "," : "") + Num(first_sight_ns_[i], 10);
    for (size_t i = 0; i < cores_.size(); ++i) cs += (i ? "," : "") + std::to_string(cores_[i]);
    std::printf(
        "ACCELOPT-JUDGE {\"ok\": true, \"max_rel_error\": %s, \"case_errors\": [%s], \"rounds\": %d, "
        "\"samples_ns\": [%s], \"compare_samples_ns\": [%s], \"first_sight_ns\": [%s], \"first_sight_ratio\": %s, \"avg_cores_busy\": %s, "
        "\"maxrss_kb\": %ld, \"threads\": %d, \"cores\": [%s], \"cpus_allowed\": \"%s\", \"calls\": %ld, "
        "\"calls_per_sample\": %u, \"single_call_ns\": %s, \"handshake_min_ns\": %s, \"handshake_median_ns\": %s, \"stop_median_ns\": %s, \"seccomp\": %s, \"landlock_abi\": %d, "
        "\"clock\": \"%s\", \"device_claimed_s\": %s, \"device_wall_s\": %s, "
        "\"device_unexplained_median\": %s}\n",
        Num(max_error_).c_str(), ce.c_str(), rounds_, s.c_str(), cmp.c_str(), hs.c_str(),
        first_sight_ratio_ > 0 ? Num(first_sight_ratio_).c_str() : "null", Num(busy).c_str(), maxrss, threads_,
        cs.c_str(), JsonEscape(cpus_allowed_).c_str(), calls_, batch_, Num(stats::Median(single_s_) * 1e9).c_str(), Num(overhead_min_s_ * 1e9).c_str(),
        Num(overhead_median_s_ * 1e9).c_str(), Num(stats::Median(tails_) * 1e9).c_str(), seccomp_ ? "true" : "false", landlock_abi_,
        job_.device_clock ? "device" : "host", Num(device_claimed_s_).c_str(), Num(device_wall_s_).c_str(),
        unexplained_.empty() ? "null" : Num(stats::Median(unexplained_)).c_str());
  }

  const Job& job_;
  const size_t np_;
  std::vector<std::vector<double>> refs_;
  Shared shared_;
  std::vector<float*> cur_, out_;  // judge-private: the inputs of the current call, the outputs it returned
  std::map<int, std::vector<std::vector<float>>> saved_;  // timing case -> its inputs
  std::map<int, std::vector<std::vector<float>>> verified_;  // timing case -> outputs that passed in full
  std::vector<int> timing_, holdouts_;
  std::vector<std::pair<int, int>> empty_plan_;
  std::vector<int> cores_;
  int threads_ = 1;
  CoreWarmer warmer_;
  RunnerLink link_;
  std::unique_ptr<RunnerLink> compare_;  // the comparison kernel's runner, when the job has compare_so
  std::vector<double> compare_round_, compare_best_;
  double overhead_min_s_ = 0, overhead_median_s_ = 0;
  int landlock_abi_ = 0;
  bool seccomp_ = false;
  std::string cpus_allowed_;
  std::vector<double> case_errors_, best_, ratios_, first_sight_ns_;
  std::mt19937_64 rng_{std::random_device{}()};
  std::vector<double> tails_;
  double max_error_ = 0, busy_cpu_s_ = 0, busy_wall_s_ = 0, first_sight_ratio_ = 0;
  long calls_ = 0;
  double device_claimed_s_ = 0, device_wall_s_ = 0;  // device clock: accepted claims and their round trips, summed
  std::vector<double> unexplained_;                   // device clock: each call's unexplained_ratio
  int last_case_ = -1;
  uint32_t last_slot_ = 0;
  uint32_t batch_ = 1;  // calls per timed sample (Timing)
  std::vector<double> single_s_;  // latencies of the timing cases' correctness calls
  std::vector<std::pair<size_t, double>> unbatched_first_;  // (samples before it, ns) in this round
  size_t next_ = 0;
  int rounds_ = 0;
};

}  // namespace
}  // namespace judge

int main() {
  // A runner that died before reading its command must not take the judge
  // with it: the write fails (EPIPE) and the judge reports how the runner
  // ended (without this, SIGPIPE killed the judge, seen with a runner that
  // exits at start).
  signal(SIGPIPE, SIG_IGN);
  judge::Job job = judge::ReadJob();
  if (job.judge_memory_mb > 0) {  // soft limit only: the hard one stays, so a runner may be given more
    rlimit as{};
    getrlimit(RLIMIT_AS, &as);
    as.rlim_cur = static_cast<rlim_t>(job.judge_memory_mb) << 20;
    if (as.rlim_max != RLIM_INFINITY && as.rlim_cur > as.rlim_max) as.rlim_cur = as.rlim_max;
    if (setrlimit(RLIMIT_AS, &as) != 0) judge::Die("cannot set the judge's memory limit");
  }
  if (job.mode == "prepare") judge::Prepare(job);
  else judge::Judge(job).Run();
  std::fflush(stdout);
  _exit(0);
}
