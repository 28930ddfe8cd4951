// Spec parsing and validation, and StartCampaign's checks: bad input is a
// clear error before anything runs.
#include <boost/test/unit_test.hpp>

#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

json GoodSpecJson() {
  json role = {{"provider", "openai"}, {"model", "gpt-test"}};
  return {{"suite", "suites/cpu"},
          {"problems", {"silu", "suites/cpu/gelu"}},
          {"roles", {{"planner", role}, {"executor", role}, {"summarizer", role}}}};
}

// The error message of parsing + validating `j` ("" when fine).
std::string ErrorOf(const json& j, const ModelCheck& check = {}) {
  auto spec = ParseCampaignSpec(j);
  if (!spec.ok()) return spec.status().message();
  Status st = Validate(*spec, check);
  return st.ok() ? "" : st.message();
}

BOOST_AUTO_TEST_CASE(defaults_are_the_papers) {
  auto spec = ParseCampaignSpec(GoodSpecJson());
  BOOST_REQUIRE(spec.ok());
  BOOST_TEST(spec->mode == "default");  // a spec that names no mode
  BOOST_TEST(FixAttempts(*spec) == 1);
  BOOST_TEST(spec->search.T == 16);
  BOOST_TEST(spec->search.B == 6);
  BOOST_TEST(spec->search.N == 12);
  BOOST_TEST(spec->search.K == 2);
  BOOST_TEST(spec->search.TopK == 8);
  BOOST_TEST(spec->search.ExpN == 16);
  BOOST_TEST(spec->search.positive_threshold == 1.04);
  BOOST_TEST(spec->search.negative_threshold == 1.15);
  BOOST_TEST(spec->problems == (std::vector<std::string>{"suites/cpu/silu", "suites/cpu/gelu"}));
  BOOST_TEST(Validate(*spec).ok());
  // Round trip through the recorded form.
  auto again = ParseCampaignSpec(ToJson(*spec));
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(ToJson(*again) == ToJson(*spec));
}

BOOST_AUTO_TEST_CASE(modes_and_fix_attempts) {
  json j = GoodSpecJson();
  j["mode"] = "paper";
  auto paper = ParseCampaignSpec(j);
  BOOST_REQUIRE(paper.ok());
  BOOST_TEST(Validate(*paper).ok());
  BOOST_TEST(FixAttempts(*paper) == 0);
  BOOST_TEST(ToJson(*paper)["search"]["fix_attempts"] == 0);
  j["search"]["fix_attempts"] = 3;
  auto fixed = ParseCampaignSpec(j);
  BOOST_REQUIRE(fixed.ok());
  BOOST_TEST(FixAttempts(*fixed) == 0);  // the published loop has no fixer, whatever the spec says
  j["mode"] = "default";
  BOOST_TEST(FixAttempts(*ParseCampaignSpec(j)) == 3);
  j["mode"] = "paper";
  j["mode"] = "default";
  j["search"]["fix_attempts"] = 0;
  auto none = ParseCampaignSpec(j);
  BOOST_REQUIRE(none.ok());
  BOOST_TEST(FixAttempts(*none) == 0);  // explicit 0 wins over the mode's 1
  j["search"]["fix_attempts"] = -1;
  BOOST_TEST(Mentions(ErrorOf(j), "search.fix_attempts must be >= 0"));
  j["search"]["fix_attempts"] = 1.5;
  BOOST_TEST(Mentions(ErrorOf(j), "'search.fix_attempts' must be an integer"));
}

