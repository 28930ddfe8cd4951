#include "evaluators/judge/judge_verdict.hpp"

#include <sstream>

#include "evaluators/stats.hpp"

namespace accelopt::eval::judge {
namespace {

// The last "stage ..." line the harness wrote to stderr, as a readable phrase.
std::string JudgeLastStage(const std::string& err, const std::vector<CaseSpec>& cases) {
  std::string s;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("stage ", 0) == 0) s = line.substr(6);
  if (s.empty()) return "start-up";
  if (s.rfind("case ", 0) == 0) {
    size_t c = std::strtoul(s.c_str() + 5, nullptr, 10);
    if (c < cases.size()) return "correctness case '" + cases[c].label + "'";
  }
  if (s == "load") return "loading the kernel";
  if (s == "handshake") return "the judge's handshake with the runner";
  return s;
}

// Harness stderr without its progress lines and without the runner's
// forwarded lines: the judge's own words.
std::string JudgeHarnessErrors(const std::string& err) {
  std::istringstream in(err);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("stage ", 0) != 0 && line.rfind("runner: ", 0) != 0) out += line + "\n";
  return out;
}

// The runner's forwarded lines, prefix removed.
std::string RunnerLines(const std::string& err) {
  std::istringstream in(err);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("runner: ", 0) == 0) out += line.substr(8) + "\n";
  return TruncateErrorText(out);
}

}  // namespace

JudgeOutcome ReadJudgeOutcome(const ProcessResult& run, const std::vector<CaseSpec>& cases, double timeout_s) {
  JudgeOutcome o;
  o.runner_diagnostics = RunnerLines(run.stderr_data);
  auto out = [&o](EvalStatus st, std::string reason, std::string text = "") {
    o.status = st;
    o.reason = std::move(reason);
    o.error_text = std::move(text);
    return o;
  };
  const std::string stage = JudgeLastStage(run.stderr_data, cases);
  const std::string errors = JudgeHarnessErrors(run.stderr_data);
  using O = ProcessResult::Outcome;
  if (run.outcome == O::kCancelled) return out(EvalStatus::kCancelled, "cancelled while running");
  if (run.outcome == O::kTimedOut) {
    const double wall = std::chrono::duration<double>(run.wall).count();
    o.cpu_share = wall > 0 ? std::chrono::duration<double>(run.cpu).count() / wall : 0;
    if (run.starved) {
      std::ostringstream m;
      m << "the host was busy: the evaluation got " << static_cast<int>(100 * o.cpu_share) << "% of one core in "
        << static_cast<int>(wall) << " s (during " << stage
        << "), too little to judge the kernel; evaluate it again when the machine is quieter";
      return out(EvalStatus::kInternalError, m.str());
    }
    std::ostringstream m;
    m << "timed out: still running after " << timeout_s << " s, during " << stage;
    return out(EvalStatus::kTimeout, m.str(), errors);
  }
  if (run.outcome == O::kSignaled) {
    return out(EvalStatus::kInternalError, "the judge crashed: " + run.Describe() + " during " + stage, errors);
  }
  if (run.exit_code == 2) {
    std::string line = errors.substr(0, errors.find('\n'));
    if (line.rfind("judge error: ", 0) == 0) line = line.substr(13);
    return out(EvalStatus::kInternalError, "judge error during " + stage + ": " + line, errors);
  }
  const std::string marker = "ACCELOPT-JUDGE ";
  size_t at = run.stdout_data.rfind(marker);
  if (at == std::string::npos) {
    return out(EvalStatus::kInternalError, "the judge ended without a verdict (" + run.Describe() + ") during " + stage,
               errors);
  }
  std::string line = run.stdout_data.substr(at + marker.size());
  line = line.substr(0, line.find('\n'));
  auto parsed = ParseJson(line);
  if (!parsed.ok()) return out(EvalStatus::kInternalError, "unreadable verdict: " + parsed.status().message(), line);
  const json& h = *parsed;
  if (!h.value("ok", false)) {
    int c = h.value("case", -1);
    const std::string kind = h.value("failure", std::string("?"));
    const std::string phase = h.value("phase", std::string());
    const std::string msg = h.value("message", std::string("?"));
    o.failure_kind = kind;
    o.phase = phase;
    const std::string label = (c >= 0 && static_cast<size_t>(c) < cases.size()) ? cases[c].label : "";
    std::string during = phase == "case" && !label.empty() ? "correctness case '" + label + "'"
                         : phase == "load"                 ? "loading the kernel"
                         : !label.empty()                  ? phase + ", case '" + label + "'"
                                                           : phase;
    if (kind == "wrong_result") {
      std::string where = label.empty() ? "" : "case '" + label + "': ";
      return out(EvalStatus::kWrongResult, where + msg, where + msg + "\n" + errors);
    }
    if (kind == "load_error") return out(EvalStatus::kRuntimeError, msg, errors);
    if (kind == "sandbox") {
      return out(EvalStatus::kRuntimeError, "the kernel was stopped by the sandbox: " + msg + " during " + during,
                 errors);
    }
    if (kind == "memory") return out(EvalStatus::kRuntimeError, "the kernel " + msg + " during " + during, errors);
    if (kind == "crashed") {
      std::string why = msg;
      if (msg.find("signal 9 ") != std::string::npos || msg.find("signal 24 ") != std::string::npos)
        why += " (CPU time limit or out of memory)";
      return out(EvalStatus::kRuntimeError, "the kernel crashed: " + why + " during " + during, errors);
    }
    if (kind == "history" || kind == "cores" || kind == "device_time") return out(EvalStatus::kSuspicious, msg, errors);
    return out(EvalStatus::kRuntimeError, msg + " during " + during, errors);
  }
  o.passed = true;
  o.status = EvalStatus::kOk;
  o.verdict = h;
  return o;
}

LatencyStats LatencyOfVerdict(const json& h) {
  LatencyStats lat;
  for (const auto& v : h.at("samples_ns")) lat.samples_us.push_back(v.get<double>() / 1000.0);
  lat.rounds = h.value("rounds", 0);
  lat.median_us = stats::Median(lat.samples_us);
  lat.min_us = stats::Min(lat.samples_us);
  lat.mean_us = stats::Mean(lat.samples_us);
  lat.spread = stats::Spread(lat.samples_us);
  return lat;
}

}  // namespace accelopt::eval::judge
