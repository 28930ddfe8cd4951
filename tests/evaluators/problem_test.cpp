#include <boost/test/unit_test.hpp>

#include "evaluators/problem.hpp"

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
  auto dirs = ListProblemDirs(kDir);
  BOOST_REQUIRE(dirs.ok());
  BOOST_TEST(dirs->size() >= 3u);
  for (const auto& d : *dirs) {
    auto p = LoadProblem(d);
    BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
    BOOST_TEST(p->FootprintBytes() > 0);
  }
  auto mm = LoadProblem(kDir + "/matmul");
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

  j = Silu(); j.erase("flops");
  BOOST_TEST(ErrorOf(j).find("flops: missing") != std::string::npos);
  j = Silu(); j["params"][0]["distribution"]["kind"] = "cauchy";
  BOOST_TEST(ErrorOf(j).find("params[0].distribution.kind") != std::string::npos);
  j = Silu(); j["params"][0].erase("distribution");
  BOOST_TEST(ErrorOf(j).find("params[0].distribution") != std::string::npos);
  j = Silu(); j["function"] = "not a name";
  BOOST_TEST(ErrorOf(j).find("function") != std::string::npos);
  j = Silu(); j["adversarial"][0]["param"] = "out";
  BOOST_TEST(ErrorOf(j).find("adversarial[0].param") != std::string::npos);
  j = Silu(); j["params"][1]["kind"] = "input"; j["params"][1]["distribution"] = {{"kind", "normal"}};
  BOOST_TEST(ErrorOf(j).find("at least one output") != std::string::npos);
  j = Silu(); j["dims"]["M"] = 0;
  BOOST_TEST(ErrorOf(j).find("dims.M") != std::string::npos);
  BOOST_TEST(!LoadProblem(kDir + "/no-such-problem").ok());
}

BOOST_AUTO_TEST_SUITE_END()