BOOST_AUTO_TEST_CASE(zero_negative_and_malformed_parameters_are_named) {
  for (const char* key : {"T", "B", "N", "K", "TopK", "ExpN"}) {
    for (int v : {0, -3}) {
      json j = GoodSpecJson();
      j["search"][key] = v;
      BOOST_TEST(Mentions(ErrorOf(j), std::string("search.") + key));
    }
  }
  json j = GoodSpecJson();
  j["search"] = {{"TopK", 20}, {"ExpN", 16}};
  BOOST_TEST(Mentions(ErrorOf(j), "TopK"));
  j = GoodSpecJson();
  j["search"] = {{"positive_threshold", 0.9}};
  BOOST_TEST(Mentions(ErrorOf(j), "positive_threshold"));
  j = GoodSpecJson();
  j["search"] = {{"T", "three"}};
  BOOST_TEST(Mentions(ErrorOf(j), "'search.T' must be an integer"));
  j = GoodSpecJson();
  j["search"] = {{"T", 4294967297LL}};  // would wrap to 1
  BOOST_TEST(Mentions(ErrorOf(j), "'search.T' is out of range"));
  j = GoodSpecJson();
  j["search"] = {{"topk", 4}};  // typo: not silently ignored
  BOOST_TEST(Mentions(ErrorOf(j), "search: unknown key `topk` (did you mean `TopK`?)"));
  j = GoodSpecJson();
  j["roles"]["executor"]["max_tokens"] = 0;
  BOOST_TEST(Mentions(ErrorOf(j), "roles.executor.max_tokens"));
  j = GoodSpecJson();
  j["roles"]["planner"]["temperature"] = -1;
  BOOST_TEST(Mentions(ErrorOf(j), "roles.planner.temperature"));
  j = GoodSpecJson();
  j["seed"] = -1;
  BOOST_TEST(Mentions(ErrorOf(j), "seed"));
  for (const char* cap : {"max_cost_usd", "max_tokens", "max_llm_calls", "max_evaluations", "max_wall_s"}) {
    j = GoodSpecJson();
    j["budget"][cap] = 0;
    if (std::string(cap) == "max_cost_usd") {
      for (const char* r : {"planner", "executor", "summarizer"}) {
        j["roles"][r]["pricing"] = {{"input_usd_per_mtok", 1}, {"output_usd_per_mtok", 1}};
      }
    }
    BOOST_TEST(Mentions(ErrorOf(j), std::string("budget.") + cap));
    j["budget"][cap] = -5;
    BOOST_TEST(Mentions(ErrorOf(j), std::string("budget.") + cap));
  }
}

BOOST_AUTO_TEST_CASE(roles_modes_and_problems_are_checked) {
  json j = GoodSpecJson();
  j["roles"]["reviewer"] = j["roles"]["planner"];
  BOOST_TEST(Mentions(ErrorOf(j), "unknown role 'reviewer'"));
  j = GoodSpecJson();
  j["roles"].erase("summarizer");
  BOOST_TEST(Mentions(ErrorOf(j), "role 'summarizer' is missing"));
  j = GoodSpecJson();
  j["roles"]["planner"].erase("model");
  BOOST_TEST(Mentions(ErrorOf(j), "roles.planner.model"));
  j = GoodSpecJson();
  j["mode"] = "greedy";
  BOOST_TEST(Mentions(ErrorOf(j), "unknown search mode 'greedy' (known: default, paper, sampling)"));
  j = GoodSpecJson();
  j["problems"] = json::array();
  BOOST_TEST(Mentions(ErrorOf(j), "'problems' is empty"));
  j = GoodSpecJson();
  j["problems"] = {"silu", "silu"};
  BOOST_TEST(Mentions(ErrorOf(j), "listed twice"));
  // A cost cap needs prices on every role.
  j = GoodSpecJson();
  j["budget"]["max_cost_usd"] = 5;
  BOOST_TEST(Mentions(ErrorOf(j), "no pricing"));
}

BOOST_AUTO_TEST_CASE(unknown_provider_or_model_comes_from_the_runtime_hook) {
  ModelCheck check = [](const std::string& provider, const std::string& model) {
    if (provider != "openai") return NotFound("unknown provider '" + provider + "'");
    if (model != "gpt-test") return NotFound("provider openai has no model '" + model + "'");
    return Status::Ok();
  };
  BOOST_TEST(ErrorOf(GoodSpecJson(), check).empty());
  json j = GoodSpecJson();
  j["roles"]["executor"]["provider"] = "nosuch";
  BOOST_TEST(Mentions(ErrorOf(j, check), "roles.executor: unknown provider 'nosuch'"));
  j = GoodSpecJson();
  j["roles"]["summarizer"]["model"] = "gpt-nope";
  BOOST_TEST(Mentions(ErrorOf(j, check), "no model 'gpt-nope'"));
}

