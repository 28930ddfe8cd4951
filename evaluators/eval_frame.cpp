#include "evaluators/eval_frame.hpp"

#include <cctype>
#include <filesystem>
#include <utility>

namespace fs = std::filesystem;

namespace accelopt::eval {

EvalFrame::EvalFrame(Env* env, const std::atomic<bool>* cancel)
    : env_(env), cancel_(cancel), t_start_(env->MonotonicNanos()) {}

EvalResult EvalFrame::Finish(EvalResult r) const {
  r.error_text = TruncateErrorText(r.error_text);
  r.timings.total_s = SecondsSince(t_start_);
  return r;
}

EvalResult EvalFrame::Fail(EvalStatus status, std::string reason, std::string text) const {
  EvalResult r = result;
  r.status = status;
  r.reason = std::move(reason);
  r.error_text = std::move(text);
  return Finish(std::move(r));
}

EvalResult EvalFrame::FailStep(const Status& st, bool whole_reason) const {
  if (Cancelled()) return Fail(EvalStatus::kCancelled, "cancelled");
  const std::string& msg = st.message();
  if (whole_reason) return Fail(EvalStatus::kInternalError, msg);
  return Fail(EvalStatus::kInternalError, msg.substr(0, msg.find('\n')), msg);
}

double EvalFrame::SecondsSince(int64_t t0) const { return (env_->MonotonicNanos() - t0) / 1e9; }

Result<Problem> EvalFrame::LoadProblemFor(const EvalRequest& request, const std::string& root,
                                          const std::string& backend) const {
  fs::path dir(request.problem);
  if (dir.is_relative()) dir = fs::path(root) / dir;
  auto problem = LoadProblem(dir.string(), env_);
  if (!problem.ok()) return Internal("cannot load the problem: " + problem.status().message());
  if (problem->backend != backend) return Internal("problem " + problem->name + " is not a " + backend + " problem");
  return problem;
}

std::string EvalFrame::WorkDirName(const std::string& cache_dir, const std::string& prefix) const {
  return (fs::path(cache_dir) / "work" /
          (prefix + std::to_string(env_->ProcessId()) + "-" + std::to_string(env_->RandomU64() % 1000000000000ULL)))
      .string();
}

int SweepOrphanWorkDirs(Env* env, const std::string& cache_dir) {
  const std::string root = (fs::path(cache_dir) / "work").string();
  auto names = env->ListDir(root);
  if (!names.ok()) return 0;
  int removed = 0;
  for (const std::string& name : *names) {
    // "<prefix><pid>-<random>": the pid is the digits before the last '-'.
    const size_t dash = name.rfind('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == name.size()) continue;
    size_t start = dash;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(name[start - 1]))) --start;
    if (start == dash || dash - start > 18) continue;
    if (name.find_first_not_of("0123456789", dash + 1) != std::string::npos) continue;
    if (start > 0 && name[start - 1] != '-') continue;  // a prefix ends with '-' ("triton-")
    const int64_t pid = std::stoll(name.substr(start, dash - start));
    if (pid == env->ProcessId() || env->ProcessAlive(pid)) continue;
    if (env->RemoveAll((fs::path(root) / name).string()).ok()) ++removed;
  }
  return removed;
}

}  // namespace accelopt::eval
