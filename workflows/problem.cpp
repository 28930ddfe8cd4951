#include "workflows/problem.hpp"

#include "base/sha256.hpp"

namespace accelopt::workflows {

json ToJson(const ProblemInfo& p) {
  return {{"id", p.id},
          {"name", p.name},
          {"backend", p.backend},
          {"function", p.function},
          {"signature", p.signature},
          {"problem", p.problem},
          {"reference_sha256", p.reference_sha256},
          {"baseline_sha256", p.baseline_sha256}};
}

Result<ProblemInfo> ProblemInfo::FromJson(const json& j) {
  ProblemInfo p;
  ACCELOPT_RETURN_IF_ERROR(DecodeJsonFields("problem", [&] {
    p.id = j.at("id").get<std::string>();
    p.name = j.at("name").get<std::string>();
    p.backend = j.at("backend").get<std::string>();
    p.function = j.at("function").get<std::string>();
    p.signature = j.at("signature").get<std::string>();
    p.problem = j.at("problem");
    p.reference_sha256 = j.at("reference_sha256").get<std::string>();
    p.baseline_sha256 = j.at("baseline_sha256").get<std::string>();
  }));
  return p;
}

Result<std::string> CSignature(const json& problem) {
  ACCELOPT_ASSIGN_OR_RETURN(ProblemSpec spec, ParseProblemSpec(problem, "problem.json"));
  return spec.KernelSignature() + ";";
}

Result<ProblemInfo> DescribeProblem(const ProblemSource& source) {
  auto fail = [&](const std::string& what) { return InvalidArgument("problem '" + source.id + "': " + what); };
  if (source.id.empty()) return InvalidArgument("a problem has an empty id");
  if (source.baseline.empty()) return fail("baseline source is empty");
  if (source.reference.empty()) return fail("reference source is empty");
  auto spec = ParseProblemSpec(source.problem, "problem.json");
  if (!spec.ok()) return fail(spec.status().message());
  ProblemInfo info;
  info.id = source.id;
  info.name = spec->name;
  info.backend = spec->backend;
  info.function = spec->function;
  info.signature = spec->KernelSignature() + ";";
  info.problem = source.problem;
  info.reference_sha256 = Sha256Hex(source.reference);
  info.baseline_sha256 = Sha256Hex(source.baseline);
  return info;
}

}  // namespace accelopt::workflows
