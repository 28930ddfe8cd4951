#include "daemon/suite_import.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "base/json.hpp"
#include "daemon/suite_dirs.hpp"
#include "workflows/problem_json.hpp"
#include "workflows/backend_traits.hpp"

namespace accelopt::daemon {
namespace fs = std::filesystem;
namespace {

// `a` equals `b` or lies inside it (by path components, after normalizing).
bool SuiteImportPathWithin(const fs::path& a, const fs::path& b) {
  const fs::path na = a.lexically_normal(), nb = b.lexically_normal();
  auto ia = na.begin();
  for (auto ib = nb.begin(); ib != nb.end(); ++ib, ++ia) {
    if (ib->empty()) continue;  // a trailing separator
    if (ia == na.end() || *ia != *ib) return false;
  }
  return true;
}

std::string SuiteImportRandomHex(Env* env) {
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(env->RandomU64()));
  return buf;
}

}  // namespace

Status CheckUploadedProblem(const UploadedProblem& p) {
  if (!IsPlainFolderName(p.suite))
    return InvalidArgument("suite '" + p.suite +
                           "': not a plain folder name (1-64 of A-Z a-z 0-9 . _ -, not starting with '.' or '-')");
  if (!IsPlainFolderName(p.name))
    return InvalidArgument("problem '" + p.name +
                           "': not a plain folder name (1-64 of A-Z a-z 0-9 . _ -, not starting with '.' or '-')");
  const std::string reference = workflows::TraitsOf("nki").reference_file,
                    baseline = workflows::TraitsOf("nki").baseline_file;
  const std::vector<std::string> allowed = {"problem.json", reference, baseline};
  for (const auto& [file, text] : p.files) {
    if (std::find(allowed.begin(), allowed.end(), file) == allowed.end())
      return InvalidArgument("files." + file + ": not an allowed file (problem.json, " + reference + ", " + baseline +
                             ")");
    if (text.size() > kMaxUploadedFileBytes)
      return InvalidArgument("files." + file + ": " + std::to_string(text.size()) + " bytes, more than the " +
                             std::to_string(kMaxUploadedFileBytes) + " allowed");
  }
  for (const auto& file : allowed)
    if (!p.files.count(file)) return InvalidArgument("files." + file + ": missing");
  const std::string where = "suites/" + p.suite + "/" + p.name + "/problem.json";
  auto j = ParseJson(p.files.at("problem.json"));
  if (!j.ok()) return InvalidArgument(where + ": not JSON: " + j.status().message());
  auto spec = workflows::ParseProblemSpec(*j, where);
  if (!spec.ok()) return spec.status();
  if (spec->backend != "nki")
    return InvalidArgument(where + ": backend is '" + spec->backend +
                           "'; only nki problems are imported through the API (backend \"nki\")");
  return Status::Ok();
}

SuiteImporter::SuiteImporter(const DaemonConfig* config, Env* env, InUse in_use)
    : config_(config), env_(env), in_use_(std::move(in_use)) {}

Status SuiteImporter::CheckNotConfigured(const std::string& suite) const {
  if (auto it = config_->suites.find(suite); it != config_->suites.end())
    return Status(Code::kConflict, "suite '" + suite + "' is a configured suite (suites." + suite + ": " + it->second +
                                       "), read-only to the daemon; import under another suite name");
  const fs::path target = fs::path(ImportedSuitesRoot(*config_)) / suite;
  for (const auto& [name, dir] : config_->suites) {
    if (SuiteImportPathWithin(target, dir) || SuiteImportPathWithin(dir, target))
      return Status(Code::kConflict, "suite '" + suite + "' would be written at " + target.string() +
                                         ", which overlaps the configured suite '" + name + "' (" + dir +
                                         "); imports never write into a configured suite's folder");
  }
  return Status::Ok();
}

Result<PutProblemResult> SuiteImporter::Put(const UploadedProblem& p) {
  ACCELOPT_RETURN_IF_ERROR(CheckUploadedProblem(p));
  MutexLock lock(&mu_);
  ACCELOPT_RETURN_IF_ERROR(CheckNotConfigured(p.suite));
  const std::string root = ImportedSuitesRoot(*config_);
  const std::string staging = root + "/.staging";
  if (!staging_cleaned_) {
    if (env_->Exists(staging)) ACCELOPT_RETURN_IF_ERROR(env_->RemoveAll(staging));
    staging_cleaned_ = true;
  }
  PutProblemResult out;
  out.id = "suites/" + p.suite + "/" + p.name;
  out.dir = root + "/" + p.suite + "/" + p.name;
  const bool exists = env_->Exists(out.dir);
  if (exists && !p.force)
    return Status(Code::kAlreadyExists, out.id + ": exists (" + out.dir + "); pass force to replace it");
  if (exists && in_use_) {
    if (std::string campaign = in_use_(out.id); !campaign.empty())
      return FailedPrecondition(out.id + ": used by campaign " + campaign +
                                ", which has not ended; cancel it or wait before replacing the problem");
  }
  const std::string tmp = staging + "/" + p.name + "-" + SuiteImportRandomHex(env_);
  Status st = env_->CreateDirs(tmp);
  for (const auto& [file, text] : p.files) {
    if (!st.ok()) break;
    st = env_->WriteFileAtomic(tmp + "/" + file, text);
  }
  if (st.ok()) st = env_->CreateDirs(root + "/" + p.suite);
  if (!st.ok()) {
    (void)env_->RemoveAll(tmp);
    return st.WithContext(out.id);
  }
  if (exists) {
    const std::string old = staging + "/" + p.name + "-old-" + SuiteImportRandomHex(env_);
    if (Status mv = env_->RenameFile(out.dir, old); !mv.ok()) {
      (void)env_->RemoveAll(tmp);
      return mv.WithContext(out.id);
    }
    if (Status mv = env_->RenameFile(tmp, out.dir); !mv.ok()) {
      (void)env_->RenameFile(old, out.dir);  // put the old problem back
      (void)env_->RemoveAll(tmp);
      return mv.WithContext(out.id);
    }
    (void)env_->RemoveAll(old);
    out.replaced = true;
    return out;
  }
  if (Status mv = env_->RenameFile(tmp, out.dir); !mv.ok()) {
    (void)env_->RemoveAll(tmp);
    return mv.WithContext(out.id);
  }
  return out;
}

}  // namespace accelopt::daemon
