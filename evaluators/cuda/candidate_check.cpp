#include "evaluators/cuda/candidate_check.hpp"

#include <sstream>

#include "evaluators/judge/object_check.hpp"
#include "evaluators/judge/toolchain.hpp"
#include "evaluators/cuda/static_check.hpp"
#include "evaluators/cuda/toolchain.hpp"

namespace accelopt::eval::cuda {
namespace {

std::string CudaReplaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

EvalResult CheckCandidate(const std::string& source, const CandidateCheckOptions& o, const std::atomic<bool>* cancel) {
  Env* env = o.env;
  const int64_t t0 = env->MonotonicNanos();
  EvalResult r;
  auto done = [&](EvalStatus st, std::string reason, std::string text = "") {
    r.status = st;
    r.reason = std::move(reason);
    r.error_text = TruncateErrorText(std::move(text));
    r.timings.total_s = (env->MonotonicNanos() - t0) / 1e9;
    return r;
  };
  if (Status st = CheckSource(source); !st.ok()) return done(EvalStatus::kStaticCheckFailed, st.message());
  if (Status st = env->CreateDirs(o.work_dir); !st.ok()) return done(EvalStatus::kInternalError, st.ToString());
  // Absolute: the compiler runs in this folder (below).
  const std::string sandbox =
      (o.work_dir.empty() || o.work_dir[0] != '/' ? env->CurrentDir() + "/" : std::string()) + o.work_dir;
  const std::string src = sandbox + "/kernel.cu", so = sandbox + "/kernel.so";
  if (Status st = env->WriteFileAtomic(src, source); !st.ok()) return done(EvalStatus::kInternalError, st.ToString());
  std::vector<std::string> args = KernelFlags(o.arch);
  args.insert(args.end(), {"-o", so, src});
  // Under the compiler's file sandbox, like the cpu backend's compile
  // (judge/toolchain.hpp): nvcc and its host compiler read the system and
  // the toolkit, and write only the work folder.
  auto cc = judge::RunCompiler(env, o.nvcc, args, o.compile_timeout_s, cancel, sandbox);
  if (!cc.ok()) return done(EvalStatus::kInternalError, "cannot run nvcc: " + cc.status().message());
  r.timings.compile_s = cc->seconds;
  const std::string text = CudaReplaceAll(cc->output, sandbox + "/", "");
  if (cc->cancelled) return done(EvalStatus::kCancelled, "cancelled while compiling");
  if (cc->timed_out) {
    std::ostringstream m;
    m << "compilation timed out after " << o.compile_timeout_s << " s";
    return done(EvalStatus::kCompileError, m.str(), text);
  }
  if (!cc->ok) {
    std::string line = cc->describe;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);)
      if (l.find("error") != std::string::npos) {
        line = l;
        break;
      }
    return done(EvalStatus::kCompileError, "compilation failed: " + line.substr(0, 300), text);
  }
  r.compiled = true;
  if (!o.function.empty()) {
    if (Status st = judge::CheckObjectFile(so, o.function, env); !st.ok()) {
      return done(st.code() == Code::kPermissionDenied ? EvalStatus::kStaticCheckFailed : EvalStatus::kInternalError,
                  st.message());
    }
  }
  auto syms = judge::UndefinedSymbols(so, env);
  if (!syms.ok()) return done(EvalStatus::kInternalError, syms.status().message());
  if (Status st = CheckSymbols(*syms); !st.ok()) return done(EvalStatus::kStaticCheckFailed, st.message());
  if (Status st = judge::CheckInstructions(so, env); !st.ok()) {
    return done(st.code() == Code::kUnavailable ? EvalStatus::kInternalError : EvalStatus::kStaticCheckFailed,
                st.message());
  }
  if (!o.keep_object) (void)env->RemoveAll(so);
  return done(EvalStatus::kOk,
              "compiled and passed the static checks (not run: `accelopt-eval run` judges and times it on a GPU)");
}

}  // namespace accelopt::eval::cuda
