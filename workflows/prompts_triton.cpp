#include "workflows/prompts_triton.hpp"

#include "workflows/prompts_cpu.hpp"
#include "workflows/prompts_cuda.hpp"

namespace accelopt::workflows {

std::string TritonSignature(const json& problem) {
  std::string names, tensors, scalars, dims;
  auto add = [](std::string* list, const std::string& n) { *list += (list->empty() ? "" : ", ") + n; };
  if (problem.contains("params") && problem["params"].is_array()) {
    for (const auto& p : problem["params"]) {
      const std::string n = p.value("name", ""), kind = p.value("kind", "");
      add(&names, n);
      if (kind == "input" || kind == "output")
        add(&tensors, n + (kind == "output" ? " (output)" : ""));
      else if (kind == "dim")
        add(&dims, n);
      else
        add(&scalars, n);
    }
  }
  std::string out = "def " + problem.value("function", std::string("kernel")) + "(" + names + ")\n";
  if (!tensors.empty()) out += "# " + tensors + ": flat contiguous float32 torch CUDA tensors\n";
  if (!scalars.empty()) out += "# " + scalars + ": Python floats\n";
  if (!dims.empty()) out += "# " + dims + ": Python ints\n";
  return out;
}

const BackendPrompts& TritonPrompts() {
  static const BackendPrompts kTriton = [] {
    BackendPrompts b;
    b.name = "triton";
    b.intro =
        "The kernel is one Python module using Triton. It defines the problem's function at top level; a "
        "separate runner process that owns the GPU executes the module and calls the function with the "
        "inputs and outputs as flat, contiguous float32 torch CUDA tensors (their length is the product of "
        "the shape in the description; index them row-major), scalars as Python floats and dims as Python "
        "ints, in the order shown. The function writes its outputs in place by launching @triton.jit "
        "kernels (kernel[grid](...)) on the current torch stream, and may return before they finish: the "
        "runner times each call with CUDA events on that stream, waits for the device, and flushes the L2 "
        "cache between timed calls.";
    b.rules =
        "Rules (checked before the kernel runs; a violation is rejected with the reason):\n"
        "- Imports: triton, triton.language (as tl), torch and math only.\n"
        "- fp32 or wider only: no float16, bfloat16, fp8 types or casts (the words are refused even in "
        "strings and names). tl.dot must pass input_precision=\"ieee\": Triton's default on fp32 is TF32, "
        "which keeps 10 mantissa bits; no tf32/tf32x3, no dot_scaled, no `@` operator.\n"
        "- Write the kernel yourself: torch only allocates scratch (torch.empty, empty_like, zeros, "
        "zeros_like, full, the dtypes; torch.cuda.current_stream/synchronize). Outside @triton.jit functions "
        "the code may only size, view and launch: tensor methods other than numel, stride, size, view, "
        "data_ptr, element_size, is_contiguous, dim are refused, and so are arithmetic and assignment on "
        "the tensors (no out[:] = ..., no x * 2 on the host).\n"
        "- No files, processes, clocks or introspection (open, eval, exec, getattr, dunder names, os, sys, "
        "time, ...), nothing of triton's runtime, driver, compiler, knobs or testing, no "
        "tl.inline_asm_elementwise, no triton.language.extra/libdevice. triton.autotune, triton.Config, "
        "triton.heuristics, triton.cdiv and triton.next_power_of_2 are fine.\n"
        "- Keep the function's name and parameters exactly as given. Do not cache results or inputs "
        "between calls, and do not special-case inputs.\n";
    b.compile = "Triton JIT in the runner (a fresh kernel cache every evaluation)";
    b.correctness = [](const json& p) {
      return CpuCorrectness(p) +
             "- Outputs are NaN-filled on the device before every call and copied out right after the "
             "call's stop event: work still running then (on a stream of your own that you did not "
             "synchronize) is missing from them and fails.\n";
    };
    b.hardware = CudaHardwareProse;
    b.fields = CudaPrompts().fields;
    b.planning =
        "How to plan: start from the profile — is the kernel far from the compute roofline or the memory "
        "roofline? Find the costliest inefficiency: one output per lane with scalar loops where a 2-D tile "
        "with tl.dot (input_precision=\"ieee\") or a blocked reduction would reuse data, uncoalesced "
        "gathers, block sizes that leave SMs idle or spill registers, several kernels or round trips "
        "through global memory that fusion removes. Prefer a plan that changes the kernel's structure "
        "(tiling, fusion, a different decomposition over program ids) over tuning a constant, and keep "
        "fp32.\n";
    b.pitfalls =
        "Executor pitfalls:\n"
        "- Block shapes in tl.arange and tl.constexpr sizes must be powers of two; mask every load and "
        "store at the tails (tl.load(..., mask=m, other=0.0)).\n"
        "- Indices: products of dims can pass 2^31; cast to tl.int64 before multiplying.\n"
        "- Coalescing: the fastest-varying index of a block should walk consecutive addresses.\n"
        "- tl.dot needs both operands at least 16 x 16 and input_precision=\"ieee\"; accumulate in fp32.\n"
        "- num_warps and num_stages trade occupancy for latency hiding; autotune over a few Configs keyed "
        "on the dims rather than guessing one.\n"
        "- Streams: launch on the current stream; anything on a stream of your own must finish before the "
        "function returns.\n"
        "- Scratch from torch.empty is uninitialized and may hold an earlier call's data: never rely on it.\n"
        "- Reductions in a different order than the reference are fine within the tolerance. A variable "
        "named half is refused by the precision check: name it otherwise.\n"
        "- Write every output element on every call (they are NaN before the call).\n";
    b.must_define = [](const ProblemInfo& problem) {
      return FenceCode(TritonSignature(problem.problem), "python") +
             "as a top-level function (not indented, not inside a class).\n";
    };
    b.called_as = [](const ProblemInfo& problem) { return FenceCode(TritonSignature(problem.problem), "python"); };
    return b;
  }();
  return kTriton;
}

}  // namespace accelopt::workflows
