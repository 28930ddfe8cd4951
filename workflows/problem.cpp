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

ProblemInfo ProblemInfoFromJson(const json& j) {
  ProblemInfo p;
  p.id = j.at("id").get<std::string>();
  p.name = j.at("name").get<std::string>();
  p.backend = j.at("backend").get<std::string>();
  p.function = j.at("function").get<std::string>();
  p.signature = j.at("signature").get<std::string>();
  p.problem = j.at("problem");
  p.reference_sha256 = j.at("reference_sha256").get<std::string>();
  p.baseline_sha256 = j.at("baseline_sha256").get<std::string>();
  return p;
}

namespace {
Result<std::string> CType(const std::string& dtype) {
  if (dtype == "float32") return std::string("float");
  if (dtype == "float64") return std::string("double");
  if (dtype == "int32") return std::string("int32_t");
  if (dtype == "int64") return std::string("int64_t");
  return InvalidArgument("unknown dtype '" + dtype + "'");
}
}  // namespace

Result<std::string> CSignature(const json& problem) {
  if (!problem.is_object() || !problem.contains("function") || !problem["function"].is_string()) {
    return InvalidArgument("problem.json has no \"function\"");
  }
  if (!problem.contains("params") || !problem["params"].is_array()) {
    return InvalidArgument("problem.json has no \"params\" array");
  }
  std::string sig = "extern \"C\" void " + problem["function"].get<std::string>() + "(";
  bool first = true;
  for (const json& p : problem["params"]) {
    if (!p.is_object() || !p.contains("name") || !p.contains("kind")) {
      return InvalidArgument("a param in problem.json lacks \"name\" or \"kind\"");
    }
    const std::string name = p["name"].get<std::string>();
    const std::string kind = p["kind"].get<std::string>();
    std::string decl;
    if (kind == "dim") {
      decl = "int64_t " + name;
    } else {
      ACCELOPT_ASSIGN_OR_RETURN(std::string type, CType(p.value("dtype", "float32")));
      if (kind == "input") {
        decl = "const " + type + "* " + name;
      } else if (kind == "output") {
        decl = type + "* " + name;
      } else if (kind == "scalar") {
        decl = type + " " + name;
      } else {
        return InvalidArgument("param '" + name + "' has unknown kind '" + kind + "'");
      }
    }
    sig += (first ? "" : ", ") + decl;
    first = false;
  }
  return sig + ");";
}

Result<ProblemInfo> DescribeProblem(const ProblemSource& source) {
  auto fail = [&](const std::string& what) {
    return InvalidArgument("problem '" + source.id + "': " + what);
  };
  if (source.id.empty()) return InvalidArgument("a problem has an empty id");
  if (!source.problem.is_object()) return fail("problem.json is not an object");
  if (source.baseline.empty()) return fail("baseline source is empty");
  if (source.reference.empty()) return fail("reference source is empty");
  auto sig = CSignature(source.problem);
  if (!sig.ok()) return fail(sig.status().message());
  ProblemInfo info;
  info.id = source.id;
  info.name = source.problem.value("name", source.id);
  info.backend = source.problem.value("backend", "");
  if (info.backend.empty()) return fail("problem.json has no \"backend\"");
  info.function = source.problem["function"].get<std::string>();
  info.signature = *sig;
  info.problem = source.problem;
  info.reference_sha256 = Sha256Hex(source.reference);
  info.baseline_sha256 = Sha256Hex(source.baseline);
  return info;
}

}  // namespace accelopt::workflows
