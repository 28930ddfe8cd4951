#include "evaluators/nki/nkibench_import.hpp"

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "base/sha256.hpp"
#include "evaluators/nki/dim_expr.hpp"
#include "evaluators/nki/migrate.hpp"
#include "evaluators/nki/nkibench_catalog.hpp"
#include "evaluators/nki/nkibench_seed.hpp"
#include "evaluators/nki/static_check.hpp"
#include "workflows/problem_json.hpp"

namespace accelopt::eval::nki {
namespace fs = std::filesystem;
namespace {

Status CheckKeys(const json& obj, const std::string& where, const std::set<std::string>& allowed) {
  for (const auto& [k, v] : obj.items()) {
    if (allowed.count(k)) continue;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    return InvalidArgument(where + ": unknown key '" + k + "' (expected " + list + ")");
  }
  return Status::Ok();
}

// A path from summary.json, relative to the NKIBench folder: no absolute
// paths, nothing that climbs out.
Result<std::string> Resolve(const std::string& root, const json& v, const std::string& where) {
  if (!v.is_string() || v.get<std::string>().empty()) return InvalidArgument(where + ": must be a non-empty path");
  fs::path p(v.get<std::string>());
  if (p.is_absolute()) return InvalidArgument(where + ": '" + p.string() + "' must be relative to the NKIBench folder");
  for (const auto& part : p)
    if (part == "..") return InvalidArgument(where + ": '" + p.string() + "' climbs out of the NKIBench folder");
  return (fs::path(root) / p).lexically_normal().string();
}

bool DefinesFunction(const std::string& text, const std::string& fn) {
  const std::regex re("(^|\\n)def[ \\t]+" + fn + "[ \\t]*\\(");
  return std::regex_search(text, re);
}

// Module-level `NAME = INTEGER` lines of a reference module.
std::map<std::string, int64_t> ModuleConstants(const std::string& text) {
  static const std::regex re(R"((^|\n)([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*([0-9]+)[ \t]*(?=\r?\n|$))");
  std::map<std::string, int64_t> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    try {
      out[(*it)[2].str()] = std::stoll((*it)[3].str());
    } catch (...) {
    }
  }
  return out;
}

json ShapeJson(const std::vector<std::string>& exprs, const std::map<std::string, int64_t>& dims,
               const std::string& where, Status* st, int64_t* elements) {
  json shape = json::array();
  *elements = 1;
  for (const auto& e : exprs) {
    auto v = EvalDimExpr(e, dims);
    if (!v.ok()) {
      *st = v.status().WithContext(where);
      return shape;
    }
    if (*v <= 0) {
      *st = InvalidArgument(where + ": shape entry '" + e + "' is " + std::to_string(*v));
      return shape;
    }
    std::string name = e;
    name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
    if (IsPlainName(name))
      shape.push_back(name);
    else
      shape.push_back(*v);  // derived (B*H*N, D // 2): the value at these dims
    *elements *= *v;
  }
  return shape;
}

struct Built {
  std::string folder;
  json problem;
  std::string reference, kernel;
};

Result<Built> BuildOne(const std::string& root, const std::string& summary_file, const std::string& name,
                       const CatalogEntry& cat, const Seed& seed, const std::string& seed_path,
                       const std::string& case_key, const json& cs, bool several, Env* env) {
  const std::string where = summary_file + ": " + name + ".cases." + case_key;
  if (!cs.is_object()) return InvalidArgument(where + ": must be an object {values, impls}");
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(cs, where, {"values", "impls"}));
  if (!cs.contains("values") || !cs["values"].is_object())
    return InvalidArgument(where + ".values: missing or not an object");
  std::map<std::string, int64_t> dims;
  for (const auto& [k, v] : cs["values"].items()) {
    if (!v.is_number_integer() || v.get<int64_t>() <= 0) {
      return InvalidArgument(where + ".values." + k + ": must be a positive integer");
    }
    dims[k] = v.get<int64_t>();
  }
  for (const auto& p : seed.parameters)
    if (!dims.count(p))
      return InvalidArgument(where + ".values: no value for '" + p + "' (a parameter of " + seed_path + ")");
  for (const auto& [k, v] : dims)
    if (std::find(seed.parameters.begin(), seed.parameters.end(), k) == seed.parameters.end())
      return InvalidArgument(where + ".values." + k + ": not a parameter of " + seed_path);
  if (!cs.contains("impls") || !cs["impls"].is_array() || cs["impls"].empty()) {
    return InvalidArgument(where + ".impls: must be a non-empty array of {task, kernel}");
  }
  if (cs["impls"].size() != 1) {
    return InvalidArgument(where + ".impls: " + std::to_string(cs["impls"].size()) +
                           " entries; the importer takes exactly one {task, kernel} per case");
  }
  const json& impl = cs["impls"][0];
  if (!impl.is_object()) return InvalidArgument(where + ".impls[0]: must be an object {task, kernel}");
  ACCELOPT_RETURN_IF_ERROR(CheckKeys(impl, where + ".impls[0]", {"task", "kernel"}));
  if (!impl.contains("task") || !impl.contains("kernel"))
    return InvalidArgument(where + ".impls[0]: needs task and kernel");
  ACCELOPT_ASSIGN_OR_RETURN(std::string task_path, Resolve(root, impl["task"], where + ".impls[0].task"));
  ACCELOPT_ASSIGN_OR_RETURN(std::string kernel_path, Resolve(root, impl["kernel"], where + ".impls[0].kernel"));
  Built b;
  for (auto [path, out] : {std::pair{task_path, &b.reference}, {kernel_path, &b.kernel}}) {
    if (!env->IsFile(path)) return NotFound(path + ": no such file (named by " + where + ")");
    ACCELOPT_ASSIGN_OR_RETURN(*out, env->ReadFile(path));
  }
  for (const char* fn : {"get_inputs", "forward", "transform_to_nki_inputs", "transform_nki_outputs"}) {
    if (!DefinesFunction(b.reference, fn)) {
      return InvalidArgument(task_path + ": does not define " + std::string(fn) +
                             "() (a NKIBench reference module does)");
    }
  }
  for (const auto& [k, v] : ModuleConstants(b.reference)) {
    auto it = dims.find(k);
    if (it != dims.end() && it->second != v) {
      return InvalidArgument(task_path + ": sets " + k + " = " + std::to_string(v) + " but " + where + ".values." + k +
                             " is " + std::to_string(it->second));
    }
  }
  std::string function;
  if (DefinesFunction(b.kernel, "kernel"))
    function = "kernel";
  else if (DefinesFunction(b.kernel, "optimized_kernel"))
    function = "optimized_kernel";
  else
    return InvalidArgument(kernel_path + ": defines neither kernel() nor optimized_kernel()");

