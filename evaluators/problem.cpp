#include "evaluators/problem.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

namespace accelopt::eval {
namespace fs = std::filesystem;
namespace {

bool IsIdentifier(const std::string& s) {
  static const std::regex kId("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, kId);
}

Status Err(const std::string& field, const std::string& msg) { return InvalidArgument(field + ": " + msg); }

Status GetString(const json& obj, const std::string& key, const std::string& field, bool required,
                 std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return required ? Err(field + key, "missing") : Status::Ok();
  if (!it->is_string()) return Err(field + key, "must be a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Status GetNumber(const json& obj, const std::string& key, const std::string& field, bool required,
                 double* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return required ? Err(field + key, "missing") : Status::Ok();
  if (!it->is_number() || !std::isfinite(it->get<double>())) return Err(field + key, "must be a finite number");
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

}  // namespace

Result<Distribution> Distribution::FromJson(const json& j, const std::string& field) {
  if (!j.is_object()) return Err(field, "must be an object with a \"kind\"");
  Distribution d;
  ACCELOPT_RETURN_IF_ERROR(GetString(j, "kind", field + ".", true, &d.kind));
  std::string f = field + ".";
  if (d.kind == "normal") {
    d.a = 0; d.b = 1;
    ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "mean", f, false, &d.a));
    ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "std", f, false, &d.b));
    if (d.b < 0) return Err(f + "std", "must be >= 0");
  } else if (d.kind == "uniform") {
    d.a = 0; d.b = 1;
    ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "low", f, false, &d.a));
    ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "high", f, false, &d.b));
    if (d.b < d.a) return Err(f + "high", "must be >= low");
  } else if (d.kind == "abs_normal") {
    d.a = 1; d.b = 0;
    ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "std", f, false, &d.a));
    ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "offset", f, false, &d.b));
    if (d.a < 0) return Err(f + "std", "must be >= 0");
  } else if (d.kind == "constant") {
    ACCELOPT_RETURN_IF_ERROR(GetNumber(j, "value", f, true, &d.a));
  } else {
    return Err(f + "kind", "unknown distribution '" + d.kind + "' (normal, uniform, abs_normal, constant)");
  }
  return d;
}

json Distribution::ToJson() const {
  if (kind == "normal") return {{"kind", kind}, {"mean", a}, {"std", b}};
  if (kind == "uniform") return {{"kind", kind}, {"low", a}, {"high", b}};
  if (kind == "abs_normal") return {{"kind", kind}, {"std", a}, {"offset", b}};
  return {{"kind", kind}, {"value", a}};
}

