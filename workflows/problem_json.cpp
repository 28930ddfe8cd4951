#include "workflows/problem_json.hpp"

#include "base/strict_json.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

namespace accelopt::workflows {
namespace {

bool IsIdentifier(const std::string& s) {
  static const std::regex kId("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, kId);
}

Status Err(const std::string& field, const std::string& msg) { return InvalidArgument(field + ": " + msg); }

// `prefix` is the object's field with its trailing '.' ("" at the top
// level); the message is the strict reader's (base/strict_json.hpp), the
// file added by ParseProblemSpec.
Status CheckKeys(const json& obj, const std::string& prefix, const std::vector<std::string>& allowed) {
  const std::string path = prefix.empty() || prefix.back() != '.' ? prefix : prefix.substr(0, prefix.size() - 1);
  return CheckKnownKeys(obj, JsonPlace{"", path}, allowed);
}

Status GetString(const json& obj, const std::string& key, const std::string& prefix, bool required, std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return required ? Err(prefix + key, "missing") : Status::Ok();
  if (!it->is_string()) return Err(prefix + key, "must be a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Status GetNumber(const json& obj, const std::string& key, const std::string& prefix, bool required, double* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return required ? Err(prefix + key, "missing") : Status::Ok();
  if (!it->is_number() || !std::isfinite(it->get<double>())) return Err(prefix + key, "must be a finite number");
  *out = it->get<double>();
  return Status::Ok();
}

Result<std::map<std::string, int64_t>> GetDims(const json& j, const std::string& field) {
  std::map<std::string, int64_t> dims;
  if (!j.is_object()) return Err(field, "must be an object of dim name -> positive integer");
  for (const auto& [k, v] : j.items()) {
    if (!v.is_number_integer() || v.get<int64_t>() <= 0) return Err(field + "." + k, "must be a positive integer");
    dims[k] = v.get<int64_t>();
  }
  return dims;
}

// The informative fields the evaluator ignores (docs/contracts.md): only
// their types are checked.
const std::vector<std::string> kInformativeStrings = {"paper_shape",   "scaling", "flops_formula",
                                                      "bytes_formula", "notes",   "matmul_flops_formula"};
const std::vector<std::string> kTopLevelKeys = {"name",
                                                "backend",
                                                "description",
                                                "workload",
                                                "function",
                                                "params",
                                                "dims",
                                                "paper_dims",
                                                "adversarial",
                                                "flops",
                                                "bytes",
                                                "bound",
                                                "tolerance",
                                                "paper_shape",
                                                "scaling",
                                                "flops_formula",
                                                "bytes_formula",
                                                "notes",
                                                "paper_baseline_pct_of_peak_trn1",
                                                "matmul_flops",
                                                "matmul_flops_formula",
                                                "provenance"};

Status ParseParam(const json& pj, const std::string& f, const std::map<std::string, int64_t>& dims, Param* out) {
  if (!pj.is_object()) return Err(f, "must be an object");
  Param& prm = *out;
  ACCELOPT_RETURN_IF_ERROR(GetString(pj, "name", f + ".", true, &prm.name));
  if (!IsIdentifier(prm.name)) return Err(f + ".name", "must be a C identifier");
  std::string kind;
  ACCELOPT_RETURN_IF_ERROR(GetString(pj, "kind", f + ".", true, &kind));
  if (kind == "input")
    prm.kind = ParamKind::kInput;
  else if (kind == "output")
    prm.kind = ParamKind::kOutput;
  else if (kind == "scalar")
    prm.kind = ParamKind::kScalar;
  else if (kind == "dim")
    prm.kind = ParamKind::kDim;
  else
    return Err(f + ".kind", "must be input, output, scalar or dim (got '" + kind + "')");

  if (prm.kind == ParamKind::kDim) {
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(pj, f + ".", {"name", "kind", "dtype"}));
    prm.dtype = "int64";
    ACCELOPT_RETURN_IF_ERROR(GetString(pj, "dtype", f + ".", false, &prm.dtype));
    if (prm.dtype != "int64") return Err(f + ".dtype", "a dim is int64 (got '" + prm.dtype + "')");
    if (!dims.count(prm.name)) return Err(f + ".name", "dim '" + prm.name + "' has no value in dims");
    return Status::Ok();
  }
  prm.dtype = "float32";
  ACCELOPT_RETURN_IF_ERROR(GetString(pj, "dtype", f + ".", false, &prm.dtype));
  if (prm.kind == ParamKind::kScalar) {
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(pj, f + ".", {"name", "kind", "dtype", "value"}));
    if (prm.dtype != "float32" && prm.dtype != "int64") return Err(f + ".dtype", "a scalar is float32 or int64");
    return GetNumber(pj, "value", f + ".", true, &prm.value);
  }
  if (prm.kind == ParamKind::kInput) {
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(pj, f + ".", {"name", "kind", "dtype", "shape", "distribution"}));
  } else {
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(pj, f + ".", {"name", "kind", "dtype", "shape"}));
  }
  if (prm.dtype != "float32") return Err(f + ".dtype", "arrays are float32 (got '" + prm.dtype + "')");
  if (!pj.contains("shape") || !pj["shape"].is_array() || pj["shape"].empty()) {
    return Err(f + ".shape", "must be a non-empty array of dim names");
  }
  prm.elements = 1;
  for (size_t k = 0; k < pj["shape"].size(); ++k) {
    const json& d = pj["shape"][k];
    const std::string sf = f + ".shape[" + std::to_string(k) + "]";
    int64_t n = 0;
    if (d.is_string()) {
      auto it = dims.find(d.get<std::string>());
      if (it == dims.end()) return Err(sf, "unknown dim '" + d.get<std::string>() + "'");
      n = it->second;
      prm.shape.push_back(d.get<std::string>());
    } else if (d.is_number_integer() && d.get<int64_t>() > 0) {
      n = d.get<int64_t>();
      prm.shape.push_back(std::to_string(n));
    } else {
      return Err(sf, "must be a dim name or a positive integer");
    }
    if (prm.elements > (int64_t{1} << 40) / n) return Err(f + ".shape", "too many elements");
    prm.elements *= n;
  }
  if (prm.kind == ParamKind::kInput) {
    if (!pj.contains("distribution")) return Err(f + ".distribution", "missing (inputs need one)");
    ACCELOPT_ASSIGN_OR_RETURN(prm.distribution, Distribution::FromJson(pj["distribution"], f + ".distribution"));
  }
  return Status::Ok();
}

