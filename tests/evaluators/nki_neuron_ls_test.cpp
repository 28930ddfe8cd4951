// `evaluators.nki.cores: "auto"`: neuron-ls's JSON parsed (a pure function,
// on fixtures written from the documented format: tests/evaluators/
// nki_neuron_ls/README.md says where it comes from), the cores chosen
// (NEURON_RT_VISIBLE_CORES), and neuron-ls run through the Env with the
// test-only stand-in tests/fakes/nki/bin/neuron-ls (never a real device).
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/env.hpp"
#include "evaluators/nki/doctor.hpp"
#include "evaluators/nki/neuron_ls.hpp"

using namespace accelopt;
using namespace accelopt::eval::nki;
namespace fs = std::filesystem;

namespace {
const std::string kLsData = std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/nki_neuron_ls/";

std::string LsFixture(const std::string& name) {
  auto t = Env::Default()->ReadFile(kLsData + name);
  BOOST_REQUIRE(t.ok());
  return *t;
}

// A bin folder whose neuron-ls is the stand-in; `json`/`fail` go next to it.
struct FakeNeuronLsBin {
  std::string dir;
  FakeNeuronLsBin() {
    char tmpl[] = "/tmp/accelopt-neuron-ls-XXXXXX";
    dir = mkdtemp(tmpl);
    fs::create_symlink(std::string(ACCELOPT_SOURCE_DIR) + "/tests/fakes/nki/bin/neuron-ls", dir + "/neuron-ls");
  }
  ~FakeNeuronLsBin() { fs::remove_all(dir); }
  void Prints(const std::string& json) { std::ofstream(dir + "/neuron-ls.json") << json; }
  void Fails(const std::string& stderr_text) { std::ofstream(dir + "/neuron-ls.fail") << stderr_text; }
};

// The process's PATH and NEURON_RT_VISIBLE_CORES as a test sets them.
class NeuronLsVarsEnv : public EnvWrapper {
 public:
  NeuronLsVarsEnv(std::string path, std::optional<std::string> visible)
      : EnvWrapper(Env::Default()), path_(std::move(path)), visible_(std::move(visible)) {}
  std::optional<std::string> GetEnvVar(const std::string& n) override {
    if (n == "PATH") return path_;
    if (n == "NEURON_RT_VISIBLE_CORES") return visible_;
    return EnvWrapper::GetEnvVar(n);
  }