BOOST_AUTO_TEST_CASE(start_refuses_bad_input_before_anything_runs) {
  const World world = MakeWorld();
  CampaignSpec spec = SmallSpec(world);
  BOOST_TEST(StartCampaign("c1", spec, world.sources, world.hardware).ok());

  // Unknown problem.
  CampaignSpec unknown = spec;
  unknown.problems.push_back("suites/cpu/nosuch");
  auto r = StartCampaign("c1", unknown, world.sources, world.hardware);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.status().code() == Code::kNotFound);
  BOOST_TEST(Mentions(r.status().message(), "unknown problem 'suites/cpu/nosuch'"));

  // Unknown model through the hook.
  r = StartCampaign("c1", spec, world.sources, world.hardware, [](const std::string& p, const std::string& m) {
    return m == "executor-model" ? NotFound("unknown model " + m) : Status::Ok();
  });
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(Mentions(r.status().message(), "roles.executor: unknown model executor-model"));

  // A budget already spent: too small for the first planner call, or for the
  // baseline measurements.
  CampaignSpec poor = spec;
  poor.budget.max_cost_usd = 0.0001;
  r = StartCampaign("c1", poor, world.sources, world.hardware);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.status().code() == Code::kResourceExhausted);
  BOOST_TEST(Mentions(r.status().message(), "cost"));
  poor = spec;
  poor.budget.max_tokens = 100;
  BOOST_TEST(Mentions(StartCampaign("c1", poor, world.sources, world.hardware).status().message(), "tokens"));
  poor = spec;
  poor.budget.max_evaluations = 1;  // two problems need two baseline measurements
  BOOST_TEST(Mentions(StartCampaign("c1", poor, world.sources, world.hardware).status().message(), "max_evaluations"));

  // Bad campaign id, problem without a function in its baseline, bad hardware.
  BOOST_TEST(!StartCampaign("", spec, world.sources, world.hardware).ok());
  BOOST_TEST(!StartCampaign("a/b", spec, world.sources, world.hardware).ok());
  std::vector<ProblemSource> broken = world.sources;
  broken[0].baseline = "int main() {}";
  BOOST_TEST(
      Mentions(StartCampaign("c1", spec, broken, world.hardware).status().message(), "baseline does not define"));
  broken = world.sources;
  broken[1].problem.erase("params");
  BOOST_TEST(Mentions(StartCampaign("c1", spec, broken, world.hardware).status().message(), "suites/cpu/gelu"));
  BOOST_TEST(!StartCampaign("c1", spec, world.sources, json::array()).ok());
  // problem.json goes through the one parser: unknown keys and wrong types
  // are refused naming the problem and the field.
  broken = world.sources;
  broken[0].problem["params"][0]["colour"] = "blue";
  BOOST_TEST(StartCampaign("c1", spec, broken, world.hardware).status().message() ==
             "problem 'suites/cpu/silu': problem.json: params[0]: unknown key `colour` (known: distribution, dtype, "
             "kind, name, shape)");
  broken = world.sources;
  broken[1].problem["flops"] = "many";
  BOOST_TEST(
      Mentions(StartCampaign("c1", spec, broken, world.hardware).status().message(), "flops: must be a finite number"));
}

// The signature comes from the one parser of problem.json
// (workflows/problem_json.hpp): arrays are float32 (the judge's contract,
// docs/contracts.md), scalars float32 or int64.
// An nki problem's baseline is a Python module: its kernel function is a
// top-level def (not an extern "C" function), and the refusal says so.
BOOST_AUTO_TEST_CASE(start_checks_an_nki_baseline_for_a_python_def) {
  const World world = MakeWorld();
  CampaignSpec spec = SmallSpec(world);
  std::vector<ProblemSource> nki = world.sources;
  for (ProblemSource& s : nki) {
    s.problem["backend"] = "nki";
    const std::string f = s.problem["function"].get<std::string>();
    s.baseline = "import neuronxcc.nki as nki\n\n\n@nki.jit\ndef " + f + "(x):\n    return x\n";
  }
  auto r = StartCampaign("c1", spec, nki, world.hardware);
  BOOST_TEST(r.ok(), (r.ok() ? "" : r.status().message()));
  std::vector<ProblemSource> broken = nki;
  broken[0].baseline = world.sources[0].baseline;  // C++: no def
  const std::string f = broken[0].problem["function"].get<std::string>();
  BOOST_TEST(StartCampaign("c1", spec, broken, world.hardware).status().message() ==
             "problem '" + broken[0].id + "': the baseline does not define def " + f + "(...)");
  broken[0].baseline = "class K:\n    def " + f + "(self, x):\n        return x\n";
  BOOST_TEST(Mentions(StartCampaign("c1", spec, broken, world.hardware).status().message(),
                      "the baseline does not define def " + f + "(...)"));
  // A cpu problem keeps the extern "C" rule and says so.
  std::vector<ProblemSource> cpu = world.sources;
  cpu[0].baseline = nki[0].baseline;
  BOOST_TEST(StartCampaign("c1", spec, cpu, world.hardware).status().message() ==
             "problem '" + cpu[0].id + "': the baseline does not define extern \"C\" " + f + "(...)");
}