Status ParseAdversarial(const json& list, ProblemSpec* p) {
  if (!list.is_array()) return Err("adversarial", "must be an array");
  for (size_t i = 0; i < list.size(); ++i) {
    const json& a = list[i];
    const std::string f = "adversarial[" + std::to_string(i) + "]";
    if (!a.is_object()) return Err(f, "must be an object {param, distribution}");
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(a, f + ".", {"case", "param", "distribution"}));
    std::string param, name;
    ACCELOPT_RETURN_IF_ERROR(GetString(a, "param", f + ".", true, &param));
    ACCELOPT_RETURN_IF_ERROR(GetString(a, "case", f + ".", false, &name));
    bool is_input = false;
    for (const auto& prm : p->params) is_input |= prm.name == param && prm.kind == ParamKind::kInput;
    if (!is_input) return Err(f + ".param", "'" + param + "' is not an input");
    if (!a.contains("distribution")) return Err(f + ".distribution", "missing");
    ACCELOPT_ASSIGN_OR_RETURN(Distribution d, Distribution::FromJson(a["distribution"], f + ".distribution"));
    AdversarialCase* target = nullptr;
    if (!name.empty())
      for (auto& c : p->adversarial)
        if (c.name == name) target = &c;
    if (!target) {
      p->adversarial.push_back(AdversarialCase{name, {}});
      target = &p->adversarial.back();
    }
    for (const auto& [prev, unused] : target->overrides)
      if (prev == param) return Err(f + ".param", "'" + param + "' appears twice in case '" + name + "'");
    target->overrides.emplace_back(param, d);
  }
  return Status::Ok();
}

Result<ProblemSpec> Parse(const json& j) {
  if (!j.is_object()) return Err("(top level)", "must be an object");
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(j, "", kTopLevelKeys));
  ProblemSpec p;
  for (auto [key, dst, required] : {std::tuple{"name", &p.name, true},
                                    {"backend", &p.backend, true},
                                    {"function", &p.function, true},
                                    {"description", &p.description, false},
                                    {"workload", &p.workload, false},
                                    {"bound", &p.bound, false}}) {
    ACCELOPT_RETURN_IF_ERROR(GetString(j, key, "", required, dst));
  }
  std::string informative;
  for (const auto& key : kInformativeStrings) ACCELOPT_RETURN_IF_ERROR(GetString(j, key, "", false, &informative));
  double pct = 0;
  ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "paper_baseline_pct_of_peak_trn1", "", false, &pct));
  if (p.backend.empty()) return Err("backend", "must not be empty");
  if (!IsIdentifier(p.function)) return Err("function", "must be a C identifier");
  ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "flops", "", true, &p.flops));
  ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "bytes", "", true, &p.bytes));
  if (p.flops < 0) return Err("flops", "must be >= 0");
  if (p.bytes <= 0) return Err("bytes", "must be > 0");
  if (j.contains("matmul_flops")) {
    double mm = 0;
    ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "matmul_flops", "", true, &mm));
    if (mm < 0 || mm > p.flops) return Err("matmul_flops", "must be in [0, flops]");
    p.matmul_flops = mm;
  }
  if (j.contains("provenance")) {
    const json& pv = j["provenance"];
    if (!pv.is_object()) return Err("provenance", "must be an object of strings");
    for (const auto& [k, v] : pv.items())
      if (!v.is_string()) return Err("provenance." + k, "must be a string");
  }
  ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "tolerance", "", false, &p.tolerance));
  if (p.tolerance <= 0 || p.tolerance >= 1) return Err("tolerance", "must be in (0, 1)");

  if (!j.contains("dims")) return Err("dims", "missing");
  ACCELOPT_ASSIGN_OR_RETURN(p.dims, GetDims(j["dims"], "dims"));
  if (j.contains("paper_dims")) {
    ACCELOPT_ASSIGN_OR_RETURN(p.paper_dims, GetDims(j["paper_dims"], "paper_dims"));
  }

  if (!j.contains("params") || !j["params"].is_array() || j["params"].empty()) {
    return Err("params", "must be a non-empty array");
  }
  std::set<std::string> names;
  bool has_output = false;
  for (size_t i = 0; i < j["params"].size(); ++i) {
    const std::string f = "params[" + std::to_string(i) + "]";
    Param prm;
    ACCELOPT_RETURN_IF_ERROR(ParseParam(j["params"][i], f, p.dims, &prm));
    if (!names.insert(prm.name).second) return Err(f + ".name", "duplicate name '" + prm.name + "'");
    has_output |= prm.kind == ParamKind::kOutput;
    p.params.push_back(prm);
  }
  if (!has_output) return Err("params", "needs at least one output");
  if (j.contains("adversarial")) ACCELOPT_RETURN_IF_ERROR(ParseAdversarial(j["adversarial"], &p));
  return p;
}