 private:
  std::string path_;
  std::optional<std::string> visible_;
};

NkiConfig AutoConfig() {
  auto c = NkiConfig::FromJson({{"python", "/nonexistent/python"}}, "evaluators.nki");
  BOOST_REQUIRE(c.ok());
  return *c;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(nki_neuron_ls)

BOOST_AUTO_TEST_CASE(auto_is_the_default_and_leaves_the_cores_to_the_start) {
  NkiConfig c = AutoConfig();
  BOOST_TEST(c.auto_cores());
  BOOST_TEST(c.cores.empty());
  auto explicit_cores = NkiConfig::FromJson({{"python", "/p"}, {"cores", "0-3"}}, "evaluators.nki");
  BOOST_REQUIRE(explicit_cores.ok());
  BOOST_TEST(!explicit_cores->auto_cores());
  BOOST_TEST(explicit_cores->cores.size() == 4u);
}

BOOST_AUTO_TEST_CASE(parses_devices_times_cores_in_device_order) {
  auto inv = ParseNeuronLsJson(LsFixture("trn1_32xlarge.json"));
  BOOST_REQUIRE_MESSAGE(inv.ok(), inv.status().message());
  BOOST_TEST(inv->devices.size() == 16u);
  BOOST_TEST(inv->total_cores == 32);
  for (size_t i = 0; i < inv->devices.size(); ++i) BOOST_TEST(inv->devices[i].index == static_cast<int>(i));
  BOOST_TEST(inv->Describe() == "16 Neuron devices x 2 NeuronCores = 32");
  auto two = ParseNeuronLsJson(LsFixture("trn1_2devices.json"));
  BOOST_REQUIRE(two.ok());
  BOOST_TEST(two->total_cores == 4);
  auto mixed = ParseNeuronLsJson(R"([{"neuron_device": 1, "nc_count": 4}, {"neuron_device": 0, "nc_count": 2}])");
  BOOST_REQUIRE(mixed.ok());
  BOOST_TEST(mixed->Describe() == "2 Neuron devices with 2+4 NeuronCores = 6");
}

// Neuron 2.34's --output-format json: an object with top-level fields; the
// devices are the member that lists objects with nc_count, the LNC may be
// at the top.
BOOST_AUTO_TEST_CASE(reads_the_2_34_object_layout_by_content) {
  auto inv = ParseNeuronLsJson(
      R"({"instance_info": {"instance_type": "trn2.48xlarge"}, "ultraserver": null, "logical_neuroncore_config": 2,
          "neuron_devices": [{"neuron_device": 0, "nc_count": 4}, {"neuron_device": 1, "nc_count": 4}]})");
  BOOST_REQUIRE_MESSAGE(inv.ok(), inv.status().ToString());
  BOOST_TEST(inv->total_cores == 8);
  BOOST_TEST(*inv->lnc == 2);
  auto clash =
      ParseNeuronLsJson(R"({"logical_neuroncore_config": 1, "d": [{"nc_count": 4, "logical_neuroncore_config": 2}]})");
  BOOST_REQUIRE(!clash.ok());
  BOOST_TEST(clash.status().message().find("at the top") != std::string::npos, clash.status().message());
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_the_documented_array) {
  for (auto [text, why] : std::vector<std::pair<std::string, std::string>>{
           {R"({"instance_type": "trn1.32xlarge", "devices": 16})", "a layout accelopt does not know"},
           {"7", "expected a JSON array of devices"},
           {"", "not JSON"},
           {"neuron-ls: command output", "not JSON"},
           {"[]", "no Neuron devices"},
           {"[3]", "device [0]: must be an object"},
           {R"([{"neuron_device": 0}])", "no \"nc_count\""},
           {R"([{"neuron_device": 0, "nc_count": "2"}])", "nc_count: must be an integer"},
           {R"([{"neuron_device": 0, "nc_count": 0}])", "nc_count: must be an integer 1..64"},
           {R"([{"neuron_device": -1, "nc_count": 2}])", "neuron_device: must be an integer"},
           {R"([{"neuron_device": 0, "nc_count": 2}, {"neuron_device": 0, "nc_count": 2}])", "listed twice"}}) {
    auto r = ParseNeuronLsJson(text);
    BOOST_TEST_CONTEXT(text) {
      BOOST_REQUIRE(!r.ok());
      BOOST_TEST(r.status().message().find(why) != std::string::npos, r.status().message());
      BOOST_TEST(r.status().message().find("neuron-ls JSON") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(neuron_rt_visible_cores_restricts_auto) {
  auto inv = ParseNeuronLsJson(LsFixture("trn1_2devices.json"));
  BOOST_REQUIRE(inv.ok());
  BOOST_TEST((*AutoCores(*inv, std::nullopt) == std::vector<int>{0, 1, 2, 3}));
  BOOST_TEST((*AutoCores(*inv, std::string("")) == std::vector<int>{0, 1, 2, 3}));
  BOOST_TEST((*AutoCores(*inv, std::string("3,1")) == std::vector<int>{1, 3}));
  auto missing = AutoCores(*inv, std::string("2-4"));
  BOOST_REQUIRE(!missing.ok());
  BOOST_TEST(missing.status().message().find("names NeuronCore 4 but neuron-ls reports 2 Neuron devices x 2 "
                                             "NeuronCores = 4 (cores 0-3)") != std::string::npos,
             missing.status().message());
  BOOST_TEST(!AutoCores(*inv, std::string("all")).ok());
}

BOOST_AUTO_TEST_CASE(runs_neuron_ls_through_the_env) {
  FakeNeuronLsBin bin;
  NeuronLsVarsEnv env(bin.dir + ":/usr/bin:/bin", std::nullopt);
  NkiConfig c = AutoConfig();
  std::string how;
  Status st = ResolveAutoCores(&c, &env, &how);
  BOOST_REQUIRE_MESSAGE(st.ok(), st.message());
  BOOST_TEST((c.cores == std::vector<int>{0, 1, 2, 3}));
  BOOST_TEST(how == "auto: 2 Neuron devices x 2 NeuronCores = 4 (neuron-ls --json-output); using 4 cores", how);

  bin.Prints(LsFixture("trn1_32xlarge.json"));
  NeuronLsVarsEnv restricted(bin.dir + ":/usr/bin:/bin", "8-15");
  c = AutoConfig();
  st = ResolveAutoCores(&c, &restricted, &how);
  BOOST_REQUIRE_MESSAGE(st.ok(), st.message());
  BOOST_TEST(c.cores.size() == 8u);
  BOOST_TEST(c.cores.front() == 8);
  BOOST_TEST(how.find("NEURON_RT_VISIBLE_CORES=8-15; using 8 cores") != std::string::npos, how);

  // An explicit list never runs neuron-ls.
  NeuronLsVarsEnv nowhere("/nonexistent", std::nullopt);
  auto listed = NkiConfig::FromJson({{"python", "/p"}, {"cores", "0-1"}}, "evaluators.nki");
  BOOST_REQUIRE(listed.ok());
  BOOST_TEST(ResolveAutoCores(&*listed, &nowhere).ok());
  BOOST_TEST(listed->cores.size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_missing_or_failing_neuron_ls_is_a_clear_error) {
  NkiConfig c = AutoConfig();
  NeuronLsVarsEnv nowhere("/nonexistent", std::nullopt);
  Status st = ResolveAutoCores(&c, &nowhere);
  BOOST_TEST(st.code() == Code::kNotFound);
  BOOST_TEST(st.message().find("neuron-ls not found (PATH /nonexistent:/opt/aws/neuron/bin)") != std::string::npos,
             st.message());
  BOOST_TEST(c.cores.empty());

  FakeNeuronLsBin bin;
  bin.Fails("error: no neuron device found\n");
  NeuronLsVarsEnv env(bin.dir + ":/usr/bin:/bin", std::nullopt);
  st = ResolveAutoCores(&c, &env);
  BOOST_TEST(st.code() == Code::kUnavailable);
  BOOST_TEST(st.message().find("neuron-ls --json-output failed (exited with code 1): error: no neuron device found") !=
                 std::string::npos,
             st.message());
  BOOST_TEST(st.message().find("error: no neuron device found") != std::string::npos, st.message());
  BOOST_TEST(std::string(kNeuronLsFix).find("set evaluators.nki.cores explicitly") != std::string::npos);
  BOOST_TEST(std::string(kNeuronLsFix).find("install aws-neuronx-tools") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(doctor_reports_the_detected_cores) {
  FakeNeuronLsBin bin;
  const std::map<std::string, std::string> path = {{"PATH", bin.dir + ":/usr/bin:/bin"}};
  auto find = [](const std::vector<DoctorCheck>& checks, const std::string& name) {
    for (const auto& k : checks)
      if (k.name == name) return k;
    BOOST_FAIL("no check " + name);
    return DoctorCheck{};
  };
  auto checks = RunDoctor(AutoConfig(), Env::Default(), path);
  BOOST_TEST(find(checks, "neuron-ls").ok);
  const DoctorCheck cores = find(checks, "cores");
  BOOST_TEST(cores.ok);
  BOOST_TEST(cores.detail ==
                 "evaluators.nki.cores 'auto': 2 Neuron devices x 2 NeuronCores = 4 reported by neuron-ls; 4 "
                 "evaluation slots (cores 0..3); each slot a logical NeuronCore at LNC=1",
             cores.detail);
  // A configured list that names cores neuron-ls does not report.
  auto listed = NkiConfig::FromJson({{"python", "/nonexistent/python"}, {"cores", "0-7"}}, "evaluators.nki");
  BOOST_REQUIRE(listed.ok());
  const DoctorCheck too_many = find(RunDoctor(*listed, Env::Default(), path), "cores");
  BOOST_TEST(!too_many.ok);
  BOOST_TEST(too_many.detail.find("4 NeuronCores reported by neuron-ls") != std::string::npos, too_many.detail);
  // An object layout (2.34's --output-format json) is read by content.
  bin.Prints(LsFixture("not_an_array.json"));
  const DoctorCheck newer = find(RunDoctor(AutoConfig(), Env::Default(), path), "cores");
  BOOST_TEST(newer.ok, newer.detail);
  BOOST_TEST(newer.detail.find("1 Neuron device x 2 NeuronCores = 2") != std::string::npos, newer.detail);
}

// trn2: cores counted in logical cores, the runtime's logical core config
// read from neuron-ls and used for the compile flag and the runtime alike;
// a configured one that disagrees stops the start.
BOOST_AUTO_TEST_CASE(trn2_logical_cores_and_their_config_come_from_neuron_ls) {
  auto inv = ParseNeuronLsJson(LsFixture("trn2_lnc2.json"));
  BOOST_REQUIRE_MESSAGE(inv.ok(), inv.status().ToString());
  BOOST_TEST(inv->total_cores == 8);
  BOOST_TEST(*inv->lnc == 2);
  BOOST_TEST(inv->Describe() == "2 Neuron devices x 4 NeuronCores = 8 logical (LNC=2)", inv->Describe());
  FakeNeuronLsBin bin;
  bin.Prints(LsFixture("trn2_lnc2.json"));
  NeuronLsVarsEnv env(bin.dir + ":/usr/bin:/bin", std::nullopt);
  NkiConfig c = AutoConfig();
  std::string how;
  Status st = ResolveAutoCores(&c, &env, &how);
  BOOST_REQUIRE_MESSAGE(st.ok(), st.message());
  BOOST_TEST(c.lnc == 2);
  BOOST_TEST(c.cores.size() == 8u);
  BOOST_TEST(how.find("logical_nc_config 2") != std::string::npos, how);
  auto one = NkiConfig::FromJson({{"python", "/p"}, {"logical_nc_config", "1"}}, "evaluators.nki");
  BOOST_REQUIRE(one.ok());
  st = ResolveAutoCores(&*one, &env);
  BOOST_TEST(st.code() == Code::kFailedPrecondition);
  BOOST_TEST(st.message().find("every NEFF would fail to load") != std::string::npos, st.message());
  BOOST_TEST(!NkiConfig::FromJson({{"python", "/p"}, {"logical_nc_config", "4"}}, "evaluators.nki").ok());
  BOOST_TEST(!ParseNeuronLsJson(R"([{"nc_count": 4, "logical_neuroncore_config": 3}])").ok());
  BOOST_TEST(!ParseNeuronLsJson(R"([{"nc_count": 4, "neuroncore_ids": [0, 1]}])").ok());
  BOOST_TEST(
      !ParseNeuronLsJson(
           R"([{"nc_count": 4, "logical_neuroncore_config": 2}, {"nc_count": 8, "logical_neuroncore_config": 1}])")
           .ok());
  // trn1 fixtures say nothing: LNC 1.
  NkiConfig t1 = AutoConfig();
  bin.Prints(LsFixture("trn1_2devices.json"));
  BOOST_REQUIRE(ResolveAutoCores(&t1, &env).ok());
  BOOST_TEST(t1.lnc == 1);
}

BOOST_AUTO_TEST_SUITE_END()
