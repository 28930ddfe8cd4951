#include "evaluators/nki/evaluate.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "evaluators/nki/inputs.hpp"
#include "evaluators/nki/judge_compare.hpp"
#include "evaluators/nki/migrate.hpp"
#include "evaluators/nki/output_files.hpp"
#include "evaluators/nki/roofline.hpp"
#include "evaluators/nki/static_check.hpp"

namespace accelopt::eval::nki {
namespace {

constexpr const char* kStandInMarker = "accelopt_test_stand_in";
constexpr const char* kStandInRefused =
    "this result came from the test-only Neuron SDK stand-in (tests/fakes/nki), not from a Trainium; it is refused "
    "unless stand-in figures are asked for explicitly (accelopt-eval run --allow-test-stand-in, or "
    "evaluators.nki.allow_test_stand_in: true in the daemon's config; never on a real host: check "
    "evaluators.nki.python, PYTHONPATH and PATH)";

std::string HexId(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

std::string Tail(const std::string& s, size_t n = 4000) { return s.size() > n ? s.substr(s.size() - n) : s; }

struct Work {
  Env* env;
  std::string dir;
  bool keep;
  ~Work() {
    if (!keep && !dir.empty()) (void)env->RemoveAll(dir);
  }
};

// Output files by case from a record stream: out[c][k] (fewer than nout
// when the kernel returned fewer outputs).
Status CollectOutputs(const std::vector<RunnerRecord>& recs, const char* dtype, size_t width, int cases, size_t nout,
                      const std::string& dir, Env* env, std::vector<std::vector<OutputFile>>* out) {
  out->assign(static_cast<size_t>(cases), std::vector<OutputFile>(nout));
  std::vector<std::vector<bool>> seen(static_cast<size_t>(cases), std::vector<bool>(nout, false));
  for (const auto& r : recs) {
    if (r.header["type"] != "output" || r.header.contains("run")) continue;
    const int c = r.header.value("case", -1);
    const int k = r.header.value("index", -1);
    if (c < 0 || c >= cases) return InvalidArgument("an output record for case " + std::to_string(c));
    if (k < 0 || static_cast<size_t>(k) >= nout) {
      // More outputs than the problem has: the judge says so below.
      continue;
    }
    if (r.header.value("dtype", "") != dtype) {
      return InvalidArgument("output " + std::to_string(k) + " of case " + std::to_string(c) + " is not " + dtype);
    }
    ACCELOPT_ASSIGN_OR_RETURN((*out)[static_cast<size_t>(c)][static_cast<size_t>(k)],
                              OutputFileOf(r.header, dir, width, env));
    seen[static_cast<size_t>(c)][static_cast<size_t>(k)] = true;
  }
  for (int c = 0; c < cases; ++c)
    for (size_t k = 0; k < nout; ++k)
      if (!seen[static_cast<size_t>(c)][k]) {
        (*out)[static_cast<size_t>(c)].resize(k);  // the kernel returned fewer outputs
        break;
      }
  return Status::Ok();
}

const RunnerRecord* FindType(const std::vector<RunnerRecord>& recs, const std::string& type) {
  for (const auto& r : recs)
    if (r.header["type"] == type) return &r;
  return nullptr;
}

}  // namespace

json NkiEvalOutcome::ToJson() const {
  json j = {{"status", status}, {"reason", reason}, {"worst_rel_error", worst_rel_error}};
  j["device"] = stand_in ? kStandInDevice : simulated ? "CPU simulator (correctness only, no time)" : "trainium";
  if (simulated) j["simulated"] = true;
  if (stand_in) j["test_stand_in"] = true;
  if (timing) j["timing"] = timing->ToJson();
  if (profile) j["profile"] = profile->ToJson();
  if (percent_of_peak) j["percent_of_peak"] = *percent_of_peak;
  if (!migration.empty()) j["migration"] = migration;
  if (!kernel_path.empty()) j["kernel_path"] = kernel_path;
  return j;
}

namespace {

// One evaluation's state and steps. Every step returns false when the
// outcome (res) is final: the evaluation ends there with it.
class NkiEvaluation {
 public:
  NkiEvaluation(const workflows::ProblemSpec& problem, const std::string& reference_path, int core,
                const NkiEvalOptions& o, Env* env, const std::atomic<bool>* cancel)
      : problem_(problem),
        reference_path_(reference_path),
        core_(core),
        o_(o),
        env_(env),
        cancel_(cancel),
        work_{env, o.work_root + "/accelopt-nki-" + HexId(env->RandomU64()), o.keep_work_dir} {
    res.simulated = o.runner.simulate;
    output_dir_ = work_.dir + "/outputs";
    reference_dir_ = work_.dir + "/reference";
    cases_ = o.normal_cases + static_cast<int>(problem.adversarial.size());
    for (const auto& p : problem.params) nout_ += p.kind == workflows::ParamKind::kOutput;
  }

