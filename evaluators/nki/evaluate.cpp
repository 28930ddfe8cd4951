#include "evaluators/nki/evaluate.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "evaluators/nki/inputs.hpp"
#include "evaluators/nki/judge_compare.hpp"
#include "evaluators/nki/output_files.hpp"
#include "evaluators/nki/roofline.hpp"
#include "evaluators/nki/static_check.hpp"

namespace accelopt::eval::nki {
namespace {

constexpr const char* kStandInMarker = "accelopt_test_stand_in";
constexpr const char* kStandInRefused =
    "this result came from the test-only Neuron SDK stand-in (tests/fakes/nki), not from a Trainium; it is refused "
    "outside accelopt's tests (check evaluators.nki.python, PYTHONPATH and PATH)";

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
  j["device"] = stand_in ? "test stand-in (NOT a Trainium measurement)"
               : simulated ? "CPU simulator (correctness only, no time)"
                           : "trainium";
  if (simulated) j["simulated"] = true;
  if (timing) j["timing"] = timing->ToJson();
  if (profile) j["profile"] = profile->ToJson();
  if (percent_of_peak) j["percent_of_peak"] = *percent_of_peak;
  return j;
}

NkiEvalOutcome EvaluateNki(const workflows::ProblemSpec& problem, const std::string& reference_path,
                           const std::string& kernel_source, int core, const NkiEvalOptions& o, Env* env,
                           const std::atomic<bool>* cancel) {
  NkiEvalOutcome res;
  res.simulated = o.runner.simulate;
  auto internal = [&](const std::string& why) {
    res.status = "internal_error";
    res.reason = why;
    return res;
  };
  if (Status st = CheckKernelSource(kernel_source, o.runner.sdk_path == "nki" ? NkiPath::kNki : NkiPath::kBeta1);
      !st.ok()) {
    res.status = "rejected";
    res.reason = st.message();
    return res;
  }
  // The work folder: private, removed afterwards.
  Work work{env, o.work_root + "/accelopt-nki-" + HexId(env->RandomU64()), o.keep_work_dir};
  const std::string output_dir = work.dir + "/outputs", reference_dir = work.dir + "/reference";
  for (const std::string& d : {work.dir + "/artifacts", output_dir, reference_dir})
    if (Status st = env->CreateDirs(d); !st.ok()) return internal(st.message());
  (void)env->SetPermissions(work.dir, 0700);
  const std::string kernel_file = work.dir + "/candidate.py";
  if (Status st = env->WriteFileAtomic(kernel_file, kernel_source); !st.ok()) return internal(st.message());

  // Inputs of every case.
  const uint64_t key = o.secret_key ? o.secret_key : env->RandomU64();
  const int cases = o.normal_cases + static_cast<int>(problem.adversarial.size());
  json inputs = json::array();
  int64_t stride = 0;
  for (const auto& p : problem.params) {
    if (p.kind == workflows::ParamKind::kScalar) inputs.push_back({{"name", p.name}, {"kind", "scalar"}, {"value", p.value}});
    if (p.kind != workflows::ParamKind::kInput) continue;
    inputs.push_back({{"name", p.name}, {"kind", "array"}, {"shape", ResolvedShape(problem, p)}, {"offset", stride}});
    stride += p.elements * 4;
  }
  // Written case by case, input by input, chunk by chunk: the judge never
  // holds more than one chunk of inputs (element k of a stream depends only
  // on k, so the chunks are the same numbers as one fill).
  const std::string inputs_file = work.dir + "/inputs.bin";
  {
    std::vector<float> chunk;
    for (int c = 0; c < cases; ++c) {
      for (size_t i = 0; i < problem.params.size(); ++i) {
        const auto& p = problem.params[i];
        if (p.kind != workflows::ParamKind::kInput) continue;
        const auto dist = CaseDistribution(problem, p, c, o.normal_cases);
        const uint64_t stream = InputStream(key, c, static_cast<int>(i));
        for (int64_t first = 0; first < p.elements; first += kChunkElements) {
          const int64_t n = std::min<int64_t>(kChunkElements, p.elements - first);
          chunk.resize(static_cast<size_t>(n));
          FillInput(chunk.data(), n, dist, stream, first);
          if (Status st = env->AppendFile(inputs_file, std::string(reinterpret_cast<const char*>(chunk.data()),
                                                                   static_cast<size_t>(n) * sizeof(float)));
              !st.ok())
            return internal(st.message());
        }
      }
    }
    if (stride == 0 || cases == 0) {
      if (Status st = env->AppendFile(inputs_file, ""); !st.ok()) return internal(st.message());
    }
  }
  size_t nout = 0;
  for (const auto& p : problem.params) nout += p.kind == workflows::ParamKind::kOutput;
  json job = {{"kernel", kernel_file},   {"reference", reference_path}, {"function", problem.function},
              {"inputs", inputs},        {"inputs_file", inputs_file},  {"case_stride", stride},
              {"cases", cases},          {"outputs", json::array()},    {"artifact_dir", work.dir + "/artifacts"},
              {"output_dir", output_dir}, {"reference_dir", reference_dir},
              {"sdk", {{"path", o.runner.sdk_path}, {"compile_options", CompileOptions(o.runner)}, {"lnc", o.runner.lnc},
                       {"simulate", o.runner.simulate}}}};
  for (const auto& p : problem.params)
    if (p.kind == workflows::ParamKind::kOutput) job["outputs"].push_back({{"name", p.name}, {"elements", p.elements}});
  auto write_job = [&](const json& j, const std::string& name) -> Result<std::string> {
    const std::string f = work.dir + "/" + name;
    ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(f, Dump(j, 2)));
    return f;
  };

