#include "evaluators/eval_tool/tool_backends.hpp"

#include <iostream>

#include "evaluators/cpu/calibration.hpp"
#include "evaluators/nki/roofline.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

namespace {

void NkiRunFlags(po::options_description& d, BackendFlags& f) {
  d.add_options()("nki-python", po::value(&f.nki_python)->default_value(f.nki_python),
                  "nki problems: the Neuron SDK's interpreter (auto: the newest /opt/aws_neuronx_venv_pytorch*)")(
      "nki-cores", po::value(&f.nki_cores)->default_value(f.nki_cores),
      "nki problems: the NeuronCores to use (\"auto\": neuron-ls)")(
      "nki-generation", po::value(&f.nki_generation)->default_value(f.nki_generation),
      "nki problems: trn1 | trn2 | trn3")("nki-runner-dir",
                                          po::value(&f.nki_runner_dir)->default_value(f.nki_runner_dir),
                                          "nki problems: folder of runner.py and reference_runner.py")(
      "nki-simulate", po::bool_switch(&f.nki_simulate),
      "nki problems: check correctness only on the CPU simulator (nki.simulate, Neuron 2.29+); no device, "
      "no time, no neuron-ls")(
      "allow-test-stand-in", po::bool_switch(&f.allow_test_stand_in),
      "nki problems: accept results of accelopt's TEST-ONLY Neuron SDK stand-in (tests/fakes/nki), each "
      "labelled \"test stand-in (NOT a Trainium measurement)\"; without it they are refused. Never on a real host");
}

void TritonRunFlags(po::options_description& d, BackendFlags& f) {
  d.add_options()("triton-python", po::value(&f.triton_python)->default_value(f.triton_python),
                  "triton problems: the interpreter with torch and triton (an absolute path)");
}

std::string CpuFactsFile(const std::string& cache_dir) { return cpu::CalibrationPath(cache_dir); }
std::string GpuFactsFile(const std::string& cache_dir) { return cache_dir + "/cuda-calibration.json"; }
std::string NoFactsFile(const std::string&) { return ""; }

// The cpu calibration as the daemon hands it to campaigns (without the busy
// checks).
Result<json> CpuFacts(Env* env, const std::string& path, const BackendFlags&) {
  ACCELOPT_ASSIGN_OR_RETURN(json raw, ReadJsonFile(env, path));
  ACCELOPT_ASSIGN_OR_RETURN(cpu::Calibration cal, cpu::Calibration::FromJson(raw));
  json facts = cal.ToJson();
  facts.erase("checks");
  return facts;
}

// A GPU's facts are the cuda calibration's JSON as written ('accelopt-eval
// calibrate --backend cuda'), rendered by the cuda and triton prompt sets.
Result<json> GpuFacts(Env* env, const std::string& path, const BackendFlags&) { return ReadJsonFile(env, path); }

// An nki problem's facts are the Trainium generation's (trainium.json), as
// the daemon hands them to campaigns; a calibration file given is read as
// the cpu one.
Result<json> NkiFacts(Env* env, const std::string& path, const BackendFlags& f) {
  if (!path.empty()) return CpuFacts(env, path, f);
  ACCELOPT_ASSIGN_OR_RETURN(nki::Generation gen, nki::FindGeneration(f.nki_generation));
  return json{{"nki", nki::GenerationFacts(gen)}};
}

constexpr ToolBackend kRows[] = {
    {"cpu", nullptr, &MakeCpuBackend, true, &CpuFactsFile, &CpuFacts, &CalibrateCpu},
    {"cuda", nullptr, &MakeCudaBackend, true, &GpuFactsFile, &GpuFacts, &CalibrateCuda},
    {"nki", &NkiRunFlags, &MakeNkiBackend, false, &NoFactsFile, &NkiFacts, nullptr},
    {"triton", &TritonRunFlags, &MakeTritonBackend, true, &GpuFactsFile, &GpuFacts, nullptr},
};

}  // namespace

std::span<const ToolBackend> ToolBackends() { return kRows; }

const ToolBackend* FindToolBackend(const std::string& name, const std::string& what) {
  std::string names;
  for (const ToolBackend& row : kRows) {
    if (name == row.name) return &row;
    names += std::string(names.empty() ? "" : ", ") + row.name;
  }
  std::cerr << "accelopt-eval: " << what << ": no backend '" << name << "' (there are " << names << ")\n";
  return nullptr;
}

int MakerExit(const Status& st) {
  std::cerr << "accelopt-eval: " << st.message() << "\n";
  return st.code() == Code::kInvalidArgument ? 2 : 3;
}

void AddRunFlags(po::options_description& d, BackendFlags& f) {
  for (const ToolBackend& row : kRows) {
    if (row.add_run_flags) row.add_run_flags(d, f);
  }
}

}  // namespace accelopt::eval_tool