  NkiEvalOutcome res;

  bool Internal(const std::string& why) {
    res.status = "internal_error";
    res.reason = why;
    return false;
  }
  bool Ends(const std::string& status, const std::string& reason, bool core_suspect = false) {
    res.status = status;
    res.reason = reason;
    res.core_suspect = core_suspect;
    return false;
  }

  // The private work folder, the candidate's file, the inputs of every case
  // and the job both children read.
  bool Prepare(const std::string& kernel_source) {
    for (const std::string& d : {work_.dir + "/artifacts", output_dir_, reference_dir_})
      if (Status st = env_->CreateDirs(d); !st.ok()) return Internal(st.message());
    (void)env_->SetPermissions(work_.dir, 0700);
    const std::string kernel_file = work_.dir + "/candidate.py";
    if (Status st = env_->WriteFileAtomic(kernel_file, kernel_source); !st.ok()) return Internal(st.message());
    json inputs = json::array();
    int64_t stride = 0;
    for (const auto& p : problem_.params) {
      if (p.kind == workflows::ParamKind::kScalar)
        inputs.push_back({{"name", p.name}, {"kind", "scalar"}, {"value", p.value}});
      if (p.kind != workflows::ParamKind::kInput) continue;
      inputs.push_back(
          {{"name", p.name}, {"kind", "array"}, {"shape", ResolvedShape(problem_, p)}, {"offset", stride}});
      stride += p.elements * 4;
    }
    const std::string inputs_file = work_.dir + "/inputs.bin";
    if (Status st = WriteInputs(inputs_file, stride); !st.ok()) return Internal(st.message());
    job_ = {{"kernel", kernel_file},
            {"reference", reference_path_},
            {"function", problem_.function},
            {"inputs", inputs},
            {"inputs_file", inputs_file},
            {"case_stride", stride},
            {"cases", cases_},
            {"outputs", json::array()},
            {"artifact_dir", work_.dir + "/artifacts"},
            {"output_dir", output_dir_},
            {"reference_dir", reference_dir_},
            {"sdk",
             {{"path", o_.runner.sdk_path},
              {"compile_options", CompileOptions(o_.runner)},
              {"lnc", o_.runner.lnc},
              {"lnc_call", o_.runner.lnc_call},
              {"simulate", o_.runner.simulate}}}};
    for (const auto& p : problem_.params)
      if (p.kind == workflows::ParamKind::kOutput)
        job_["outputs"].push_back({{"name", p.name}, {"elements", p.elements}});
    return true;
  }

