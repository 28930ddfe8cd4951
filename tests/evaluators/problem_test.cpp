#include <boost/test/unit_test.hpp>
#include <functional>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "evaluators/judge/cpp_rules.hpp"
#include "evaluators/problem.hpp"
#include "evaluators/suites.hpp"

using namespace accelopt;
using namespace accelopt::eval;

namespace {
const std::string kDir = std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/problems";

json Silu() {
  return *ParseJson(R"({"name": "silu", "backend": "cpu", "function": "silu",
    "params": [{"name": "x", "kind": "input", "shape": ["M", "N"], "distribution": {"kind": "normal"}},
               {"name": "out", "kind": "output", "shape": ["M", 4]},
               {"name": "eps", "kind": "scalar", "value": 1e-6},
               {"name": "M", "kind": "dim"}, {"name": "N", "kind": "dim"}],
    "dims": {"M": 8, "N": 4}, "flops": 10, "bytes": 256,
    "adversarial": [{"param": "x", "distribution": {"kind": "normal", "std": 100}},
                    {"case": "tiny", "param": "x", "distribution": {"kind": "uniform", "low": -1e-3, "high": 1e-3}}]})");
}

std::string ErrorOf(json j) {
  auto p = ParseProblem(j, "d");
  BOOST_REQUIRE(!p.ok());
  return p.status().message();
}
}  // namespace

BOOST_AUTO_TEST_SUITE(problem)

