#include "evaluators/nki/roofline.hpp"

#include <cmath>

#include "evaluators/output_compare.hpp"

namespace accelopt::eval::nki {
namespace {

Status Field(const json& g, const std::string& where, const char* key, bool nullable, std::optional<double>* out) {
  auto it = g.find(key);
  if (it == g.end()) return InvalidArgument(where + "." + key + ": missing");
  if (it->is_null() && nullable) {
    out->reset();
    return Status::Ok();
  }
  if (!it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>())) {
    return InvalidArgument(where + "." + key + ": must be a positive number" + (nullable ? " or null" : ""));
  }
  *out = it->get<double>();
  return Status::Ok();
}

}  // namespace

Result<std::vector<Generation>> ParseGenerations(const json& j, const std::string& file) {
  if (!j.is_object() || !j.contains("generations") || !j["generations"].is_object() || j["generations"].empty()) {
    return InvalidArgument(file + ": must be {\"generations\": {name: {...}}}");
  }
  std::vector<Generation> out;
  for (const auto& [name, g] : j["generations"].items()) {
    const std::string where = file + ": generations." + name;
    if (!g.is_object()) return InvalidArgument(where + ": must be an object");
    Generation gen;
    gen.name = name;
    std::optional<double> v;
    ACCELOPT_RETURN_IF_ERROR(Field(g, where, "matmul_flops_per_s", false, &v));
    gen.matmul_flops_per_s = *v;
    ACCELOPT_RETURN_IF_ERROR(Field(g, where, "vector_flops_per_s", true, &gen.vector_flops_per_s));
    ACCELOPT_RETURN_IF_ERROR(Field(g, where, "hbm_bytes_per_s", false, &v));
    gen.hbm_bytes_per_s = *v;
    for (auto [key, dst] : {std::pair{"sbuf_bytes", &gen.sbuf_bytes}, {"psum_bytes", &gen.psum_bytes}}) {
      ACCELOPT_RETURN_IF_ERROR(Field(g, where, key, false, &v));
      *dst = static_cast<int64_t>(*v);
    }
    for (auto [key, dst] : {std::pair{"cores_per_chip", &gen.cores_per_chip}, {"partitions", &gen.partitions}}) {
      ACCELOPT_RETURN_IF_ERROR(Field(g, where, key, false, &v));
      *dst = static_cast<int>(*v);
    }
    if (g.contains("paper_vector_flops_per_s")) {
      ACCELOPT_RETURN_IF_ERROR(Field(g, where, "paper_vector_flops_per_s", true, &gen.paper_vector_flops_per_s));
    }
    // One cited line per figure.
    if (!g.contains("sources") || !g["sources"].is_object()) {
      return InvalidArgument(where + ".sources: every figure cites where it comes from");
    }
    for (const auto& [key, v] : g.items()) {
      if (key == "core" || key == "sources") continue;
      const auto it = g["sources"].find(key);
      if (it == g["sources"].end() || !it->is_string() || it->get<std::string>().empty()) {
        return InvalidArgument(where + ".sources." + key + ": every figure cites where it comes from");
      }
      gen.sources[key] = it->get<std::string>();
      gen.source += (gen.source.empty() ? "" : " | ") + key + ": " + it->get<std::string>();
    }
    gen.core = g.value("core", "");
    out.push_back(std::move(gen));
  }
  return out;
}

Result<Generation> FindGeneration(const std::string& name) {
  static const Result<std::vector<Generation>> kTable = []() -> Result<std::vector<Generation>> {
    auto j = ParseJson(TrainiumJson(), /*allow_comments=*/true);
    if (!j.ok()) return j.status().WithContext("evaluators/nki/trainium.json");
    return ParseGenerations(*j, "evaluators/nki/trainium.json");
  }();
  if (!kTable.ok()) return kTable.status();
  std::string known;
  for (const auto& g : *kTable) {
    if (g.name == name) return g;
    known += (known.empty() ? "" : ", ") + g.name;
  }
  return NotFound("unknown Trainium generation '" + name + "' (known: " + known + ")");
}

json GenerationFacts(const Generation& g) {
  return {{"generation", g.name},
          {"core", g.core},
          {"matmul_flops_per_s", g.matmul_flops_per_s},
          {"vector_flops_per_s", g.vector_flops_per_s ? json(*g.vector_flops_per_s) : json(nullptr)},
          {"hbm_bytes_per_s", g.hbm_bytes_per_s},
          {"sbuf_bytes", g.sbuf_bytes},
          {"psum_bytes", g.psum_bytes},
          {"partitions", g.partitions}};
}

Generation PerLogicalCore(const Generation& g, int lnc) {
  if (lnc <= 1) return g;
  Generation l = g;
  l.name = g.name + " (LNC=" + std::to_string(lnc) + ")";
  l.matmul_flops_per_s = g.matmul_flops_per_s * lnc;
  if (g.vector_flops_per_s) l.vector_flops_per_s = *g.vector_flops_per_s * lnc;
  l.hbm_bytes_per_s = g.hbm_bytes_per_s * lnc;
  return l;
}

Result<Roofline> ComputeRoofline(const workflows::ProblemSpec& problem, const Generation& gen) {
  const double mm = problem.matmul_flops.value_or(0.0);
  const double vec = problem.flops - mm;
  Roofline r;
  r.matmul_s = mm / gen.matmul_flops_per_s;
  if (vec > 0) {
    if (!gen.vector_flops_per_s) {
      return Status(Code::kFailedPrecondition, "no documented vector-engine peak for " + gen.name + " (" + gen.core +
                                                   ") in evaluators/nki/trainium.json: the roofline of '" +
                                                   problem.name +
                                                   "' (which has vector FLOPs) is not computed rather than guessed");
    }
    r.vector_s = vec / *gen.vector_flops_per_s;
  }
  r.memory_s = problem.bytes / gen.hbm_bytes_per_s;
  r.peak_s = r.matmul_s;
  r.limiter = "matmul";
  if (r.vector_s > r.peak_s) {
    r.peak_s = r.vector_s;
    r.limiter = "vector";
  }
  if (r.memory_s > r.peak_s) {
    r.peak_s = r.memory_s;
    r.limiter = "memory";
  }
  return r;
}

Result<double> PercentOfPeak(const Roofline& roof, double latency_s) {
  if (!(latency_s > 0) || !std::isfinite(latency_s)) {
    return InvalidArgument("latency " + compare::Num(latency_s) + " s is not a positive time");
  }
  if (latency_s < roof.peak_s) {
    return Status(Code::kFailedPrecondition,
                  "measured " + compare::Num(latency_s * 1e6) + " us is faster than the " + roof.limiter +
                      " roofline (" + compare::Num(roof.peak_s * 1e6) +
                      " us): the FLOP or byte counts, the constants or the measurement is wrong");
  }
  return 100.0 * roof.peak_s / latency_s;
}

std::string RooflineFigures(const Roofline& r, const Generation& g) {
  using compare::Num;
  std::string s = "matmul " + Num(r.matmul_s * 1e6) + " us, vector " + Num(r.vector_s * 1e6) + " us, memory " +
                  Num(r.memory_s * 1e6) + " us; peaks " + Num(g.matmul_flops_per_s / 1e12) + " TFLOP/s matmul, " +
                  (g.vector_flops_per_s ? Num(*g.vector_flops_per_s / 1e9) + " GFLOP/s vector, " : "") +
                  Num(g.hbm_bytes_per_s / 1e9) + " GB/s HBM (evaluators/nki/trainium.json)";
  return s;
}

}  // namespace accelopt::eval::nki