BOOST_AUTO_TEST_CASE(signature_follows_the_contract) {
  const json normal = {{"kind", "normal"}};
  json problem = {
      {"name", "rms"},
      {"backend", "cpu"},
      {"function", "rms"},
      {"params",
       {{{"name", "x"}, {"kind", "input"}, {"dtype", "float32"}, {"shape", {"M"}}, {"distribution", normal}},
        {{"name", "w"}, {"kind", "input"}, {"shape", {"M"}}, {"distribution", normal}},
        {{"name", "out"}, {"kind", "output"}, {"dtype", "float32"}, {"shape", {"M"}}},
        {{"name", "eps"}, {"kind", "scalar"}, {"dtype", "float32"}, {"value", 1e-6}},
        {{"name", "steps"}, {"kind", "scalar"}, {"dtype", "int64"}, {"value", 3}},
        {{"name", "M"}, {"kind", "dim"}}}},
      {"dims", {{"M", 8}}},
      {"flops", 24},
      {"bytes", 96}};
  auto sig = CSignature(problem);
  BOOST_REQUIRE_MESSAGE(sig.ok(), sig.status().ToString());
  BOOST_TEST(*sig ==
             "extern \"C\" void rms(const float* x, const float* w, float* out, "
             "float eps, int64_t steps, int64_t M);");
  for (const char* dtype : {"bfloat16", "float64"}) {
    json bad = problem;
    bad["params"][1]["dtype"] = dtype;
    auto refused = CSignature(bad);
    BOOST_REQUIRE(!refused.ok());
    BOOST_TEST(refused.status().message().find("params[1].dtype") != std::string::npos, refused.status().message());
  }
}

}  // namespace
}  // namespace accelopt::workflows::testing

namespace accelopt::workflows::testing {
namespace {

// The shipped presets (config/*.json, roles filled in by the daemon) are
// valid specs; the nightly one shares a memory bank.
BOOST_AUTO_TEST_CASE(shipped_presets_are_valid_specs) {
  for (const char* name : {"quick", "paper", "nightly", "local"}) {
    auto j = ReadJsonFile(std::string(ACCELOPT_SOURCE_DIR) + "/config/" + name + ".json");
    BOOST_REQUIRE_MESSAGE(j.ok(), j.status().ToString());
    json roles = json::object();
    for (const char* role : {"planner", "executor", "summarizer"}) {
      json r = j->contains("roles") ? (*j)["roles"].value(role, json::object()) : json::object();
      r["provider"] = "p";
      r["model"] = "m";
      r["pricing"] = {{"input_usd_per_mtok", 1.0}, {"output_usd_per_mtok", 2.0}};
      roles[role] = r;
    }
    (*j)["roles"] = roles;
    auto spec = ParseCampaignSpec(*j);
    BOOST_REQUIRE_MESSAGE(spec.ok(), name << ": " << spec.status().ToString());
    BOOST_TEST(Validate(*spec).ok(), name << ": " << Validate(*spec).ToString());
    if (std::string(name) == "nightly") {
      BOOST_TEST(spec->memory.scope == "bank");
      BOOST_TEST(spec->memory.bank == "nightly-cpu");
      BOOST_TEST(spec->budget.max_cost_usd.has_value());
    }
    if (std::string(name) == "paper") BOOST_TEST(spec->mode == "paper");
  }
}

}  // namespace
}  // namespace accelopt::workflows::testing