  // One runner process. Classic (the neuronxcc.nki path, nki.baremetal
  // profiling each call itself): round 0 runs every case and the first
  // timing round, later rounds time only; iteration is -1. Inspect (the nki
  // path, Inspect()): round 0's first process runs the cases only
  // (iteration -2: no timing), then one process per timed iteration, its
  // inspect variables set at its start, capturing one execution.
  bool RunRunner(int round, int iteration, std::vector<RunnerRecord>* recs) {
    json rj = job_;
    const bool with_cases = round == 0 && iteration < 0;
    if (!with_cases) rj["cases"] = 0;
    std::string inspect_dir;
    if (Timed() && iteration == -1) {
      rj["timing"] = {{"round", round}, {"warmup", o_.timing.warmup}, {"iterations", o_.timing.iterations}};
    } else if (Timed() && iteration >= 0) {
      rj["timing"] = {{"round", round},
                      {"iteration", iteration},
                      {"warmup", InProcessWarmup()},
                      {"iterations", 1},
                      {"capture", "inspect"}};
      inspect_dir = work_.dir + "/inspect_r" + std::to_string(round) + "_i" + std::to_string(iteration);
      if (Status st = env_->CreateDirs(inspect_dir); !st.ok()) return Internal(st.message());
    }
    const std::string tag = std::to_string(round) + (iteration >= 0 ? "_i" + std::to_string(iteration) : "");
    auto jf = WriteJob(rj, "runner_job_" + tag + ".json");
    if (!jf.ok()) return Internal(jf.status().message());
    auto run = env_->RunProcess(RunnerProcess(o_.runner, *jf, core_, work_.dir, cancel_, inspect_dir,
                                              inspect_dir.empty() ? 0 : InProcessWarmup()));
    if (!run.ok()) return Internal("the runner did not start: " + run.status().message());
    res.runner_stderr = Tail(run->stderr_data);
    if (run->outcome == ProcessResult::Outcome::kCancelled) return Ends("cancelled", "");
    if (run->outcome == ProcessResult::Outcome::kTimedOut)
      return Ends("timeout", "the runner " + run->Describe(), true);
    auto parsed = ParseRecords(run->stdout_data);
    if (run->stdout_truncated) {
      return Ends("crash",
                  "the runner wrote more than its record channel holds (outputs go to files; " + run->Describe() + ")",
                  true);
    }
    if (!parsed.ok()) {
      return Ends(
          "crash",
          "the runner's output channel is malformed: " + parsed.status().message() + " (" + run->Describe() + ")",
          true);
    }
    *recs = std::move(*parsed);
    if (const RunnerRecord* hello = FindType(*recs, "hello"))
      res.stand_in = res.stand_in || hello->header.value("stand_in", false);
    if (res.stand_in && !o_.allow_test_stand_in) return Internal(kStandInRefused);
    if (const RunnerRecord* e = FindType(*recs, "error")) {
      const std::string stage = e->header.value("stage", "run");
      if (stage == "sdk") return Internal(e->header.value("message", "") + " (accelopt-eval doctor nki)");
      const std::string status = stage == "compile" || stage == "load" ? "compile_error"
                                 : stage == "output"                   ? "wrong_result"
                                                                       : "crash";
      return Ends(status, stage + ": " + e->header.value("message", ""), status == "crash");
    }
    if (!run->Succeeded() || !FindType(*recs, "done"))
      return Ends("crash", "the runner " + run->Describe() + " before it finished", true);
    return true;
  }

  // The trusted reference, run once the runner has produced outputs (a
  // candidate that does not compile costs no reference run), then every
  // case's outputs against it.
  bool CheckCases(const std::vector<RunnerRecord>& recs) {
    if (std::string why = RunReference(); !why.empty())
      return why == "cancelled" ? Ends("cancelled", "") : Internal(why);
    std::vector<std::vector<OutputFile>> got;
    if (Status st = CollectOutputs(recs, "float32", 4, cases_, nout_, output_dir_, env_, &got); !st.ok())
      return Ends("wrong_result", st.message());
    for (int c = 0; c < cases_; ++c) {
      CaseVerdict v = JudgeCaseFiles(problem_, got[static_cast<size_t>(c)], want_[static_cast<size_t>(c)], env_);
      res.worst_rel_error = std::max(res.worst_rel_error, v.worst_rel);
      if (!v.ok) {
        return Ends(
            "wrong_result",
            (c < o_.normal_cases
                 ? "case " + std::to_string(c)
                 : "adversarial case '" + problem_.adversarial[static_cast<size_t>(c - o_.normal_cases)].name + "'") +
                ": " + v.reason);
      }
    }
    return true;
  }