Result<Problem> ParseProblem(const json& j, const std::string& dir) {
  const std::string file = (fs::path(dir) / "problem.json").string();
  auto fail = [&](const Status& s) { return Status(s.code(), file + ": " + s.message()); };
  if (!j.is_object()) return fail(Err("(top level)", "must be an object"));
  Problem p;
  p.dir = dir;
  std::string tmp;
  for (auto [key, dst, required] :
       {std::tuple{"name", &p.name, true}, {"backend", &p.backend, true}, {"function", &p.function, true},
        {"description", &p.description, false}, {"workload", &p.workload, false}, {"bound", &p.bound, false}}) {
    Status s = GetString(j, key, "", required, dst);
    if (!s.ok()) return fail(s);
  }
  if (!IsIdentifier(p.function)) return fail(Err("function", "must be a C identifier"));
  if (Status s = GetNumber(j, "flops", "", true, &p.flops); !s.ok()) return fail(s);
  if (Status s = GetNumber(j, "bytes", "", true, &p.bytes); !s.ok()) return fail(s);
  if (p.flops < 0) return fail(Err("flops", "must be >= 0"));
  if (p.bytes <= 0) return fail(Err("bytes", "must be > 0"));
  if (Status s = GetNumber(j, "tolerance", "", false, &p.tolerance); !s.ok()) return fail(s);
  if (p.tolerance <= 0 || p.tolerance >= 1) return fail(Err("tolerance", "must be in (0, 1)"));

  if (!j.contains("dims")) return fail(Err("dims", "missing"));
  auto dims = GetDims(j["dims"], "dims");
  if (!dims.ok()) return fail(dims.status());
  p.dims = *dims;
  if (j.contains("paper_dims")) {
    auto pd = GetDims(j["paper_dims"], "paper_dims");
    if (!pd.ok()) return fail(pd.status());
    p.paper_dims = *pd;
  }

  if (!j.contains("params") || !j["params"].is_array() || j["params"].empty()) {
    return fail(Err("params", "must be a non-empty array"));
  }
  std::set<std::string> names;
  bool has_output = false;
  for (size_t i = 0; i < j["params"].size(); ++i) {
    const json& pj = j["params"][i];
    const std::string f = "params[" + std::to_string(i) + "]";
    if (!pj.is_object()) return fail(Err(f, "must be an object"));
    Param prm;
    if (Status s = GetString(pj, "name", f + ".", true, &prm.name); !s.ok()) return fail(s);
    if (!IsIdentifier(prm.name)) return fail(Err(f + ".name", "must be a C identifier"));
    if (!names.insert(prm.name).second) return fail(Err(f + ".name", "duplicate name '" + prm.name + "'"));
    std::string kind;
    if (Status s = GetString(pj, "kind", f + ".", true, &kind); !s.ok()) return fail(s);
    if (kind == "input") prm.kind = ParamKind::kInput;
    else if (kind == "output") prm.kind = ParamKind::kOutput;
    else if (kind == "scalar") prm.kind = ParamKind::kScalar;
    else if (kind == "dim") prm.kind = ParamKind::kDim;
    else return fail(Err(f + ".kind", "must be input, output, scalar or dim (got '" + kind + "')"));

    if (prm.kind == ParamKind::kDim) {
      prm.dtype = "int64";
      if (!p.dims.count(prm.name)) return fail(Err(f + ".name", "dim '" + prm.name + "' has no value in dims"));
      p.params.push_back(prm);
      continue;
    }
    prm.dtype = "float32";
    if (Status s = GetString(pj, "dtype", f + ".", false, &prm.dtype); !s.ok()) return fail(s);
    if (prm.kind == ParamKind::kScalar) {
      if (prm.dtype != "float32" && prm.dtype != "int64") return fail(Err(f + ".dtype", "a scalar is float32 or int64"));
      if (Status s = GetNumber(pj, "value", f + ".", true, &prm.value); !s.ok()) return fail(s);
      p.params.push_back(prm);
      continue;
    }
    if (prm.dtype != "float32") return fail(Err(f + ".dtype", "arrays are float32 (got '" + prm.dtype + "')"));
    if (!pj.contains("shape") || !pj["shape"].is_array() || pj["shape"].empty()) {
      return fail(Err(f + ".shape", "must be a non-empty array of dim names"));
    }
    prm.elements = 1;
    for (size_t k = 0; k < pj["shape"].size(); ++k) {
      const json& d = pj["shape"][k];
      const std::string sf = f + ".shape[" + std::to_string(k) + "]";
      int64_t n = 0;
      if (d.is_string()) {
        auto it = p.dims.find(d.get<std::string>());
        if (it == p.dims.end()) return fail(Err(sf, "unknown dim '" + d.get<std::string>() + "'"));
        n = it->second;
        prm.shape.push_back(d.get<std::string>());
      } else if (d.is_number_integer() && d.get<int64_t>() > 0) {
        n = d.get<int64_t>();
        prm.shape.push_back(std::to_string(n));
      } else {
        return fail(Err(sf, "must be a dim name or a positive integer"));
      }
      if (prm.elements > (int64_t{1} << 40) / n) return fail(Err(f + ".shape", "too many elements"));
      prm.elements *= n;
    }
    if (prm.kind == ParamKind::kInput) {
      if (!pj.contains("distribution")) return fail(Err(f + ".distribution", "missing (inputs need one)"));
      auto d = Distribution::FromJson(pj["distribution"], f + ".distribution");
      if (!d.ok()) return fail(d.status());
      prm.distribution = *d;
    } else {
      has_output = true;
    }
    p.params.push_back(prm);
  }
  if (!has_output) return fail(Err("params", "needs at least one output"));

  if (j.contains("adversarial")) {
    if (!j["adversarial"].is_array()) return fail(Err("adversarial", "must be an array"));
    for (size_t i = 0; i < j["adversarial"].size(); ++i) {
      const json& a = j["adversarial"][i];
      const std::string f = "adversarial[" + std::to_string(i) + "]";
      if (!a.is_object()) return fail(Err(f, "must be an object {param, distribution}"));
      std::string param, name;
      if (Status s = GetString(a, "param", f + ".", true, &param); !s.ok()) return fail(s);
      if (Status s = GetString(a, "case", f + ".", false, &name); !s.ok()) return fail(s);
      bool is_input = false;
      for (const auto& prm : p.params) is_input |= prm.name == param && prm.kind == ParamKind::kInput;
      if (!is_input) return fail(Err(f + ".param", "'" + param + "' is not an input"));
      if (!a.contains("distribution")) return fail(Err(f + ".distribution", "missing"));
      auto d = Distribution::FromJson(a["distribution"], f + ".distribution");
      if (!d.ok()) return fail(d.status());
      AdversarialCase* target = nullptr;
      if (!name.empty())
        for (auto& c : p.adversarial) if (c.name == name) target = &c;
      if (!target) {
        p.adversarial.push_back(AdversarialCase{name, {}});
        target = &p.adversarial.back();
      }
      for (const auto& [prev, unused] : target->overrides)
        if (prev == param) return fail(Err(f + ".param", "'" + param + "' appears twice in case '" + name + "'"));
      target->overrides.emplace_back(param, *d);
    }
  }
  p.reference_path = (fs::path(dir) / "reference.cpp").string();
  p.baseline_path = (fs::path(dir) / "baseline.cpp").string();
  return p;
}

