// The triton candidate checks (evaluators/triton/static_check.hpp): an
// honest naive kernel and every baseline of suites/triton pass; each
// forbidden thing is refused with its rule and line.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/json.hpp"
#include "evaluators/triton/static_check.hpp"

using namespace accelopt;
namespace tr = accelopt::eval::triton;

namespace {

const char kHonest[] = R"(# silu, one element per lane
import math
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 1024})], key=["n"])
@triton.jit
def silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = x / (1.0 + tl.exp(-x))
    acc = tl.dot(x[:, None] * 1.0, x[None, :], input_precision="ieee")
    tl.store(out_ptr + offs, y.to(tl.float32), mask=mask)


def silu(x, out, M, N):
    n = x.numel()
    scratch = torch.empty(n, dtype=torch.float32, device=x.device)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    silu_kernel[grid](x, out, n)
    return None
)";

std::string TritonCheckRead(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The rule of the first violation ("" when it passes).
std::string FirstRule(const std::string& source, const std::vector<std::string>& tensors = {"x", "out"}) {
  auto v = tr::FindTritonViolations(source, tensors);
  return v.empty() ? "" : v[0].rule;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(triton_static_check)

BOOST_AUTO_TEST_CASE(an_honest_kernel_passes) {
  auto v = tr::FindTritonViolations(kHonest, {"x", "out"});
  for (const auto& x : v) BOOST_TEST_MESSAGE("line " << x.line << ": " << x.message);
  BOOST_TEST(v.empty());
  BOOST_TEST(tr::CheckTritonSource(kHonest, {"x", "out"}).ok());
}

BOOST_AUTO_TEST_CASE(every_triton_suite_baseline_passes_with_the_cpu_reference) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(ACCELOPT_SOURCE_DIR) / "suites" / "triton";
  int seen = 0;
  for (const auto& d : fs::directory_iterator(root)) {
    if (!fs::is_directory(d)) continue;
    auto spec = ParseJson(TritonCheckRead((d.path() / "problem.json").string()));
    BOOST_REQUIRE(spec.ok());
    std::vector<std::string> tensors;
    for (const auto& p : (*spec)["params"])
      if (p["kind"] == "input" || p["kind"] == "output") tensors.push_back(p["name"]);
    Status st = tr::CheckTritonSource(TritonCheckRead((d.path() / "baseline.py").string()), tensors);
    BOOST_TEST(st.ok(), d.path().filename().string() << ": " << st.ToString());
    // The judge's references are the cpu suite's, unchanged (and the cuda suite's).
    const std::string name = d.path().filename().string();
    const std::string ref = TritonCheckRead((d.path() / "reference.cpp").string());
    BOOST_TEST(!ref.empty());
    BOOST_TEST(ref == TritonCheckRead((root / ".." / "cpu" / name / "reference.cpp").string()), name);
    BOOST_TEST(ref == TritonCheckRead((root / ".." / "cuda" / name / "reference.cpp").string()), name);
    ++seen;
  }
  BOOST_TEST(seen == 14);
}

BOOST_AUTO_TEST_CASE(each_forbidden_thing_is_refused_with_its_rule) {
  const std::string head = "import torch\nimport triton\nimport triton.language as tl\n";
  // Reduced precision and tensor cores.
  BOOST_TEST(FirstRule(head + "@triton.jit\ndef k(p):\n    x = tl.load(p).to(tl.float16)\n") == "reduced_precision");
  BOOST_TEST(FirstRule(head + "X = 'bfloat16'\n") == "reduced_precision");
  BOOST_TEST(FirstRule(head + "@triton.jit\ndef k(a, b):\n    c = tl.dot(a, b)\n") == "tensor_core");
  BOOST_TEST(FirstRule(head + "@triton.jit\ndef k(a, b):\n    c = tl.dot(a, b, input_precision=\"tf32x3\")\n") ==
             "tensor_core");
  BOOST_TEST(FirstRule(head + "@triton.jit\ndef k(a, b):\n    c = tl.dot(a, b, allow_tf32=True)\n") == "tensor_core");
  BOOST_TEST(FirstRule(head + "@triton.jit\ndef k(a, b):\n    c = tl.dot(a, b, allow_tf32=False)\n") == "");
  BOOST_TEST(FirstRule(head + "@triton.jit\ndef k(a, b):\n    c = a @ b\n") == "tensor_core");
  BOOST_TEST(FirstRule(head + "@triton.jit\ndef k(a, b):\n    c = tl.dot_scaled(a, 1, 'e4m3', b, 1, 'e4m3')\n") != "");
  // Imports.
  BOOST_TEST(FirstRule("import os\n") == "import");
  BOOST_TEST(FirstRule("import numpy as np\n") == "import");
  BOOST_TEST(FirstRule("from triton.language.extra import libdevice\n") == "import");
  BOOST_TEST(FirstRule("from . import helper\n") == "import");
  BOOST_TEST(FirstRule("from torch import matmul\n") == "torch");
  // torch doing the work.
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    torch.matmul(x, x, out=out)\n") == "torch");
  BOOST_TEST(FirstRule(head + "import torch as th\ndef silu(x, out, M, N):\n    th.sigmoid(x, out=out)\n") == "torch");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    torch.nn.functional.silu(x)\n") == "torch");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    torch.cuda.Event(enable_timing=True)\n") == "torch");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    out.copy_(x.sigmoid())\n") == "torch");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    out[:] = x\n") == "torch");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    y = x * 2\n") == "torch");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    s = torch.empty(4, device=x.device)\n    s += 1\n") ==
             "torch");
  // Not the work: sizes, views, launches, arithmetic on dims.
  BOOST_TEST(
      FirstRule(head + "def silu(x, out, M, N):\n    n = M * N\n    v = x.view(M, N)\n    k[(n,)](x, out, n)\n") == "");
  // Files, processes, clocks, introspection, triton's insides.
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    open('/tmp/x', 'w')\n") == "forbidden_name");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    x.__class__\n") == "forbidden_name");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    getattr(torch, 'mat' + 'mul')(x, x)\n") ==
             "forbidden_name");
  BOOST_TEST(FirstRule(head + "def silu(x, out, M, N):\n    triton.testing.do_bench(lambda: 0)\n") == "forbidden_name");
  BOOST_TEST(FirstRule(head + "@triton.jit\ndef k(p):\n    tl.inline_asm_elementwise('mov.b32 $0, $1;', '=r,r', [p], "
                              "dtype=tl.int32, is_pure=True, pack=1)\n") == "forbidden_name");
  BOOST_TEST(FirstRule("x = 'unterminated\n") == "syntax");
  // The message names the line.
  Status st = tr::CheckTritonSource(head + "\n\ndef silu(x, out, M, N):\n    torch.softmax(x, 0)\n", {"x", "out"});
  BOOST_TEST(st.code() == Code::kPermissionDenied);
  BOOST_TEST(st.message().find("line 7: torch.softmax") == 0, st.message());
}

BOOST_AUTO_TEST_SUITE_END()