std::string Signature(const ProblemSpec& p, const std::string& fn, const char* real) {
  std::ostringstream os;
  os << "extern \"C\" void " << fn << "(";
  for (size_t i = 0; i < p.params.size(); ++i) {
    const Param& prm = p.params[i];
    if (i) os << ", ";
    switch (prm.kind) {
      case ParamKind::kInput:
        os << "const " << real << "* " << prm.name;
        break;
      case ParamKind::kOutput:
        os << real << "* " << prm.name;
        break;
      case ParamKind::kScalar:
        os << (prm.dtype == "int64" ? "int64_t" : real) << " " << prm.name;
        break;
      case ParamKind::kDim:
        os << "int64_t " << prm.name;
        break;
    }
  }
  os << ")";
  return os.str();
}

}  // namespace

Result<Distribution> Distribution::FromJson(const json& j, const std::string& field) {
  if (!j.is_object()) return Err(field, "must be an object with a \"kind\"");
  // Each kind's two fields (a, b) and their defaults; "constant" has one,
  // required.
  struct Kind {
    const char* kind;
    const char* a;
    double a0;
    const char* b;
    double b0;
  };
  static const Kind kKinds[] = {{"normal", "mean", 0, "std", 1},
                                {"uniform", "low", 0, "high", 1},
                                {"abs_normal", "std", 1, "offset", 0},
                                {"constant", "value", 0, nullptr, 1}};
  Distribution d;
  const std::string f = field + ".";
  ACCELOPT_RETURN_IF_ERROR(GetString(j, "kind", f, true, &d.kind));
  const Kind* k = nullptr;
  for (const Kind& c : kKinds)
    if (d.kind == c.kind) k = &c;
  if (!k) return Err(f + "kind", "unknown distribution '" + d.kind + "' (normal, uniform, abs_normal, constant)");
  std::vector<std::string> keys = {"kind", k->a};
  if (k->b) keys.push_back(k->b);
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(j, f, keys));
  d.a = k->a0;
  d.b = k->b0;
  ACCELOPT_RETURN_IF_ERROR(GetNumber(j, k->a, f, /*required=*/k->b == nullptr, &d.a));
  if (k->b) ACCELOPT_RETURN_IF_ERROR(GetNumber(j, k->b, f, false, &d.b));
  if (d.kind == "normal" && d.b < 0) return Err(f + "std", "must be >= 0");
  if (d.kind == "uniform" && d.b < d.a) return Err(f + "high", "must be >= low");
  if (d.kind == "abs_normal" && d.a < 0) return Err(f + "std", "must be >= 0");
  return d;
}

json Distribution::ToJson() const {
  if (kind == "normal") return {{"kind", kind}, {"mean", a}, {"std", b}};
  if (kind == "uniform") return {{"kind", kind}, {"low", a}, {"high", b}};
  if (kind == "abs_normal") return {{"kind", kind}, {"std", a}, {"offset", b}};
  return {{"kind", kind}, {"value", a}};
}

Result<ProblemSpec> ParseProblemSpec(const json& j, const std::string& file) {
  auto p = Parse(j);
  if (!p.ok()) return Status(p.status().code(), file + ": " + p.status().message());
  return p;
}

std::string ProblemSpec::KernelSignature() const { return Signature(*this, function, "float"); }
std::string ProblemSpec::ReferenceSignature() const { return Signature(*this, function + "_reference", "double"); }

int64_t ProblemSpec::FootprintBytes() const {
  int64_t total = 0;
  for (const auto& prm : params) total += prm.elements * 4;
  return total;
}

}  // namespace accelopt::workflows