Result<Problem> LoadProblem(const std::string& dir) {
  fs::path file = fs::path(dir) / "problem.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return NotFound(file.string() + ": no such problem file");
  auto j = ReadJsonFile(file.string());
  if (!j.ok()) return InvalidArgument(file.string() + ": " + j.status().message());
  ACCELOPT_ASSIGN_OR_RETURN(Problem p, ParseProblem(*j, dir));
  for (const auto& path : {p.reference_path, p.baseline_path}) {
    if (!fs::is_regular_file(path, ec)) return NotFound(path + ": missing (every problem needs reference.cpp and baseline.cpp)");
  }
  return p;
}

Result<std::vector<std::string>> ListProblemDirs(const std::string& suite_dir) {
  std::error_code ec;
  if (!fs::is_directory(suite_dir, ec)) return NotFound(suite_dir + ": not a directory");
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(suite_dir, ec)) {
    if (e.is_directory() && fs::is_regular_file(e.path() / "problem.json")) out.push_back(e.path().string());
  }
  if (ec) return IOError(suite_dir + ": " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
std::string Signature(const Problem& p, const std::string& fn, const char* real) {
  std::ostringstream os;
  os << "extern \"C\" void " << fn << "(";
  for (size_t i = 0; i < p.params.size(); ++i) {
    const Param& prm = p.params[i];
    if (i) os << ", ";
    switch (prm.kind) {
      case ParamKind::kInput: os << "const " << real << "* " << prm.name; break;
      case ParamKind::kOutput: os << real << "* " << prm.name; break;
      case ParamKind::kScalar: os << (prm.dtype == "int64" ? "int64_t" : real) << " " << prm.name; break;
      case ParamKind::kDim: os << "int64_t " << prm.name; break;
    }
  }
  os << ")";
  return os.str();
}
}  // namespace

std::string Problem::KernelSignature() const { return Signature(*this, function, "float"); }
std::string Problem::ReferenceSignature() const { return Signature(*this, function + "_reference", "double"); }

int64_t Problem::FootprintBytes() const {
  int64_t total = 0;
  for (const auto& prm : params) total += prm.elements * 4;
  return total;
}

}  // namespace accelopt::eval
