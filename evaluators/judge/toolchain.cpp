#include "evaluators/judge/toolchain.hpp"

#include <chrono>
#include <filesystem>

#include "base/landlock.hpp"

namespace accelopt::eval::judge {
namespace fs = std::filesystem;

std::vector<std::string> CompilerReadRoots(Env* env, const std::string& compiler) {
  std::vector<std::string> roots = {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc/ld.so.cache"};
  std::string found = compiler;
  if (compiler.find('/') == std::string::npos) {
    const std::string path = env->GetEnvVar("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
    for (size_t at = 0; at <= path.size();) {
      const size_t colon = std::min(path.find(':', at), path.size());
      const std::string dir = path.substr(at, colon - at);
      at = colon + 1;
      if (!dir.empty() && env->Exists(dir + "/" + compiler)) {
        found = dir + "/" + compiler;
        break;
      }
    }
  }
  std::error_code ec;
  const fs::path real = fs::canonical(found, ec);
  if (!ec && !BeneathAny(real.string(), roots)) {
    // <prefix>/bin/g++ -> <prefix>: its cc1plus, headers and libraries.
    const fs::path prefix =
        real.parent_path().filename() == "bin" ? real.parent_path().parent_path() : real.parent_path();
    roots.push_back(prefix.string());
  }
  return roots;
}

Result<CompileRun> RunCompiler(Env* env, const std::string& compiler, const std::vector<std::string>& args,
                               double timeout_s, const std::atomic<bool>* cancel, const std::string& sandbox_dir,
                               const std::vector<std::string>& protected_paths) {
  ProcessSpec spec;
  spec.argv.push_back(compiler);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.clear_env = true;
  spec.env_set["PATH"] = env->GetEnvVar("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  spec.env_set["LC_ALL"] = "C";
  spec.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  spec.limits.address_space_bytes = kCompileMemoryBytes;
  spec.limits.file_size_bytes = kCompileFileBytes;
  spec.limits.open_files = 512;
  spec.private_network = true;
  spec.max_output_bytes = 256 << 10;
  spec.cancel = cancel;
  if (!sandbox_dir.empty()) {
    FileAccessRules rules;
    rules.read_exec = CompilerReadRoots(env, compiler);
    for (const auto& p : protected_paths) {
      if (!p.empty() && BeneathAny(p, rules.read_exec)) {
        return FailedPrecondition("'" + p + "' lies beneath a folder the compiler's sandbox must read (" +
                                  "/usr, /lib*, /bin, /sbin or the compiler's prefix): a candidate could read it "
                                  "at compile time; move it elsewhere");
      }
    }
    rules.read_write = {sandbox_dir};
    rules.read_write_files = {"/dev/null"};
    spec.file_access = std::move(rules);
    spec.cwd = sandbox_dir;
    spec.env_set["TMPDIR"] = sandbox_dir;
  }
  ACCELOPT_ASSIGN_OR_RETURN(ProcessResult r, env->RunProcess(spec));
  CompileRun out;
  out.ok = r.Succeeded();
  out.timed_out = r.outcome == ProcessResult::Outcome::kTimedOut;
  out.cancelled = r.outcome == ProcessResult::Outcome::kCancelled;
  out.output = r.stderr_data + r.stdout_data;
  out.describe = r.Describe();
  out.seconds = std::chrono::duration<double>(r.wall).count();
  out.landlock_abi = r.landlock_abi;
  return out;
}

}  // namespace accelopt::eval::judge