  // The trusted reference, run once the runner has produced outputs (a
  // candidate that does not compile costs no reference run).
  std::vector<std::vector<OutputFile>> want;
  auto run_reference = [&]() -> std::string {  // "" or why it failed
    auto ref_job = write_job(job, "reference_job.json");
    if (!ref_job.ok()) return ref_job.status().message();
    auto ref_run = env->RunProcess(ReferenceProcess(o.runner, *ref_job, work.dir, cancel));
    if (!ref_run.ok()) return "the reference process did not start: " + ref_run.status().message();
    if (ref_run->outcome == ProcessResult::Outcome::kCancelled) return "cancelled";
    auto ref_recs = ParseRecords(ref_run->stdout_data);
    if (!ref_run->Succeeded() || !ref_recs.ok() || !FindType(*ref_recs, "done")) {
      const RunnerRecord* e = ref_recs.ok() ? FindType(*ref_recs, "error") : nullptr;
      return "the numpy reference failed (" + ref_run->Describe() + "): " +
             (e ? e->header.value("message", "") : Tail(ref_run->stderr_data, 1000));
    }
    if (ref_run->stdout_truncated) return "the numpy reference wrote more records than its channel holds";
    if (Status st = CollectOutputs(*ref_recs, "float64", 8, cases, nout, reference_dir, env, &want); !st.ok()) {
      return "reference: " + st.message();
    }
    return "";
  };