BOOST_AUTO_TEST_CASE(loads_the_test_problems) {
  auto dirs = ListProblemDirs(kDir, Env::Default());
  BOOST_REQUIRE(dirs.ok());
  BOOST_TEST(dirs->size() >= 3u);
  for (const auto& d : *dirs) {
    auto p = LoadProblem(d, Env::Default());
    BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
    BOOST_TEST(p->FootprintBytes() > 0);
  }
  auto mm = LoadProblem(kDir + "/matmul", Env::Default());
  BOOST_REQUIRE(mm.ok());
  BOOST_TEST(mm->KernelSignature() ==
             "extern \"C\" void matmul(const float* A, const float* B, float* out, int64_t M, int64_t K, int64_t N)");
  BOOST_TEST(mm->ReferenceSignature().find("matmul_reference(const double* A") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(parses_shapes_scalars_and_grouped_adversarial_cases) {
  auto p = ParseProblem(Silu(), "d");
  BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
  BOOST_TEST(p->params[0].elements == 32);
  BOOST_TEST(p->params[1].elements == 32);  // ["M", 4]: a literal
  BOOST_TEST(p->params[2].value == 1e-6);
  BOOST_TEST(p->adversarial.size() == 2u);
  BOOST_TEST(p->adversarial[1].name == "tiny");
  json j = Silu();
  j["adversarial"].push_back({{"case", "tiny"}, {"param", "x"}, {"distribution", {{"kind", "normal"}}}});
  BOOST_TEST(ErrorOf(j).find("appears twice") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(validation_errors_name_file_and_field) {
  json j = Silu();
  j["params"][1]["shape"][0] = "Q";
  std::string e = ErrorOf(j);
  BOOST_TEST(e.find("problem.json") != std::string::npos);
  BOOST_TEST(e.find("params[1].shape[0]: unknown dim 'Q'") != std::string::npos);

  j = Silu();
  j.erase("flops");
  BOOST_TEST(ErrorOf(j).find("flops: missing") != std::string::npos);
  j = Silu();
  j["params"][0]["distribution"]["kind"] = "cauchy";
  BOOST_TEST(ErrorOf(j).find("params[0].distribution.kind") != std::string::npos);
  j = Silu();
  j["params"][0].erase("distribution");
  BOOST_TEST(ErrorOf(j).find("params[0].distribution") != std::string::npos);
  j = Silu();
  j["function"] = "not a name";
  BOOST_TEST(ErrorOf(j).find("function") != std::string::npos);
  j = Silu();
  j["adversarial"][0]["param"] = "out";
  BOOST_TEST(ErrorOf(j).find("adversarial[0].param") != std::string::npos);
  j = Silu();
  j["params"][1]["kind"] = "input";
  j["params"][1]["distribution"] = {{"kind", "normal"}};
  BOOST_TEST(ErrorOf(j).find("at least one output") != std::string::npos);
  j = Silu();
  j["dims"]["M"] = 0;
  BOOST_TEST(ErrorOf(j).find("dims.M") != std::string::npos);
  BOOST_TEST(!LoadProblem(kDir + "/no-such-problem", Env::Default()).ok());
}

// One set of rules (workflows/problem_json.hpp): unknown keys and values of
// the wrong type are errors naming the field, wherever they are.
BOOST_AUTO_TEST_CASE(unknown_keys_and_wrong_types_are_refused_naming_the_field) {
  auto refused = [](const std::function<void(json&)>& change, const std::string& field) {
    json j = Silu();
    change(j);
    const std::string e = ErrorOf(j);
    BOOST_TEST(e.find("d/problem.json: " + field) == 0, e);
  };
  refused([](json& j) { j["colour"] = "blue"; }, "unknown key `colour`");
  refused([](json& j) { j["params"][0]["colur"] = 1; }, "params[0]: unknown key `colur`");
  refused(
      [](json& j) {
        j["params"][1]["distribution"] = {{"kind", "normal"}};
      },
      "params[1]: unknown key `distribution`");
  refused([](json& j) { j["params"][3]["shape"] = {"M"}; }, "params[3]: unknown key `shape`");
  refused([](json& j) { j["params"][3]["dtype"] = "float32"; }, "params[3].dtype: a dim is int64");
  refused([](json& j) { j["params"][0]["distribution"]["sigma"] = 2; }, "params[0].distribution: unknown key `sigma`");
  refused([](json& j) { j["adversarial"][0]["weight"] = 2; }, "adversarial[0]: unknown key `weight`");
  refused([](json& j) { j["notes"] = 3; }, "notes: must be a string");
  refused([](json& j) { j["paper_baseline_pct_of_peak_trn1"] = "high"; },
          "paper_baseline_pct_of_peak_trn1: must be a finite number");
  refused([](json& j) { j["name"] = 7; }, "name: must be a string");
  refused([](json& j) { j["backend"] = ""; }, "backend: must not be empty");
  refused([](json& j) { j["tolerance"] = "2e-5"; }, "tolerance: must be a finite number");
  refused([](json& j) { j["params"][0]["dtype"] = "float64"; }, "params[0].dtype: arrays are float32");
  // The informative fields of docs/contracts.md are accepted.
  json j = Silu();
  j["paper_shape"] = "M=4096, N=7168";
  j["scaling"] = "linear";
  j["flops_formula"] = "M*N*5";
  j["bytes_formula"] = "2*4*M*N";
  j["notes"] = "a note";
  j["paper_baseline_pct_of_peak_trn1"] = 12.5;
  j["params"][3]["dtype"] = "int64";
  auto p = ParseProblem(j, "d");
  BOOST_TEST(p.ok(), p.status().ToString());
}

// suites/cpu-hard is suites/cpu at other shapes with other baselines: the
// same kernels (function, parameters, tolerance, adversarial cases), the
// same trusted reference byte for byte, and baselines the static check
// accepts. Reads files only (the suite's baselines take minutes to judge:
// accelopt-eval baseline suites/cpu-hard).
BOOST_AUTO_TEST_CASE(cpu_hard_is_the_cpu_suite_with_its_references) {
  namespace fs = std::filesystem;
  const std::string src = ACCELOPT_SOURCE_DIR;
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream t;
    t << in.rdbuf();
    return t.str();
  };
  auto hard = ListProblemDirs(src + "/suites/cpu-hard", Env::Default());
  auto cpu = ListProblemDirs(src + "/suites/cpu", Env::Default());
  BOOST_REQUIRE(hard.ok());
  BOOST_REQUIRE(cpu.ok());
  std::set<std::string> hard_names, cpu_names;
  for (const auto& d : *cpu) cpu_names.insert(fs::path(d).filename().string());
  for (const auto& d : *hard) {
    const std::string name = fs::path(d).filename().string();
    hard_names.insert(name);
    BOOST_TEST_CONTEXT(name) {
      auto h = LoadProblem(d, Env::Default());
      auto c = LoadProblem(src + "/suites/cpu/" + name, Env::Default());
      BOOST_REQUIRE_MESSAGE(h.ok(), h.status().ToString());
      BOOST_REQUIRE_MESSAGE(c.ok(), c.status().ToString());
      BOOST_TEST(h->name == name);
      BOOST_TEST(h->KernelSignature() == c->KernelSignature());
      BOOST_TEST(h->tolerance == c->tolerance);
      BOOST_REQUIRE(h->params.size() == c->params.size());
      for (size_t i = 0; i < h->params.size(); ++i) {
        BOOST_TEST(h->params[i].shape == c->params[i].shape, h->params[i].name);
        BOOST_TEST(h->params[i].value == c->params[i].value, h->params[i].name);
      }
      BOOST_TEST(h->adversarial.size() == c->adversarial.size());
      BOOST_TEST(read(h->reference_path) == read(c->reference_path), "the trusted reference is suites/cpu's");
      const auto check = judge::CheckSource(read(h->baseline_path));
      BOOST_TEST(check.ok(), check.ToString());
    }
  }
  BOOST_TEST(hard_names == cpu_names);
}

BOOST_AUTO_TEST_SUITE_END()
