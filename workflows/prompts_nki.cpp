#include "workflows/prompts_nki.hpp"
#include "base/text.hpp"

#include <cstdio>

namespace accelopt::workflows {
namespace {

std::string NkiCorrectness(const json& problem) {
  std::string s =
      "Correctness (what the judge checks): the kernel's outputs are compared, in float64, with the "
      "problem's numpy reference run on the same inputs; every output's relative L2 error "
      "||out - ref|| / ||ref|| must be at most " +
      FormatSignificant(problem.value("tolerance", 2e-5)) +
      ", on at least 5 input sets drawn from a secret seed and on the problem's adversarial cases; "
      "a NaN or Inf anywhere fails. Outputs must be float32 arrays with the reference's number of "
      "elements, returned by the kernel function (from shared HBM).\n";
  if (problem.contains("params") && problem["params"].is_array()) {
    s += "Arguments, in order (after the reference module's transform_to_nki_inputs):";
    for (const auto& p : problem["params"]) {
      const std::string kind = p.value("kind", "");
      if (kind == "input" || kind == "scalar") s += " " + p.value("name", "") + (kind == "scalar" ? " (scalar)" : "");
    }
    s += "\n";
  }
  return s;
}

}  // namespace

std::string NkiHardwareProse(const json& facts) {
  // The daemon passes one hardware object to every campaign; the nki facts
  // are under "nki" in it (daemon.cpp), or the object is the entry itself.
  const json& g = facts.is_object() && facts.contains("nki") && facts["nki"].is_object() ? facts["nki"] : facts;
  if (!g.is_object() || !g.contains("matmul_flops_per_s"))
    return g.is_object() && !g.empty() ? RenderFacts(g) : "(none recorded)\n";
  auto n = [&](const char* k) { return g.contains(k) && g[k].is_number() ? g[k].get<double>() : 0.0; };
  std::string s = "One " + g.value("core", std::string("NeuronCore")) + " (the kernel runs on one core):\n";
  // The NKI language of this host's SDK (evaluators/nki/sdk.hpp, set by the
  // daemon at start): what the kernel must import.
  if (g.value("nki_path", std::string()) == "nki") {
    s += "- NKI language: the nki package (Neuron " + g.value("neuron_sdk", std::string("2.28+")) +
         ", NKI Beta 2 and later): import nki, nki.language as nl, nki.isa as nisa; write the nki package's "
         "language (nl.load/nl.store do not exist: nisa.dma_copy(dst=..., src=...)); a neuronxcc.nki kernel is "
         "migrated by import rewrites and nl.load/nl.store -> nisa.dma_copy where it can be, else refused\n";
  } else if (g.value("nki_path", std::string()) == "neuronxcc") {
    s += "- NKI language: neuronxcc.nki (Neuron " + g.value("neuron_sdk", std::string("2.27 or older")) +
         ", NKI Beta 1): import neuronxcc.nki as nki, neuronxcc.nki.language as nl, neuronxcc.nki.isa as nisa; "
         "the nki package is refused\n";
  }
  s += "- Tensor Engine fp32 matmul peak: " + FormatSignificant(n("matmul_flops_per_s") / 1e12) + " TFLOP/s\n";
  if (g.contains("vector_flops_per_s") && g["vector_flops_per_s"].is_number())
    s += "- Vector + Scalar engines (the roofline's vector peak): " + FormatSignificant(n("vector_flops_per_s") / 1e9) +
         " GFLOP/s\n";
  s += "- HBM bandwidth (this core's share): " + FormatSignificant(n("hbm_bytes_per_s") / 1e9) + " GB/s\n";
  s += "- SBUF: " + FormatSignificant(n("sbuf_bytes") / 1048576) + " MiB in " + FormatSignificant(n("partitions")) +
       " partitions; PSUM: " + FormatSignificant(n("psum_bytes") / 1048576) + " MiB\n";
  return s;
}

const BackendPrompts& NkiPrompts() {
  static const BackendPrompts kNki = [] {
    BackendPrompts b;
    b.name = "nki";
    b.intro =
        "The kernel is one Python module written in NKI (the Neuron Kernel Interface) that defines the "
        "problem's kernel function, decorated with @nki.jit. The evaluator compiles it with the Neuron "
        "compiler (up to Neuron 2.27 nki.baremetal with --disable-dge --logical-nc-config=<the host's LNC>; from "
        "2.28 the nki package's own compiler, the kernel called standalone on numpy arrays; "
        "NEURON_CC_FLAGS=--auto-cast=none: no automatic casting to lower precision), runs it on one NeuronCore of "
        "a Trainium chip, and times it with the device profiler (neuron-profile or neuron-explorer, total_time: 2 "
        "warm-up runs, then 10 profiled runs, up to "
        "3 rounds until they agree within 1%). The goal is a lower device latency, measured as % of the "
        "three-engine roofline (matrix FLOPs, vector FLOPs and HBM bytes; the slowest of the three).";
    b.rules =
        "Rules (what the evaluator checks):\n"
        "- Allowed imports: numpy, math and the NKI modules of this host's Neuron SDK (the hardware facts "
        "name them: neuronxcc.nki and below up to Neuron 2.27, the nki package and below from 2.28). Use "
        "existing NKI APIs only; do "
        "not invent functions.\n"
        "- Forbidden, refused before compiling: reduced precision anywhere, in code or strings (float16, "
        "bfloat16, fp16, bf16, half, tf32, float8/fp8 types); files, processes, network, environment and "
        "clocks (open, os, sys, subprocess, socket, time, np.load/np.save/np.fromfile...); exec, eval, "
        "getattr, __import__ and other dunder names; launching or timing the kernel yourself "
        "(nki.baremetal, nki.benchmark, nki.profile, nki.simulate_kernel).\n"
        "- Keep every tensor and accumulator in float32.\n"
        "- Keep the kernel function's name and arguments; return the outputs (allocated in nl.shared_hbm).\n"
        "- Do not special-case inputs or cache results between calls.\n";
    b.compile = "nki.baremetal(kernel, additional_compile_opt=\"--disable-dge --logical-nc-config=1\")";
    b.correctness = NkiCorrectness;
    b.hardware = NkiHardwareProse;
    b.fields = {
        {"hbm_read_bytes", "bytes read from HBM (device memory) during the kernel"},
        {"hbm_write_bytes", "bytes written to HBM"},
        {"psum_read_bytes", "bytes read from PSUM (the matmul accumulation buffer)"},
        {"psum_write_bytes", "bytes written to PSUM"},
        {"sbuf_read_bytes", "bytes read from SBUF (the on-chip state buffer the engines work from)"},
        {"sbuf_write_bytes", "bytes written to SBUF"},
        {"spill_reload_bytes",
         "bytes the compiler had to reload after spilling SBUF to HBM (0 is ideal: "
         "the tiles did not fit)"},
        {"spill_save_bytes", "bytes spilled from SBUF to HBM by the compiler"},
        {"hardware_flops", "floating-point operations the engines executed (FLOP), padding included"},
        {"transpose_flops", "FLOPs spent on Tensor Engine transposes (work that is not the problem's)"},
        {"peak_flops_bandwidth_ratio",
         "the machine balance: peak FLOP/s divided by HBM bytes/s (FLOP/byte); "
         "a kernel whose intensity is below it is memory-bound"},
        {"mm_arithmetic_intensity", "matmul FLOPs per HBM byte of this kernel (FLOP/byte)"},
        {"hfu_estimated_percent", "estimated hardware FLOPs utilization of the Tensor Engine (%)"},
        {"scalar_engine_active_time_percent",
         "share of the kernel's time the Scalar Engine (activations: "
         "exp, sigmoid, fused scale and bias) was busy (%)"},
        {"vector_engine_active_time_percent",
         "share of the time the Vector Engine (elementwise on two "
         "tensors, reductions along the free axis) was busy (%)"},
        {"gpsimd_engine_active_time_percent",
         "share of the time the GpSimd Engine (general-purpose SIMD, "
         "partition-axis work) was busy (%)"},
    };
    b.planning =
        "How to plan:\n"
        "1. Start from the profile: which engine or memory is the bottleneck (engine active-time %, HBM "
        "bytes against the problem's minimum, spills, transposes, HFU)?\n"
        "2. Read the current kernel and find the inefficiency that costs the most: redundant HBM traffic, "
        "tiles too small to keep the Tensor Engine busy, work on the wrong engine, serialization.\n"
        "3. Think of: larger tiles within SBUF/PSUM limits, loading each HBM byte once (fusion, data reuse), "
        "moving elementwise work to the Scalar Engine's fused activation (scale and bias for free), keeping "
        "matmul operands in the layout the Tensor Engine wants instead of transposing, affine_range loops "
        "the compiler can pipeline and overlap with DMA, and other methods not listed.\n"
        "4. Keep float32 everywhere.\n";
    // The published rule (prompts/planner_prompts/planner_prompt_template.txt:11
    // @47e29a7): NKI's APIs are the baseline's; the model must not invent any.
    b.api_rule = "Use only existing NKI APIs, those the baseline kernel uses; do not invent new APIs.";
    b.pitfalls =
        "NKI facts and pitfalls:\n"
        "- Tiles: the first dimension of an SBUF/PSUM tile is the partition dimension, at most 128 "
        "(nl.tile_size.pmax); put the dimension you reduce over or multiply along there deliberately.\n"
        "- SBUF is about 24 MiB per core on Trn1 (192 KiB per partition), PSUM 2 MiB (16 KiB per "
        "partition, in 8 banks of 2 KiB); tiles that do not fit are spilled to HBM (spill_* fields).\n"
        "- Matmul (nl.matmul / nisa.nc_matmul) contracts over the partition dimension: the stationary "
        "operand is at most 128 x 128 (nl.tile_size.gemm_stationary_fmax), the moving one at most 128 x 512 "
        "(gemm_moving_fmax); results accumulate in fp32 in PSUM. Full-size tiles give full throughput; "
        "accumulate over K in PSUM before copying to SBUF.\n"
        "- Transposes cost Tensor Engine time (nisa.nc_transpose, transpose_flops); prefer loading data in "
        "the layout the matmul needs.\n"
        "- nl.affine_range: iterations must be independent (no loop-carried dependency); the compiler may "
        "reorder and overlap them. A recurrence (a scan, a running max) needs nl.sequential_range; "
        "nl.static_range unrolls.\n"
        "- Tails: handle sizes that are not multiples of the tile with masks (mask= with nl.arange "
        "indices).\n"
        "- Softmax-like reductions must keep the max subtraction (adversarial inputs are large).\n"
        "- Return float32 outputs allocated with buffer=nl.shared_hbm; write every element.\n";
    // The kernel is an @nki.jit function of the inputs that returns the
    // outputs (the current kernel shows its arguments): no C declaration,
    // no "How the kernel is called" section.
    b.must_define = [](const ProblemInfo& problem) {
      return FenceCode("@nki.jit\ndef " + problem.function + "(...):  # the current kernel's arguments\n", "python") +
             "as a top-level function (not indented, not inside a class).\n";
    };
    b.called_as = [](const ProblemInfo&) { return std::string(); };
    return b;
  }();
  return kNki;
}

}  // namespace accelopt::workflows
