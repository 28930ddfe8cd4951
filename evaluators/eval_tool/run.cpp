// accelopt-eval run: evaluate one kernel (cpu, cuda or nki problem), optionally
// against a second one timed interleaved.
#include "evaluators/eval_tool/commands.hpp"

#include <iostream>
#include <memory>

#include "evaluators/eval_tool/common.hpp"
#include "evaluators/nki/neuron_ls.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/sdk.hpp"
#include "evaluators/nki/venv.hpp"
#include "evaluators/problem.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

namespace {

void PrintResultTable(const std::string& name, const EvalResult& r) {
  std::cout << "problem      " << name << "\n"
            << "status       " << EvalStatusName(r.status) << "\n"
            << "reason       " << r.reason << "\n";
  if (r.latency) {
    std::cout << "median       " << Fixed(r.latency->median_us, 2) << " us   (min " << Fixed(r.latency->min_us, 2)
              << ", mean " << Fixed(r.latency->mean_us, 2) << ", spread " << Fixed(100 * r.latency->spread, 2)
              << "%, " << r.latency->samples_us.size() << " samples, " << r.latency->rounds << " rounds)\n";
  }
  if (r.percent_of_peak)
    std::cout << "% of peak    " << Fixed(*r.percent_of_peak, 2) << "   (roofline " << Fixed(*r.peak_latency_us, 2) << " us)\n";
  if (r.max_rel_error) std::cout << "max rel err  " << *r.max_rel_error << "\n";
  if (r.comparison.is_object()) {
    const json& c = r.comparison;
    std::cout << "speedup      " << Fixed(c.value("speedup", 0.0), 3) << "x  (~95% interval "
              << Fixed(c.value("speedup_low", 0.0), 3) << " .. " << Fixed(c.value("speedup_high", 0.0), 3)
              << "x, against " << Fixed(c.value("baseline_median_us", 0.0), 2) << " us measured interleaved"
              << (c.value("noisy", false) ? "; NOISY: a spread stayed above the target" : "") << ")\n";
  }
  for (const auto& [k, v] : r.profile) std::cout << "  " << k << std::string(k.size() < 26 ? 26 - k.size() : 1, ' ') << v << "\n";
  std::cout << "timings      compile " << Fixed(r.timings.compile_s, 2) << " s, checks " << Fixed(r.timings.check_s, 2)
            << " s, run " << Fixed(r.timings.measure_s, 2) << " s, total " << Fixed(r.timings.total_s, 2) << " s\n";
  if (!r.error_text.empty()) std::cout << "---- error text ----\n" << r.error_text << "\n";
}

}  // namespace