  // The outputs of every warm-up and timed run of a round, against case 0's
  // reference (a kernel cannot be right when checked and fast when timed).
  bool CheckTimedRuns(const std::vector<RunnerRecord>& recs, int round) {
    std::map<std::string, std::vector<OutputFile>> runs;
    std::vector<std::string> order;  // as the runner ran them
    const std::string in_round = "round " + std::to_string(round);
    for (const auto& r : recs) {
      if (r.header["type"] != "output" || !r.header.contains("run")) continue;
      const std::string name = r.header.value("run", "");
      if (!runs.count(name)) order.push_back(name);
      auto& outs = runs[name];
      const size_t k = static_cast<size_t>(std::max(0, r.header.value("index", 0)));
      if (k >= nout_ + 8) continue;  // far more outputs than the problem has: a count mismatch below
      if (outs.size() <= k) outs.resize(k + 1);
      if (r.header.value("dtype", "") != "float32") continue;  // left empty: a count mismatch below
      auto f = OutputFileOf(r.header, output_dir_, 4, env_);
      if (!f.ok()) return Ends("wrong_result", in_round + ", " + name + " run: " + f.status().message());
      outs[k] = *f;
    }
    const size_t expected_runs = static_cast<size_t>(Inspect() ? o_.timing.iterations * (1 + InProcessWarmup())
                                                               : o_.timing.warmup + o_.timing.iterations);
    if (runs.size() != expected_runs) {
      return Ends("wrong_result", in_round + ": outputs of " + std::to_string(runs.size()) + " timing runs, expected " +
                                      std::to_string(expected_runs));
    }
    for (const auto& run : order) {
      CaseVerdict v = JudgeCaseFiles(problem_, runs[run], want_[0], env_);
      if (!v.ok) return Ends("wrong_result", in_round + ", " + run + " run (case 0's inputs): " + v.reason);
    }
    return true;
  }

  // Device time of every sample of a round, by the judge's own
  // neuron-profile; the round's output files go afterwards (disk holds the
  // outputs of one round at a time; the reference's stay for case 0).
  bool TimeRound(const std::vector<RunnerRecord>& recs, int round, std::vector<TimingRound>* rounds) {
    std::vector<double> times;
    for (const auto& r : recs) {
      if (r.header["type"] != "sample") continue;
      auto prof = env_->RunProcess(
          ProfilerProcess(o_.runner, r.header.value("neff", ""), r.header.value("ntff", ""), work_.dir, cancel_));
      if (!prof.ok() || !prof->Succeeded()) {
        return Internal(o_.runner.profiler + " failed: " +
                        (prof.ok() ? prof->Describe() + ": " + Tail(prof->stderr_data, 500) : prof.status().message()));
      }
      if (prof->stdout_data.find(kStandInMarker) != std::string::npos) res.stand_in = true;
      auto p = ParseProfileSummary(prof->stdout_data, o_.runner.profiler + " summary");
      if (!p.ok()) return Internal(p.status().message());
      times.push_back(p->total_time_s);
      res.profile = *p;
    }
    (void)env_->RemoveAll(output_dir_);
    if (Status st = env_->CreateDirs(output_dir_); !st.ok()) return Internal(st.message());
    auto summary = SummarizeRound(times);
    if (!summary.ok()) return Internal("timing round " + std::to_string(round) + ": " + summary.status().message());
    rounds->push_back(*summary);
    return true;
  }