  json params = json::array();
  int64_t elements_total = 0;
  for (const auto& in : seed.inputs) {
    if (in.scalar) {
      params.push_back({{"name", in.name}, {"kind", "scalar"}, {"dtype", "float32"}, {"value", in.value}});
      continue;
    }
    Status st;
    int64_t n = 0;
    json shape = ShapeJson(in.shape, dims, seed_path + ": input '" + in.name + "'", &st, &n);
    ACCELOPT_RETURN_IF_ERROR(st);
    elements_total += n;
    params.push_back({{"name", in.name},
                      {"kind", "input"},
                      {"dtype", "float32"},
                      {"shape", shape},
                      {"distribution", in.distribution.ToJson()}});
  }
  for (const auto& out : cat.outputs) {
    Status st;
    int64_t n = 0;
    json shape = ShapeJson(out.shape, dims, "catalog entry '" + name + "': output '" + out.name + "'", &st, &n);
    ACCELOPT_RETURN_IF_ERROR(st);
    elements_total += n;
    params.push_back({{"name", out.name}, {"kind", "output"}, {"dtype", "float32"}, {"shape", shape}});
  }
  auto eval = [&](const std::string& formula, const char* what) -> Result<int64_t> {
    auto v = EvalDimExpr(formula, dims);
    if (!v.ok()) return v.status().WithContext("catalog entry '" + name + "': " + what);
    return v;
  };
  ACCELOPT_ASSIGN_OR_RETURN(int64_t mm, eval(cat.matmul_flops, "matmul FLOPs"));
  ACCELOPT_ASSIGN_OR_RETURN(int64_t vec, eval(cat.vector_flops, "vector FLOPs"));
  ACCELOPT_ASSIGN_OR_RETURN(int64_t bytes, eval(cat.bytes, "bytes"));
  if (bytes != 4 * elements_total) {
    return InvalidArgument("catalog entry '" + name + "': bytes formula gives " + std::to_string(bytes) +
                           " but the inputs of " + seed_path + " and the outputs hold " +
                           std::to_string(4 * elements_total) + " bytes (does the seed match the catalog?)");
  }
  std::string shape_text;
  for (const auto& p : seed.parameters) shape_text += (shape_text.empty() ? "" : " ") + p + std::to_string(dims[p]);
  std::string flops_formula = cat.vector_flops == "0"   ? cat.matmul_flops
                              : cat.matmul_flops == "0" ? cat.vector_flops
                                                        : cat.matmul_flops + " + " + cat.vector_flops;
  auto rel = [&](const std::string& p) { return fs::path(p).lexically_relative(root).string(); };
  json j = {
      {"name", name},
      {"backend", "nki"},
      {"description", cat.description},
      {"workload", "NKIBench " + name + " (" + shape_text + ")"},
      {"function", function},
      {"params", params},
      {"dims", dims},
      {"paper_dims", dims},
      {"paper_shape", shape_text},
      {"flops", static_cast<double>(mm + vec)},
      {"flops_formula", flops_formula},
      {"matmul_flops", static_cast<double>(mm)},
      {"matmul_flops_formula", cat.matmul_flops},
      {"bytes", static_cast<double>(bytes)},
      {"bytes_formula", cat.bytes},
      {"bound", cat.bound},
      {"tolerance", cat.tolerance},
      {"paper_baseline_pct_of_peak_trn1", cat.paper_baseline_pct_trn1},
      {"provenance",
       {{"source", "NKIBench (github.com/zhang677/AccelOpt), imported from a user's checkout"},
        {"summary", summary_file},
        {"case", case_key},
        {"seed", rel(seed_path)},
        {"task", rel(task_path)},
        {"kernel", rel(kernel_path)},
        {"reference_sha256", Sha256Hex(b.reference)},
        {"baseline_sha256", Sha256Hex(b.kernel)}}},
      {"notes",
       "Imported by accelopt-eval import nkibench. reference.py is NKIBench's numpy module (get_inputs, forward, "
       "transform_to_nki_inputs, transform_nki_outputs), run by the judge in a trusted process; baseline.py is its NKI "
       "kernel. Shapes written as integers are derived dims (" +
           std::string("e.g. B*H*N, D // 2) at these values. FLOPs and bytes from accelopt's catalog.") +
           (seed.comments.empty()
                ? ""
                : " Seed comments: " + seed.comments.substr(0, seed.comments.find_last_not_of("\n") + 1))},
  };
  auto adv = ParseJson(cat.adversarial);
  if (!adv.ok() || !adv->is_array()) return Internal("catalog entry '" + name + "': adversarial is not a JSON array");
  j["adversarial"] = *adv;
  b.folder = several ? name + "_" + case_key : name;
  b.problem = j;
  return b;
}

}  // namespace

