#include "evaluators/suites.hpp"
#include "workflows/backend_traits.hpp"

#include <filesystem>

namespace accelopt::eval {
namespace fs = std::filesystem;

Result<std::vector<std::string>> ListProblemDirs(const std::string& suite_dir, Env* env) {
  if (!env->IsDirectory(suite_dir)) return NotFound(suite_dir + ": not a directory");
  ACCELOPT_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDir(suite_dir));
  std::vector<std::string> out;
  for (const auto& n : names) {
    const std::string dir = (fs::path(suite_dir) / n).string();
    if (env->IsDirectory(dir) && env->IsFile(dir + "/problem.json")) out.push_back(dir);
  }
  return out;
}

std::string ProblemDirOf(const std::map<std::string, std::string>& suites, const std::string& problem_id) {
  fs::path p(problem_id);
  auto it = p.begin();
  if (it == p.end() || *it != "suites") return "";
  ++it;
  if (it == p.end()) return "";
  auto suite = suites.find(it->string());
  if (suite == suites.end()) return "";
  ++it;
  fs::path rest;
  for (; it != p.end(); ++it) {
    if (*it == "..") return "";
    rest /= *it;
  }
  if (rest.empty()) return "";
  return (fs::path(suite->second) / rest).string();
}

Result<workflows::ProblemSource> LoadProblemSource(const std::string& dir, const std::string& id, Env* env) {
  const std::string file = dir + "/problem.json";
  if (!env->Exists(file)) return NotFound("unknown problem '" + id + "': no " + file);
  workflows::ProblemSource src;
  src.id = id;
  ACCELOPT_ASSIGN_OR_RETURN(src.problem, ReadJsonFile(env, file));
  auto spec = workflows::ParseProblemSpec(src.problem, file);
  if (!spec.ok()) return spec.status().WithContext("problem '" + id + "'");
  auto ref = env->ReadFile(dir + "/" + workflows::TraitsOf(spec->backend).reference_file);
  if (!ref.ok()) return ref.status().WithContext(id);
  auto base = env->ReadFile(dir + "/" + workflows::TraitsOf(spec->backend).baseline_file);
  if (!base.ok()) return base.status().WithContext(id);
  src.reference = std::move(*ref);
  src.baseline = std::move(*base);
  return src;
}

Result<std::vector<SuiteProblem>> ListSuite(const std::string& suite, const std::string& dir, Env* env) {
  ACCELOPT_ASSIGN_OR_RETURN(std::vector<std::string> dirs, ListProblemDirs(dir, env));
  std::vector<SuiteProblem> out;
  for (const auto& d : dirs) {
    SuiteProblem p;
    p.name = fs::path(d).filename().string();
    p.id = "suites/" + suite + "/" + p.name;
    p.dir = d;
    const std::string file = d + "/problem.json";
    auto j = ReadJsonFile(env, file);
    auto spec = j.ok() ? workflows::ParseProblemSpec(*j, file) : Result<workflows::ProblemSpec>(j.status());
    if (spec.ok())
      p.spec = std::move(*spec);
    else
      p.error = spec.status();
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace accelopt::eval
