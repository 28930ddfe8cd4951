#include "daemon/state_lock.hpp"

namespace accelopt::daemon {

Result<std::unique_ptr<StateLock>> StateLock::Acquire(const std::string& state_dir, Env* env) {
  const std::string path = state_dir + "/acceloptd.lock";
  auto lock = env->LockFile(path, std::to_string(env->ProcessId()) + "\n");
  if (lock.ok()) return std::unique_ptr<StateLock>(new StateLock(std::move(*lock)));
  if (lock.status().code() != Code::kFailedPrecondition) return lock.status();
  auto text = env->ReadFile(path);
  std::string holder = text.ok() && !text->empty() ? *text : "another process";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
  return FailedPrecondition("state directory " + state_dir + " is in use by acceloptd (pid " + holder +
                            "); stop it first");
}

}  // namespace accelopt::daemon
