// Static checks on an untrusted Triton candidate (one Python module), before
// the runner executes it (docs/evaluation.md, "triton runner"). On the
// module's tokens (evaluators/python/python_source.hpp):
//   - imports only of triton, triton.language, torch and math (no
//     triton.language.extra / libdevice, no triton.testing, no relative
//     imports);
//   - reduced precision: no float16, bfloat16, fp16, bf16, half, tf32,
//     float8*, fp8* as words, in code or strings;
//   - tensor cores on fp32 data: Triton's tl.dot rounds fp32 inputs to TF32
//     by default, so every `.dot(` call must pass input_precision="ieee"
//     (or the older allow_tf32=False); `input_precision` may only be "ieee";
//     `allow_tf32` only False; no dot_scaled; no `@` operator (in a kernel it
//     is tl.dot at the default precision, on the host a torch matmul);
//   - no torch doing the work: torch is for allocating scratch only
//     (torch.empty, empty_like, zeros, zeros_like, full and the dtypes
//     float32/int32/int64/int8/uint8/bool, torch.cuda.current_stream,
//     synchronize, current_device, Stream, stream); on the host (outside
//     @triton.jit functions) a method call on anything but the modules
//     triton, tl, math and torch must be one of numel, stride, size, view,
//     data_ptr, element_size, is_contiguous, dim (no .sum(), .copy_(),
//     .sigmoid(), ...), and no arithmetic operator or subscript assignment
//     may touch a tensor name: the problem's inputs and outputs
//     (`tensor_names`) and names bound to a torch allocation;
//   - no file, process, network or timing access and no introspection: the
//     names python::ForbiddenNames(), dunder names, triton's runtime,
//     driver, compiler, knobs, testing, and inline_asm_elementwise (PTX the
//     checks cannot read).
// What passes is still only a kernel the judge then runs: correctness and
// time are the judge's (the tensor-name rule is a heuristic: work that
// slipped past it would be torch's kernels, timed like any other).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"

namespace accelopt::eval::triton {

struct TritonViolation {
  int line = 0;
  // "reduced_precision" | "tensor_core" | "import" | "torch" | "forbidden_name" | "syntax"
  std::string rule;
  std::string message;  // one line
};

// Every violation, in source order (empty: the module passes).
std::vector<TritonViolation> FindTritonViolations(const std::string& source,
                                                  const std::vector<std::string>& tensor_names = {});

// Ok, or kPermissionDenied "line N: <the first violation>".
Status CheckTritonSource(const std::string& source, const std::vector<std::string>& tensor_names = {});

}  // namespace accelopt::eval::triton