  // The untrusted runner: correctness of every case, then timing round 0.
  std::vector<TimingRound> rounds;
  std::vector<RunnerRecord> samples;
  for (int round = 0;; ++round) {
    json rj = job;
    if (round > 0) rj["cases"] = 0;
    if (o.measure && !o.runner.simulate) {
      rj["timing"] = {{"round", round}, {"warmup", o.timing.warmup}, {"iterations", o.timing.iterations}};
    }
    auto jf = write_job(rj, "runner_job_" + std::to_string(round) + ".json");
    if (!jf.ok()) return internal(jf.status().message());
    auto run = env->RunProcess(RunnerProcess(o.runner, *jf, core, work.dir, cancel));
    if (!run.ok()) return internal("the runner did not start: " + run.status().message());
    res.runner_stderr = Tail(run->stderr_data);
    if (run->outcome == ProcessResult::Outcome::kCancelled) { res.status = "cancelled"; return res; }
    if (run->outcome == ProcessResult::Outcome::kTimedOut) {
      res.status = "timeout";
      res.reason = "the runner " + run->Describe();
      res.core_suspect = true;
      return res;
    }
    auto recs = ParseRecords(run->stdout_data);
    if (run->stdout_truncated) {
      res.status = "crash";
      res.reason = "the runner wrote more than its record channel holds (outputs go to files; " + run->Describe() + ")";
      res.core_suspect = true;
      return res;
    }
    if (!recs.ok()) {
      res.status = "crash";
      res.reason = "the runner's output channel is malformed: " + recs.status().message() + " (" + run->Describe() + ")";
      res.core_suspect = true;
      return res;
    }
    if (const RunnerRecord* hello = FindType(*recs, "hello")) {
      res.stand_in = res.stand_in || hello->header.value("stand_in", false);
    }
    if (res.stand_in && !o.allow_test_stand_in) return internal(kStandInRefused);
    if (const RunnerRecord* e = FindType(*recs, "error")) {
      const std::string stage = e->header.value("stage", "run");
      if (stage == "sdk") return internal(e->header.value("message", "") + " (accelopt-eval doctor nki)");
      res.status = stage == "compile" || stage == "load" ? "compile_error" : stage == "output" ? "wrong_result" : "crash";
      res.reason = stage + ": " + e->header.value("message", "");
      res.core_suspect = res.status == "crash";
      return res;
    }
    if (!run->Succeeded() || !FindType(*recs, "done")) {
      res.status = "crash";
      res.reason = "the runner " + run->Describe() + " before it finished";
      res.core_suspect = true;
      return res;
    }
    if (round == 0) {
      if (std::string why = run_reference(); !why.empty()) {
        if (why == "cancelled") { res.status = "cancelled"; return res; }
        return internal(why);
      }
      std::vector<std::vector<OutputFile>> got;
      if (Status st = CollectOutputs(*recs, "float32", 4, cases, nout, output_dir, env, &got); !st.ok()) {
        res.status = "wrong_result";
        res.reason = st.message();
        return res;
      }
      for (int c = 0; c < cases; ++c) {
        CaseVerdict v = JudgeCaseFiles(problem, got[static_cast<size_t>(c)], want[static_cast<size_t>(c)], env);
        res.worst_rel_error = std::max(res.worst_rel_error, v.worst_rel);
        if (!v.ok) {
          res.status = "wrong_result";
          res.reason = (c < o.normal_cases ? "case " + std::to_string(c)
                                           : "adversarial case '" +
                                                 problem.adversarial[static_cast<size_t>(c - o.normal_cases)].name + "'") +
                       ": " + v.reason;
          return res;
        }
      }
    }
    if (!o.measure || o.runner.simulate) break;
    // The outputs of every warm-up and timed run, against case 0's reference.
    {
      std::map<std::string, std::vector<OutputFile>> runs;
      std::vector<std::string> order;  // as the runner ran them
      for (const auto& r : *recs) {
        if (r.header["type"] != "output" || !r.header.contains("run")) continue;
        const std::string name = r.header.value("run", "");
        if (!runs.count(name)) order.push_back(name);
        auto& outs = runs[name];
        const size_t k = static_cast<size_t>(std::max(0, r.header.value("index", 0)));
        if (k >= nout + 8) continue;  // far more outputs than the problem has: a count mismatch below
        if (outs.size() <= k) outs.resize(k + 1);
        if (r.header.value("dtype", "") != "float32") continue;  // left empty: a count mismatch below
        auto f = OutputFileOf(r.header, output_dir, 4, env);
        if (!f.ok()) {
          res.status = "wrong_result";
          res.reason = "round " + std::to_string(round) + ", " + name + " run: " + f.status().message();
          return res;
        }
        outs[k] = *f;
      }
      const size_t expected_runs = static_cast<size_t>(o.timing.warmup + o.timing.iterations);
      if (runs.size() != expected_runs) {
        res.status = "wrong_result";
        res.reason = "round " + std::to_string(round) + ": outputs of " + std::to_string(runs.size()) + " timing runs, expected " +
                     std::to_string(expected_runs);
        return res;
      }
      for (const auto& run : order) {
        CaseVerdict v = JudgeCaseFiles(problem, runs[run], want[0], env);
        if (!v.ok) {
          res.status = "wrong_result";
          res.reason = "round " + std::to_string(round) + ", " + run + " run (case 0's inputs): " + v.reason;
          return res;
        }
      }
    }
    // Device time of every sample, by the judge's own neuron-profile.
    std::vector<double> times;
    for (const auto& r : *recs) {
      if (r.header["type"] != "sample") continue;
      auto prof = env->RunProcess(ProfilerProcess(o.runner, r.header.value("neff", ""), r.header.value("ntff", ""),
                                                  work.dir, cancel));
      if (!prof.ok() || !prof->Succeeded()) {
        return internal(o.runner.profiler + " failed: " + (prof.ok() ? prof->Describe() + ": " + Tail(prof->stderr_data, 500)
                                                                : prof.status().message()));
      }
      if (prof->stdout_data.find(kStandInMarker) != std::string::npos) res.stand_in = true;
      auto p = ParseProfileSummary(prof->stdout_data, o.runner.profiler + " summary");
      if (!p.ok()) return internal(p.status().message());
      times.push_back(p->total_time_s);
      res.profile = *p;
    }
    // This round's outputs are checked: their files go (disk is the
    // outputs of one round at a time; the reference's stay for case 0).
    (void)env->RemoveAll(output_dir);
    if (Status st = env->CreateDirs(output_dir); !st.ok()) return internal(st.message());
    auto summary = SummarizeRound(times);
    if (!summary.ok()) return internal("timing round " + std::to_string(round) + ": " + summary.status().message());
    rounds.push_back(*summary);
    if (!NeedAnotherRound(rounds, o.timing)) break;
  }
  if (res.stand_in && !o.allow_test_stand_in) return internal(kStandInRefused);
  if (o.measure && !o.runner.simulate) {
    auto t = ChooseRound(rounds, o.timing);
    if (!t.ok()) return internal(t.status().message());
    res.timing = *t;
    auto gen = FindGeneration(o.generation);
    if (!gen.ok()) return internal(gen.status().message());
    auto roof = ComputeRoofline(problem, *gen);
    if (roof.ok()) {
      auto pct = PercentOfPeak(*roof, t->latency_s);
      if (!pct.ok() && pct.status().code() == Code::kFailedPrecondition) {
        // Faster than the roofline: not a record, not our crash either.
        res.status = "suspicious";
        res.reason = pct.status().message() + " [" + gen->name + ": " + RooflineFigures(*roof, *gen) + "]";
        return res;
      }
      if (!pct.ok()) return internal(pct.status().message());
      res.percent_of_peak = *pct;
    }
  }
  res.status = "ok";
  return res;
}

}  // namespace accelopt::eval::nki
