#include "daemon/suite_dirs.hpp"

#include <filesystem>

namespace accelopt::daemon {

std::string ImportedSuitesRoot(const DaemonConfig& config) {
  return (std::filesystem::path(config.state_dir) / "suites").string();
}

std::map<std::string, SuiteLocation> AllSuites(const DaemonConfig& config, Env* env) {
  std::map<std::string, SuiteLocation> out;
  for (const auto& [name, dir] : config.suites) out[name] = {dir, false};
  const std::string root = ImportedSuitesRoot(config);
  if (!env->IsDirectory(root)) return out;
  auto names = env->ListDir(root);
  if (!names.ok()) return out;
  for (const auto& n : *names) {
    if (!IsPlainFolderName(n) || out.count(n)) continue;  // staging, junk, or shadowed by a configured suite
    const std::string dir = (std::filesystem::path(root) / n).string();
    if (env->IsDirectory(dir)) out[n] = {dir, true};
  }
  return out;
}

std::map<std::string, std::string> SuiteFolders(const DaemonConfig& config, Env* env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, loc] : AllSuites(config, env)) out[name] = loc.dir;
  return out;
}

}  // namespace accelopt::daemon
