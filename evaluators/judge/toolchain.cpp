#include "evaluators/judge/toolchain.hpp"

#include <chrono>

namespace accelopt::eval::judge {

Result<CompileRun> RunCompiler(Env* env, const std::string& compiler, const std::vector<std::string>& args,
                               double timeout_s, const std::atomic<bool>* cancel) {
  ProcessSpec spec;
  spec.argv.push_back(compiler);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.clear_env = true;
  spec.env_set["PATH"] = env->GetEnvVar("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  spec.env_set["LC_ALL"] = "C";
  spec.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  spec.limits.address_space_bytes = uint64_t{8} << 30;
  spec.limits.file_size_bytes = uint64_t{512} << 20;
  spec.limits.open_files = 512;
  spec.private_network = true;
  spec.max_output_bytes = 256 << 10;
  spec.cancel = cancel;
  ACCELOPT_ASSIGN_OR_RETURN(ProcessResult r, env->RunProcess(spec));
  CompileRun out;
  out.ok = r.Succeeded();
  out.timed_out = r.outcome == ProcessResult::Outcome::kTimedOut;
  out.cancelled = r.outcome == ProcessResult::Outcome::kCancelled;
  out.output = r.stderr_data + r.stdout_data;
  out.describe = r.Describe();
  out.seconds = std::chrono::duration<double>(r.wall).count();
  return out;
}

}  // namespace accelopt::eval::judge