  // The kept round by the paper's rule, and percent of peak by the
  // three-engine roofline (faster than it: suspicious).
  bool Finish(const std::vector<TimingRound>& rounds) {
    if (res.stand_in && !o_.allow_test_stand_in) return Internal(kStandInRefused);
    if (Timed()) {
      auto t = ChooseRound(rounds, o_.timing);
      if (!t.ok()) return Internal(t.status().message());
      res.timing = *t;
      auto physical = FindGeneration(o_.generation);
      if (!physical.ok()) return Internal(physical.status().message());
      auto gen = Result<Generation>(PerLogicalCore(*physical, o_.runner.lnc));  // a slot is a logical core
      auto roof = ComputeRoofline(problem_, *gen);
      if (roof.ok()) {
        auto pct = PercentOfPeak(*roof, t->latency_s);
        if (!pct.ok() && pct.status().code() == Code::kFailedPrecondition) {
          // Faster than the roofline: not a record, not our crash either.
          return Ends("suspicious",
                      pct.status().message() + " [" + gen->name + ": " + RooflineFigures(*roof, *gen) + "]");
        }
        if (!pct.ok()) return Internal(pct.status().message());
        res.percent_of_peak = *pct;
      }
    }
    res.status = "ok";
    return true;
  }

  bool Timed() const { return o_.measure && !o_.runner.simulate; }
  // The nki path: one process per captured execution (runner_link.hpp).
  bool Inspect() const { return o_.runner.sdk_path == "nki"; }
  // Warm-ups inside a captured process: only where the runtime can skip
  // them (NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP, documented from
  // 2.33); before, the captured execution is the process's first.
  int InProcessWarmup() const { return o_.runner.inspect_warmup ? o_.timing.warmup : 0; }

 private:
  // Written case by case, input by input, chunk by chunk: the judge never
  // holds more than one chunk of inputs (element k of a stream depends only
  // on k, so the chunks are the same numbers as one fill).
  Status WriteInputs(const std::string& file, int64_t stride) {
    const uint64_t key = o_.secret_key ? o_.secret_key : env_->RandomU64();
    std::vector<float> chunk;
    for (int c = 0; c < cases_; ++c) {
      for (size_t i = 0; i < problem_.params.size(); ++i) {
        const auto& p = problem_.params[i];
        if (p.kind != workflows::ParamKind::kInput) continue;
        const auto dist = CaseDistribution(problem_, p, c, o_.normal_cases);
        const uint64_t stream = InputStream(key, c, static_cast<int>(i));
        for (int64_t first = 0; first < p.elements; first += kChunkElements) {
          const int64_t n = std::min<int64_t>(kChunkElements, p.elements - first);
          chunk.resize(static_cast<size_t>(n));
          FillInput(chunk.data(), n, dist, stream, first);
          ACCELOPT_RETURN_IF_ERROR(env_->AppendFile(
              file, std::string(reinterpret_cast<const char*>(chunk.data()), static_cast<size_t>(n) * sizeof(float))));
        }
      }
    }
    if (stride == 0 || cases_ == 0) ACCELOPT_RETURN_IF_ERROR(env_->AppendFile(file, ""));
    return Status::Ok();
  }

  Result<std::string> WriteJob(const json& j, const std::string& name) {
    const std::string f = work_.dir + "/" + name;
    ACCELOPT_RETURN_IF_ERROR(env_->WriteFileAtomic(f, Dump(j, 2)));
    return f;
  }