Result<std::vector<ImportedProblem>> ImportNkiBench(const ImportOptions& o, Env* env) {
  if (!env->IsDirectory(o.nkibench_dir)) return NotFound(o.nkibench_dir + ": not a directory");
  const std::string summary_file = (fs::path(o.nkibench_dir) / "summary.json").string();
  if (!env->IsFile(summary_file)) return NotFound(summary_file + ": missing (is this an NKIBench folder?)");
  ACCELOPT_ASSIGN_OR_RETURN(json summary, ReadJsonFile(env, summary_file));
  if (!summary.is_object() || summary.empty()) {
    return InvalidArgument(summary_file + ": must be a non-empty object {problem: {seed, cases}}");
  }
  std::vector<Built> built;
  for (const auto& [name, entry] : summary.items()) {
    const std::string where = summary_file + ": " + name;
    if (!entry.is_object()) return InvalidArgument(where + ": must be an object {seed, cases}");
    ACCELOPT_RETURN_IF_ERROR(CheckKeys(entry, where, {"seed", "cases"}));
    const CatalogEntry* cat = FindCatalogEntry(name);
    if (!cat) {
      std::string known;
      for (const auto& e : Catalog()) known += (known.empty() ? "" : ", ") + e.name;
      return InvalidArgument(where + ": problem '" + name +
                             "' is not in accelopt's NKIBench catalog (evaluators/nki/nkibench_catalog.cpp: " + known +
                             "); its outputs and FLOP counts must be written there before it can be imported");
    }
    if (!entry.contains("seed")) return InvalidArgument(where + ".seed: missing");
    ACCELOPT_ASSIGN_OR_RETURN(std::string seed_path, Resolve(o.nkibench_dir, entry["seed"], where + ".seed"));
    if (!env->IsFile(seed_path)) return NotFound(seed_path + ": no such file (named by " + where + ".seed)");
    ACCELOPT_ASSIGN_OR_RETURN(std::string seed_text, env->ReadFile(seed_path));
    ACCELOPT_ASSIGN_OR_RETURN(Seed seed, ParseSeedYaml(seed_text, seed_path));
    if (seed.test_name != name) {
      return InvalidArgument(seed_path + ": test_name is '" + seed.test_name + "' but " + where + " names it");
    }
    if (!entry.contains("cases") || !entry["cases"].is_object() || entry["cases"].empty()) {
      return InvalidArgument(where + ".cases: must be a non-empty object {key: {values, impls}}");
    }
    const bool several = entry["cases"].size() > 1;
    for (const auto& [key, cs] : entry["cases"].items()) {
      ACCELOPT_ASSIGN_OR_RETURN(
          Built b, BuildOne(o.nkibench_dir, summary_file, name, *cat, seed, seed_path, key, cs, several, env));
      built.push_back(std::move(b));
    }
  }
  std::vector<ImportedProblem> out;
  for (const auto& b : built) {
    const std::string dir = (fs::path(o.out_dir) / b.folder).string();
    const std::string file = dir + "/problem.json";
    ACCELOPT_ASSIGN_OR_RETURN(workflows::ProblemSpec spec, workflows::ParseProblemSpec(b.problem, file));
    EvalBudget budget = EstimateBudget(spec);
    ACCELOPT_RETURN_IF_ERROR(CheckFitsHost(budget, summary_file + ": " + b.folder, o.host_memory_bytes));
    ImportedProblem ip{b.folder, dir, b.problem, budget, {}, ""};
    if (o.for_sdk == NkiPath::kNki && UsesNeuronxccNki(b.kernel)) {
      auto m = MigrateBeta1ToNki(b.kernel);
      if (!m.ok()) {
        ip.refused = "its neuronxcc.nki baseline cannot run on the nki package path: " + m.status().message();
      } else {
        ip.migration = m->rewrites;
      }
    } else if (o.for_sdk) {
      if (Status st = CheckKernelSource(b.kernel, *o.for_sdk); !st.ok()) {
        return InvalidArgument(
            summary_file + ": " + b.folder + ": its baseline cannot run on this SDK generation (" +
            (*o.for_sdk == NkiPath::kNki ? "nki package, Neuron 2.28+" : "neuronxcc.nki, Neuron <= 2.27") +
            "): " + st.message());
      }
    }
    if (ip.refused.empty() && !o.force && env->Exists(file)) {
      return Status(Code::kAlreadyExists, file + ": exists (pass --force to overwrite)");
    }
    out.push_back(std::move(ip));
  }
  if (o.dry_run) return out;
  for (size_t i = 0; i < built.size(); ++i) {
    if (!out[i].refused.empty()) continue;
    const std::string& dir = out[i].dir;
    ACCELOPT_RETURN_IF_ERROR(env->CreateDirs(dir));
    ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(dir + "/reference.py", built[i].reference));
    ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(dir + "/baseline.py", built[i].kernel));
    ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(dir + "/problem.json", Dump(built[i].problem, 2) + "\n"));
  }
  return out;
}

}  // namespace accelopt::eval::nki