int CmdRun(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  std::string problem, kernel, compare;
  std::string nki_python = "auto", nki_cores = "0", nki_generation = "trn1";
  std::string nki_runner_dir = "/usr/share/accelopt/nki";
  bool nki_simulate = false;
  std::string triton_python = "/usr/bin/python3";
  po::options_description d("accelopt-eval run --problem DIR --kernel FILE [options]");
  AddCommon(d, c);
  d.add_options()("problem", po::value(&problem), "problem folder")("kernel", po::value(&kernel), "kernel source file")(
      "compare", po::value(&compare),
      "a second kernel (e.g. the problem's baseline.cpp) timed interleaved with --kernel: prints the speedup over it "
      "with a ~95% interval")
      ("nki-python", po::value(&nki_python)->default_value(nki_python), "nki problems: the Neuron SDK's interpreter (auto: the newest /opt/aws_neuronx_venv_pytorch*)")
      ("nki-cores", po::value(&nki_cores)->default_value(nki_cores), "nki problems: the NeuronCores to use (\"auto\": neuron-ls)")
      ("nki-generation", po::value(&nki_generation)->default_value(nki_generation), "nki problems: trn1 | trn2 | trn3")
      ("nki-runner-dir", po::value(&nki_runner_dir)->default_value(nki_runner_dir),
       "nki problems: folder of runner.py and reference_runner.py")
      ("nki-simulate", po::bool_switch(&nki_simulate),
       "nki problems: check correctness only on the CPU simulator (nki.simulate, Neuron 2.29+); no device, "
       "no time, no neuron-ls")
      ("triton-python", po::value(&triton_python)->default_value(triton_python),
       "triton problems: the interpreter with torch and triton (an absolute path)");
  if (ParseShowingHelp(args, d)) return 0;
  if (problem.empty() || kernel.empty()) { std::cerr << d; return 2; }
  auto settings = MakeSettings(c);
  if (!settings.ok()) { std::cerr << "accelopt-eval: " << settings.status() << "\n"; return 2; }
  auto source = env->ReadFile(kernel);
  if (!source.ok()) { std::cerr << "accelopt-eval: " << source.status() << "\n"; return 2; }
  // A problem that cannot be loaded is refused before calibrating (which may
  // take seconds); the backend loads it again, the same way.
  auto loaded = LoadProblem(Under(c.root, problem).string(), env);
  if (!loaded.ok()) {
    std::cerr << "accelopt-eval: " << loaded.status().message() << "\n";
    return 3;
  }
  if (loaded->backend == "nki") {
    // A Trainium host's NeuronCores (docs/evaluation.md, "The nki backend").
    if (!compare.empty()) { std::cerr << "accelopt-eval: --compare is not built for nki problems\n"; return 2; }
    auto nc = nki::NkiConfig::FromJson({{"python", nki_python}, {"cores", nki_cores}, {"generation", nki_generation},
                                        {"runner_dir", nki_runner_dir}},
                                       "run");
    if (!nc.ok()) { std::cerr << "accelopt-eval: " << nc.status().message() << "\n"; return 2; }
    if (nki_simulate) nc->cores_spec = "0", nc->cores = {0};  // no device: one slot, no neuron-ls
    if (Status st = nki::ResolveAutoCores(&*nc, env); !st.ok()) {
      std::cerr << "accelopt-eval: --nki-cores auto: " << st.message() << "; " << nki::kNeuronLsFix << "\n";
      return 3;
    }
    if (Status st = nki::ResolvePython(&*nc, env); !st.ok()) {
      std::cerr << "accelopt-eval: --nki-python auto: " << st.message() << "\n";
      return 3;
    }
    std::string sdk_how;
    if (Status st = nki::ResolveSdk(&*nc, env, {}, &sdk_how); !st.ok()) {
      std::cerr << "accelopt-eval: " << st.message() << " (accelopt-eval doctor nki)\n";
      return 3;
    }
    std::cerr << "accelopt-eval: " << sdk_how << "\n";
    if (nki_simulate && (nc->sdk.path != nki::NkiPath::kNki || nc->sdk.release_minor < 29)) {
      std::cerr << "accelopt-eval: --nki-simulate needs the nki package's CPU simulator (NKI 0.3.0, Neuron 2.29 and "
                   "later); this host has "
                << nc->sdk.Describe() << "\n";
      return 3;
    }
    if (nki_simulate) std::cerr << "accelopt-eval: CPU simulator: correctness only, no time\n";
    nki::NkiBackendOptions no;
    no.config = *nc;
    no.env = env;
    no.simulate = nki_simulate;
    nki::NkiBackend backend(no);
    EvalRequest req{"", "nki", Under(env->CurrentDir(), loaded->dir).string(), *source, *settings};
    EvalResult r = backend.Evaluate(req, nullptr);
    if (c.output == "json") std::cout << Dump(r.ToJson(), 2) << "\n";
    else PrintResultTable(problem, r);
    if (r.status == EvalStatus::kInternalError) return 3;
    return r.status == EvalStatus::kOk ? 0 : 1;
  }
  std::unique_ptr<Backend> backend_ptr;
  if (loaded->backend == "cuda") {
    backend_ptr = MakeCudaBackend(env, c);
    if (!backend_ptr) return 3;
  } else if (loaded->backend == "triton") {
    backend_ptr = MakeTritonBackend(env, c, triton_python);
    if (!backend_ptr) return 3;
  } else {
    cpu::CpuBackendOptions bo = BackendOptions(c);
    if (!PrepareCalibration(c, bo)) return 3;
    backend_ptr = std::make_unique<cpu::CpuBackend>(bo);
  }
  Backend& backend = *backend_ptr;
  EvalRequest req{"", backend.name(), problem, *source, *settings};
  if (!compare.empty()) {
    auto other = env->ReadFile(compare);
    if (!other.ok()) { std::cerr << "accelopt-eval: " << other.status() << "\n"; return 2; }
    req.compare_source = *other;
  }
  EvalResult r = backend.Evaluate(req, nullptr);
  if (c.output == "json") std::cout << Dump(r.ToJson(), 2) << "\n";
  else PrintResultTable(problem, r);
  if (r.status == EvalStatus::kInternalError) return 3;
  return r.status == EvalStatus::kOk ? 0 : 1;
}

}  // namespace accelopt::eval_tool