  // "" or why the reference failed ("cancelled" when it was).
  std::string RunReference() {
    auto ref_job = WriteJob(job_, "reference_job.json");
    if (!ref_job.ok()) return ref_job.status().message();
    auto ref_run = env_->RunProcess(ReferenceProcess(o_.runner, *ref_job, work_.dir, cancel_));
    if (!ref_run.ok()) return "the reference process did not start: " + ref_run.status().message();
    if (ref_run->outcome == ProcessResult::Outcome::kCancelled) return "cancelled";
    auto ref_recs = ParseRecords(ref_run->stdout_data);
    if (!ref_run->Succeeded() || !ref_recs.ok() || !FindType(*ref_recs, "done")) {
      const RunnerRecord* e = ref_recs.ok() ? FindType(*ref_recs, "error") : nullptr;
      return "the numpy reference failed (" + ref_run->Describe() +
             "): " + (e ? e->header.value("message", "") : Tail(ref_run->stderr_data, 1000));
    }
    if (ref_run->stdout_truncated) return "the numpy reference wrote more records than its channel holds";
    if (Status st = CollectOutputs(*ref_recs, "float64", 8, cases_, nout_, reference_dir_, env_, &want_); !st.ok())
      return "reference: " + st.message();
    return "";
  }

  const workflows::ProblemSpec& problem_;
  const std::string& reference_path_;
  const int core_;
  const NkiEvalOptions& o_;
  Env* const env_;
  const std::atomic<bool>* const cancel_;
  Work work_;  // removed when the evaluation ends (unless keep_work_dir)
  std::string output_dir_, reference_dir_;
  int cases_ = 0;
  size_t nout_ = 0;
  json job_;
  std::vector<std::vector<OutputFile>> want_;  // the reference's outputs, by case
};

}  // namespace

NkiEvalOutcome EvaluateNki(const workflows::ProblemSpec& problem, const std::string& reference_path,
                           const std::string& kernel_source, int core, const NkiEvalOptions& options, Env* env,
                           const std::atomic<bool>* cancel) {
  // The kernel's path on this host (NkiEvalOptions::beta1_available).
  NkiEvalOptions o = options;
  std::string source = kernel_source;
  std::vector<std::string> migration;
  auto refuse = [&](const std::string& why) {
    NkiEvalOutcome res;
    res.simulated = o.runner.simulate;
    res.status = "rejected";
    res.reason = why;
    return res;
  };
  if (o.runner.sdk_path == "nki" && UsesNeuronxccNki(source)) {
    auto m = MigrateBeta1ToNki(source);
    if (m.ok()) {
      source = m->source;
      migration = m->rewrites;
    } else if (o.beta1_available && !o.runner.simulate) {
      o.runner.sdk_path = "neuronxcc";
      o.runner.lnc_call = "compile_flag";
    } else {
      return refuse(
          "a neuronxcc.nki (NKI Beta 1) kernel on a host that runs NKI through the nki package, and it "
          "cannot be migrated: " +
          m.status().message());
    }
  }
  if (Status st = CheckKernelSource(source, o.runner.sdk_path == "nki" ? NkiPath::kNki : NkiPath::kBeta1); !st.ok())
    return refuse(st.message());
  NkiEvaluation e(problem, reference_path, core, o, env, cancel);
  e.res.migration = migration;
  e.res.kernel_path = o.runner.sdk_path;
  if (!e.Prepare(source)) return e.res;
  std::vector<TimingRound> rounds;
  for (int round = 0;; ++round) {
    std::vector<RunnerRecord> recs;
    if (!e.Inspect()) {
      if (!e.RunRunner(round, -1, &recs)) return e.res;
      if (round == 0 && !e.CheckCases(recs)) return e.res;
    } else {
      if (round == 0 && (!e.RunRunner(0, -2, &recs) || !e.CheckCases(recs))) return e.res;
      recs.clear();
      for (int it = 0; e.Timed() && it < o.timing.iterations; ++it) {
        std::vector<RunnerRecord> one;
        if (!e.RunRunner(round, it, &one)) return e.res;
        recs.insert(recs.end(), one.begin(), one.end());
      }
    }
    if (!e.Timed()) break;
    if (!e.CheckTimedRuns(recs, round) || !e.TimeRound(recs, round, &rounds)) return e.res;
    if (!NeedAnotherRound(rounds, o.timing)) break;
  }
  e.Finish(rounds);
  return e.res;
}

}  // namespace accelopt::eval::nki
