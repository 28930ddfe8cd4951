#include "evaluators/problem.hpp"
#include "workflows/backend_traits.hpp"

#include <filesystem>

namespace accelopt::eval {
namespace fs = std::filesystem;

Result<Problem> ParseProblem(const json& j, const std::string& dir) {
  Problem p;
  ACCELOPT_ASSIGN_OR_RETURN(static_cast<workflows::ProblemSpec&>(p),
                            workflows::ParseProblemSpec(j, (fs::path(dir) / "problem.json").string()));
  p.dir = dir;
  p.reference_path = (fs::path(dir) / workflows::TraitsOf(p.backend).reference_file).string();
  p.baseline_path = (fs::path(dir) / workflows::TraitsOf(p.backend).baseline_file).string();
  return p;
}

Result<Problem> LoadProblem(const std::string& dir, Env* env) {
  const std::string file = (fs::path(dir) / "problem.json").string();
  if (!env->IsFile(file)) return NotFound(file + ": no such problem file");
  auto j = ReadJsonFile(env, file);
  if (!j.ok()) return j.status();
  ACCELOPT_ASSIGN_OR_RETURN(Problem p, ParseProblem(*j, dir));
  for (const auto& path : {p.reference_path, p.baseline_path}) {
    if (!env->IsFile(path)) {
      return NotFound(path + ": missing (every " + p.backend + " problem needs " +
                      workflows::TraitsOf(p.backend).reference_file + " and " +
                      workflows::TraitsOf(p.backend).baseline_file + ")");
    }
  }
  return p;
}

}  // namespace accelopt::eval
