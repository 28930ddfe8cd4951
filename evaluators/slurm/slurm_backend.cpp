#include "evaluators/slurm/slurm_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "base/log.hpp"
#include "base/sha256.hpp"

namespace accelopt::eval::slurm {
namespace {

// States after which a job will not write a result any more
// (squeue(1) "JOB STATE CODES").
const std::set<std::string> kEnded = {"COMPLETED",     "FAILED",       "CANCELLED", "TIMEOUT",
                                      "NODE_FAIL",     "PREEMPTED",    "BOOT_FAIL", "DEADLINE",
                                      "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED",   "UNKNOWN"};
// Ended without the evaluation being at fault: submitted again.
const std::set<std::string> kRetried = {"NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "REVOKED", "UNKNOWN"};

// A folder name from the request id (activity ids are safe already; anything
// else is replaced).
std::string FolderName(const EvalRequest& r, const std::string& request_text) {
  std::string id = r.id.empty() ? "request-" + Sha256Hex(request_text).substr(0, 16) : r.id;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  if (id.empty() || id[0] == '.') id = "r" + id;
  return id.substr(0, 200);
}

std::string Field(const std::string& line, const std::string& key) {
  size_t at = line.find(" " + key + "=");
  if (at == std::string::npos)
    at = line.rfind(key + "=", 0) == 0 ? 0 : std::string::npos;
  else
    ++at;
  if (at == std::string::npos) return "";
  at += key.size() + 1;
  return line.substr(at, line.find(' ', at) - at);
}

double Seconds(int64_t a, int64_t b) { return static_cast<double>(b - a) / 1e9; }

}  // namespace

int TimeLimitMinutes(const EvalSettings& s) {
  double seconds = 2 * (s.compile_timeout_s + s.timeout_s) + 120;
  return std::max(1, static_cast<int>(std::ceil(seconds / 60)));
}

SlurmBackend::SlurmBackend(SlurmOptions options, Env* env) : options_(std::move(options)), env_(env) {}

Result<ProcessResult> SlurmBackend::Slurm(const std::string& tool, std::vector<std::string> args, int timeout_s) {
  ProcessSpec spec;
  spec.argv = {options_.bin_dir.empty() ? tool : options_.bin_dir + "/" + tool};
  for (auto& a : args) spec.argv.push_back(std::move(a));
  spec.env_set = options_.env;
  spec.timeout = std::chrono::seconds(timeout_s);
  return env_->RunProcess(spec);
}

Result<std::string> SlurmBackend::Submit(const std::string& dir, const EvalRequest& request) {
  std::string eval = options_.eval_path;
  if (eval.empty()) {
    // Installed: next to acceloptd; in a build tree: build/evaluators/.
    auto self = std::filesystem::path(env_->ExecutablePath()).parent_path();
    eval = (self / "accelopt-eval").string();
    if (!env_->Exists(eval)) eval = (self.parent_path() / "evaluators" / "accelopt-eval").string();
  }
  std::vector<std::string> args = {"--parsable",
                                   "--job-name=accelopt-" + std::filesystem::path(dir).filename().string(),
                                   "--time=" + std::to_string(TimeLimitMinutes(request.settings)),
                                   "--no-requeue",
                                   "--chdir=" + dir,
                                   "--output=" + dir + "/job-%j.out",
                                   "--nodes=1",
                                   "--ntasks=1"};
  if (!options_.partition.empty()) args.push_back("--partition=" + options_.partition);
  if (options_.cpus_per_task > 0)
    args.push_back("--cpus-per-task=" + std::to_string(options_.cpus_per_task));
  else
    args.push_back("--exclusive");
  if (!options_.gres.empty()) args.push_back("--gres=" + options_.gres);
  for (const auto& a : options_.sbatch_args) args.push_back(a);
  // The job: the request's backend on the node (judge and runner there),
  // reading and writing only this folder. Arguments are quoted for sh.
  auto quote = [](const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  std::string cmd = "exec " + quote(eval) + " job --request request.json --result result.json";
  if (!options_.node_cache_dir.empty()) cmd += " --cache-dir " + quote(options_.node_cache_dir);
  if (options_.force_busy) cmd += " --force-busy";
  for (const auto& a : options_.job_args) cmd += " " + quote(a);
  args.push_back("--wrap=" + cmd);
  ACCELOPT_ASSIGN_OR_RETURN(auto r, Slurm("sbatch", std::move(args), 60));
  if (!r.Succeeded()) return Unavailable("sbatch " + r.Describe() + ": " + r.stderr_data.substr(0, 500));
  std::string id = r.stdout_data.substr(0, r.stdout_data.find_first_of(";\n"));
  if (id.empty() || !std::all_of(id.begin(), id.end(), ::isdigit))
    return Unavailable("sbatch answered no job id: " + r.stdout_data.substr(0, 200));
  // Durable before we wait on it: a daemon that restarts finds the job here.
  ACCELOPT_RETURN_IF_ERROR(env_->WriteFileAtomic(dir + "/job_id", id + "\n"));
  return id;
}

Result<std::pair<std::string, std::string>> SlurmBackend::Query(const std::string& job) {
  ACCELOPT_ASSIGN_OR_RETURN(auto r, Slurm("scontrol", {"show", "job", "-o", job}));
  if (!r.Succeeded()) {
    if (r.stderr_data.find("Invalid job id") != std::string::npos)
      return std::pair<std::string, std::string>{"UNKNOWN", "Slurm does not know the job"};
    return Unavailable("scontrol " + r.Describe() + ": " + r.stderr_data.substr(0, 300));
  }
  std::string state = Field(r.stdout_data, "JobState");
  if (state.empty()) return Unavailable("scontrol: no JobState in: " + r.stdout_data.substr(0, 300));
  std::string detail = "reason " + Field(r.stdout_data, "Reason") + ", exit code " + Field(r.stdout_data, "ExitCode");
  return std::pair<std::string, std::string>{state, detail};
}

void SlurmBackend::Cancel(const std::string& job) {
  auto r = Slurm("scancel", {job});
  if (!r.ok() || !r->Succeeded())
    LogWarning("slurm: scancel " + job + " failed: " + (r.ok() ? r->stderr_data.substr(0, 200) : r.status().message()));
}

SlurmBackend::JobEnd SlurmBackend::Watch(const std::string& job, const std::atomic<bool>* cancel) {
  JobEnd end;
  const int64_t start = env_->MonotonicNanos();
  int64_t last_answer = start;
  for (;;) {
    if (cancel && cancel->load()) {
      Cancel(job);
      end.cancelled = true;
      return end;
    }
    auto q = Query(job);
    const int64_t now = env_->MonotonicNanos();
    if (q.ok()) {
      last_answer = now;
      const std::string& state = q->first;
      if (kEnded.count(state)) {
        end.state = state;
        end.detail = q->second;
        return end;
      }
      if (state == "PENDING" && Seconds(start, now) > options_.max_pending_s) {
        Cancel(job);
        end.error = "job " + job + " pended longer than " + std::to_string(static_cast<int>(options_.max_pending_s)) +
                    " s (" + q->second + "); cancelled";
        return end;
      }
    } else if (Seconds(last_answer, now) > options_.controller_timeout_s) {
      end.error = "the Slurm controller did not answer for " +
                  std::to_string(static_cast<int>(options_.controller_timeout_s)) + " s about job " + job + ": " +
                  q.status().message();
      return end;
    }
    // Sleep in short steps so that a cancel is seen within ~100 ms.
    const int64_t until = env_->MonotonicNanos() + static_cast<int64_t>(options_.poll_s * 1e9);
    while (env_->MonotonicNanos() < until && !(cancel && cancel->load())) env_->SleepFor(std::chrono::milliseconds(50));
  }
}

std::optional<EvalResult> SlurmBackend::ReadResult(const std::string& dir, const std::string& request_sha) const {
  auto text = env_->ReadFile(dir + "/result.json");
  if (!text.ok()) return std::nullopt;
  auto j = ParseJson(*text);
  auto bad = [](const std::string& why) {
    return EvalResult::Failure(EvalStatus::kInternalError, "the evaluation job's result was refused: " + why);
  };
  if (!j.ok() || !j->is_object()) return bad("not JSON");
  if (j->value("request_sha256", std::string()) != request_sha) return bad("it is for another request");
  if (!j->contains("result")) return bad("no result");
  auto r = EvalResult::FromJson((*j)["result"]);
  if (!r.ok()) return bad(r.status().message());
  if (r->status == EvalStatus::kOk && (!r->correct || !r->latency || r->latency->samples_us.empty()))
    return bad("an ok result must be correct and timed");
  if (r->correct && (r->status == EvalStatus::kCompileError || r->status == EvalStatus::kStaticCheckFailed ||
                     r->status == EvalStatus::kWrongResult))
    return bad(std::string("a ") + EvalStatusName(r->status) + " result cannot be correct");
  return *r;
}

EvalResult SlurmBackend::Evaluate(const EvalRequest& request, const std::atomic<bool>* cancel) {
  return EvaluatePlaced(request, cancel, Placement{});
}

EvalResult SlurmBackend::EvaluatePlaced(const EvalRequest& request, const std::atomic<bool>* cancel,
                                        const Placement& placement) {
  const int64_t t0 = env_->MonotonicNanos();
  auto finish = [&](EvalResult r) {
    if (r.timings.total_s == 0) r.timings.total_s = Seconds(t0, env_->MonotonicNanos());
    return r;
  };
  EvalRequest req = request;
  req.settings.cores.clear();  // the node's allocation decides
  const std::string text = Dump(req.ToJson());
  const std::string sha = Sha256Hex(text);
  const std::string dir = options_.spool_dir + "/" + FolderName(req, text);
  if (Status s = env_->CreateDirs(dir); !s.ok())
    return finish(EvalResult::Failure(EvalStatus::kInternalError, "slurm spool: " + s.message()));

  // The job an earlier daemon submitted for this very request: recorded in
  // the event log (the placement handed back), else in the folder, else
  // still queued under the folder's job name.
  std::string job, found_by;
  int attempt = 0;
  const json& prev = placement.previous;
  if (prev.is_object() && prev.value("executor", "") == "slurm" && prev.value("request_sha256", "") == sha &&
      prev.contains("job_id") && prev["job_id"].is_string() && !prev["job_id"].get<std::string>().empty()) {
    job = prev["job_id"].get<std::string>();
    attempt = prev.contains("attempt") && prev["attempt"].is_number_integer() ? prev["attempt"].get<int>() : 1;
    found_by = "recorded in the event log";
  }
  auto old = env_->ReadFile(dir + "/request.json");
  if (old.ok() && *old == text) {
    if (auto r = ReadResult(dir, sha)) {
      LogInfo("slurm: " + dir + ": result of an earlier daemon's job taken");
      return finish(*r);
    }
    if (!job.empty()) {
      // the event log named it
    } else if (auto id = env_->ReadFile(dir + "/job_id"); id.ok()) {
      job = id->substr(0, id->find('\n'));
      found_by = "its folder's job_id";
    } else if (auto q = Slurm("squeue",
                              {"-h", "-o", "%i", "-t", "PENDING,RUNNING", "--name=accelopt-" + FolderName(req, text)});
               q.ok() && q->Succeeded()) {
      job = q->stdout_data.substr(0, q->stdout_data.find('\n'));  // submitted, killed before it was recorded
      found_by = "squeue, by its job name";
    }
  } else {
    (void)env_->RemoveAll(dir + "/result.json");
    (void)env_->RemoveAll(dir + "/job_id");
    if (Status s = env_->WriteFileAtomic(dir + "/request.json", text); !s.ok())
      return finish(EvalResult::Failure(EvalStatus::kInternalError, "slurm spool: " + s.message()));
  }
  if (!job.empty()) {
    LogInfo("slurm: " + req.id + ": found job " + job + " again (submitted before a restart; " + found_by + ")");
    attempt = std::max(attempt, 1);
  }

  std::string retried;  // why the last job was submitted again
  for (;;) {
    if (job.empty()) {
      if (attempt >= options_.max_attempts) {
        return finish(EvalResult::Failure(EvalStatus::kInternalError,
                                          "slurm: gave up after " + std::to_string(attempt) + " jobs: " + retried));
      }
      ++attempt;
      auto id = Submit(dir, req);
      if (!id.ok()) return finish(EvalResult::Failure(EvalStatus::kInternalError, "slurm: " + id.status().message()));
      job = *id;
      if (placement.placed) {
        placement.placed(json{{"executor", "slurm"}, {"job_id", job}, {"attempt", attempt}, {"request_sha256", sha}});
      }
    }
    JobEnd end = Watch(job, cancel);
    if (end.cancelled) {
      // A re-run (after a graceful stop) must submit afresh, not find this job.
      (void)env_->RemoveAll(dir + "/job_id");
      return finish(EvalResult::Failure(EvalStatus::kCancelled, "cancelled (slurm job " + job + " cancelled)"));
    }
    if (auto r = ReadResult(dir, sha)) return finish(*r);
    if (!end.error.empty()) return finish(EvalResult::Failure(EvalStatus::kInternalError, "slurm: " + end.error));
    auto output = env_->ReadFile(dir + "/job-" + job + ".out");
    std::string tail = output.ok() ? TruncateErrorText(*output, 2000) : "";
    const std::string what = "slurm job " + job + " ended " + end.state + " (" + end.detail + ") without a result";
    if (kRetried.count(end.state)) {
      LogWarning("slurm: " + req.id + ": " + what + "; submitting again");
      retried = what;
      job.clear();
      (void)env_->RemoveAll(dir + "/job_id");
      continue;
    }
    if (end.state == "TIMEOUT")
      return finish(EvalResult::Failure(
          EvalStatus::kTimeout,
          what + ": it ran past its time limit of " + std::to_string(TimeLimitMinutes(req.settings)) + " min", tail));
    if (end.state == "CANCELLED")
      return finish(
          EvalResult::Failure(EvalStatus::kInternalError, what + ": cancelled outside accelopt (scancel)", tail));
    return finish(EvalResult::Failure(EvalStatus::kInternalError, what, tail));
  }
}

}  // namespace accelopt::eval::slurm
