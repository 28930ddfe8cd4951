// The nki judge's trusted pieces: the float64 comparison, the three-engine
// roofline and its data file, the neuron-profile summary parser, the static
// checks (a corpus of forbidden kernels) and the paper's timing rule (the
// NeuronCore slot pool: nki_core_pool_test.cpp).
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <thread>

#include "evaluators/nki/core_pool.hpp"
#include "evaluators/nki/judge_compare.hpp"
#include "evaluators/nki/output_files.hpp"
#include "evaluators/nki/profile.hpp"
#include "evaluators/nki/roofline.hpp"
#include "evaluators/nki/static_check.hpp"
#include "evaluators/nki/timing.hpp"
#include "tests/evaluators/nki_test_util.hpp"
#include "workflows/problem_json.hpp"

using namespace accelopt;
using namespace accelopt::eval::nki;
using namespace accelopt::eval::nki::testing;
namespace fs = std::filesystem;

namespace {

workflows::ProblemSpec Spec(const std::string& text) {
  auto j = ParseJson(text);
  BOOST_REQUIRE(j.ok());
  auto p = workflows::ParseProblemSpec(*j, "t/problem.json");
  BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
  return *p;
}

// NKIBench's silu and matmul at the paper's sizes (FLOPs and bytes as the
// importer's catalog counts them).
workflows::ProblemSpec PaperSilu() {
  return Spec(R"({"name": "silu", "backend": "nki", "function": "kernel",
    "params": [{"name": "x", "kind": "input", "shape": ["M", "N"], "distribution": {"kind": "normal"}},
               {"name": "out", "kind": "output", "shape": ["M", "N"]}],
    "dims": {"M": 4096, "N": 7168}, "flops": 88080384, "matmul_flops": 0, "bytes": 234881024})");
}
workflows::ProblemSpec PaperMatmul() {
  return Spec(R"({"name": "matmul", "backend": "nki", "function": "kernel",
    "params": [{"name": "lhs", "kind": "input", "shape": ["M", "K"], "distribution": {"kind": "normal"}},
               {"name": "rhs", "kind": "input", "shape": ["K", "N"], "distribution": {"kind": "normal"}},
               {"name": "out", "kind": "output", "shape": ["M", "N"]}],
    "dims": {"M": 4096, "N": 12288, "K": 5120}, "flops": 515396075520, "matmul_flops": 515396075520,
    "bytes": 536870912})");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nki_judge_compare)

BOOST_AUTO_TEST_CASE(relative_l2_against_the_float64_reference) {
  auto p = Spec(R"({"name": "t", "backend": "nki", "function": "kernel", "tolerance": 2e-5,
    "params": [{"name": "x", "kind": "input", "shape": [4], "distribution": {"kind": "normal"}},
               {"name": "a", "kind": "output", "shape": [4]}, {"name": "b", "kind": "output", "shape": [2, 2]}],
    "dims": {}, "flops": 1, "bytes": 48})");
  std::vector<std::vector<double>> want = {{1, 2, 3, 4}, {1e-3, -2, 0.5, 8}};
  std::vector<std::vector<float>> got = {{1, 2, 3, 4}, {1e-3f, -2, 0.5f, 8}};
  auto v = JudgeCase(p, got, want);
  BOOST_TEST(v.ok, v.reason);
  BOOST_TEST(v.worst_rel < 1e-7);

  got[1][3] = 8.001f;  // relative L2 about 1.2e-4 > 2e-5
  v = JudgeCase(p, got, want);
  BOOST_TEST(!v.ok);
  BOOST_TEST(v.reason.find("output 'b' relative L2 error") != std::string::npos, v.reason);
  BOOST_TEST(v.reason.find("at index 3") != std::string::npos, v.reason);

  got[1][3] = std::nanf("");
  v = JudgeCase(p, got, want);
  BOOST_TEST(v.reason.find("output 'b' has 1 NaN/Inf values") != std::string::npos, v.reason);

  got[1] = {1, 2, 3};  // a kernel that returned the wrong shape
  v = JudgeCase(p, got, want);
  BOOST_TEST(v.reason.find("output 'b' has 3 elements, expected 4") != std::string::npos, v.reason);
  v = JudgeCase(p, {got[0]}, want);
  BOOST_TEST(v.reason.find("returned 1 outputs; the problem has 2") != std::string::npos, v.reason);
}

BOOST_AUTO_TEST_CASE(a_float32_rounding_of_the_reference_passes_and_a_skipped_step_fails) {
  // The softmax whose max-subtraction is skipped is exact on N(0,1) but not
  // on large inputs: the comparison has to see a real error, not noise.
  auto p = Spec(R"({"name": "t", "backend": "nki", "function": "kernel",
    "params": [{"name": "x", "kind": "input", "shape": [64], "distribution": {"kind": "normal"}},
               {"name": "y", "kind": "output", "shape": [64]}], "dims": {}, "flops": 1, "bytes": 512})");
  std::vector<double> ref(64);
  std::vector<float> good(64), bad(64);
  for (int i = 0; i < 64; ++i) {
    ref[i] = std::exp(-0.1 * i) / 3.0;
    good[i] = static_cast<float>(ref[i]);
    bad[i] = static_cast<float>(ref[i] * (1 + 1e-4 * (i % 3)));
  }
  BOOST_TEST(JudgeCase(p, {good}, {ref}).ok);
  BOOST_TEST(!JudgeCase(p, {bad}, {ref}).ok);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(nki_roofline)

BOOST_AUTO_TEST_CASE(trn1_is_the_papers_roofline_with_the_docs_vector_peak) {
  auto trn1 = FindGeneration("trn1");
  BOOST_REQUIRE_MESSAGE(trn1.ok(), trn1.status().ToString());
  BOOST_TEST(trn1->matmul_flops_per_s == 23.75e12);
  // The bound: the docs' VectorEngine 2.3 + ScalarEngine 2.9 TFLOPS; the
  // paper's 286.72 GFLOP/s is kept beside it, not used as the bound (it
  // made strong vector kernels "faster than the roofline").
  BOOST_TEST(*trn1->vector_flops_per_s == 5.2e12);
  BOOST_TEST(*trn1->paper_vector_flops_per_s == 2 * 128 * 1.12e9);
  // One cited line per figure.
  for (const char* f : {"matmul_flops_per_s", "vector_flops_per_s", "paper_vector_flops_per_s", "hbm_bytes_per_s",
                        "cores_per_chip", "sbuf_bytes", "psum_bytes", "partitions"})
    BOOST_TEST(!trn1->sources.at(f).empty(), f);
  BOOST_TEST(trn1->hbm_bytes_per_s == 410.0 * 1024 * 1024 * 1024);
  BOOST_TEST(trn1->partitions == 128);
  BOOST_TEST(!trn1->source.empty());

  // silu: memory-bound, 234881024 B / 410 GiB/s = 533.5 us.
  auto silu = ComputeRoofline(PaperSilu(), *trn1);
  BOOST_REQUIRE(silu.ok());
  BOOST_TEST(silu->limiter == "memory");
  BOOST_TEST(silu->peak_s * 1e6 == 533.54, boost::test_tools::tolerance(1e-3));
  BOOST_TEST(silu->vector_s * 1e6 == 307.2 * 286.72e9 / 5.2e12, boost::test_tools::tolerance(1e-3));
  // The paper's silu baseline ran at 40% of peak: 1333.9 us.
  BOOST_TEST(*PercentOfPeak(*silu, 1333.85e-6) == 40.0, boost::test_tools::tolerance(1e-3));

  // matmul: matrix-bound, 515396075520 / 23.75e12 = 21.7 ms.
  auto mm = ComputeRoofline(PaperMatmul(), *trn1);
  BOOST_REQUIRE(mm.ok());
  BOOST_TEST(mm->limiter == "matmul");
  BOOST_TEST(mm->peak_s * 1e3 == 21.7009, boost::test_tools::tolerance(1e-4));
  BOOST_TEST(mm->vector_s == 0.0);
}

BOOST_AUTO_TEST_CASE(faster_than_the_roofline_is_refused_not_a_crash) {
  auto trn1 = FindGeneration("trn1");
  auto silu = ComputeRoofline(PaperSilu(), *trn1);
  auto pct = PercentOfPeak(*silu, 400e-6);
  BOOST_TEST(!pct.ok());
  // Not kInternal: the judge turns it into the verdict "suspicious".
  BOOST_TEST((pct.status().code() == Code::kFailedPrecondition));
  const std::string figures = RooflineFigures(*silu, *trn1);
  BOOST_TEST(figures.find("memory ") != std::string::npos, figures);
  BOOST_TEST(figures.find("23.75 TFLOP/s matmul") != std::string::npos, figures);
  BOOST_TEST(pct.status().message().find("faster than the memory roofline") != std::string::npos,
             pct.status().message());
  BOOST_TEST(*PercentOfPeak(*silu, silu->peak_s) == 100.0);
  BOOST_TEST(!PercentOfPeak(*silu, 0).ok());
  BOOST_TEST(!PercentOfPeak(*silu, std::nan("")).ok());
}

BOOST_AUTO_TEST_CASE(undocumented_constants_are_refused_not_guessed) {
  auto trn2 = FindGeneration("trn2");
  BOOST_REQUIRE(trn2.ok());
  BOOST_TEST(*trn2->vector_flops_per_s == 2.2e12);  // Vector 1.0 + Scalar 1.2 TFLOPS
  BOOST_TEST(trn2->hbm_bytes_per_s == 437.5e9);     // the DMA figure, 3.5 TB/s / 8 (larger than 2.9 TB/s / 8)
  BOOST_TEST(trn2->matmul_flops_per_s == 181e12 / 8);
  BOOST_TEST(ComputeRoofline(PaperSilu(), *trn2).ok());
  auto trn3 = FindGeneration("trn3");
  BOOST_REQUIRE(trn3.ok());
  BOOST_TEST(*trn3->vector_flops_per_s == 2.4e12);  // NeuronCore-v4: Vector 1.2 + Scalar 1.2 TFLOPS
  BOOST_TEST(ComputeRoofline(PaperSilu(), *trn3).ok());
  Generation undocumented = *trn3;
  undocumented.vector_flops_per_s.reset();
  auto silu = ComputeRoofline(PaperSilu(), undocumented);
  BOOST_TEST((silu.status().code() == Code::kFailedPrecondition));
  BOOST_TEST(silu.status().message().find("no documented vector-engine peak for trn3") != std::string::npos);
  BOOST_TEST(ComputeRoofline(PaperMatmul(), *trn3).ok());  // no vector FLOPs: computable
  BOOST_TEST(FindGeneration("trn3").ok());
  BOOST_TEST(FindGeneration("trn9").status().message().find("known: trn1, trn2, trn3") != std::string::npos);
}

// A slot under LNC=2 is a logical core of two physical ones: its peaks
// are twice trainium.json's per-core constants, so a kernel using both
// cores is not flagged faster than the roofline.
BOOST_AUTO_TEST_CASE(rooflines_are_per_logical_core) {
  auto trn2 = FindGeneration("trn2");
  BOOST_REQUIRE(trn2.ok());
  Generation two = PerLogicalCore(*trn2, 2);
  BOOST_TEST(two.matmul_flops_per_s == 2 * trn2->matmul_flops_per_s);
  BOOST_TEST(*two.vector_flops_per_s == 2 * *trn2->vector_flops_per_s);
  BOOST_TEST(two.hbm_bytes_per_s == 2 * trn2->hbm_bytes_per_s);
  BOOST_TEST(two.name == "trn2 (LNC=2)");
  auto one = ComputeRoofline(PaperSilu(), *trn2);
  auto both = ComputeRoofline(PaperSilu(), two);
  BOOST_REQUIRE(one.ok() && both.ok());
  BOOST_TEST(both->peak_s == one->peak_s / 2, boost::test_tools::tolerance(1e-12));
  // A latency between the two rooflines: suspicious on one core, fine on two.
  const double t = one->peak_s * 0.75;
  BOOST_TEST(!PercentOfPeak(*one, t).ok());
  BOOST_TEST(PercentOfPeak(*both, t).ok());
  BOOST_TEST(PerLogicalCore(*trn2, 1).hbm_bytes_per_s == trn2->hbm_bytes_per_s);
}

BOOST_AUTO_TEST_CASE(the_data_file_is_checked) {
  auto bad = [](const std::string& text) {
    auto r = ParseGenerations(*ParseJson(text), "t.json");
    BOOST_REQUIRE(!r.ok());
    return r.status().message();
  };
  const std::string base = R"("matmul_flops_per_s": 1, "vector_flops_per_s": null, "hbm_bytes_per_s": 1,
      "cores_per_chip": 2, "sbuf_bytes": 1, "psum_bytes": 1, "partitions": 128)";
  BOOST_TEST(bad(R"({"generations": {"x": {)" + base + "}}}").find("generations.x.sources") != std::string::npos);
  // A figure without its own citation.
  BOOST_TEST(bad(R"({"generations": {"x": {)" + base + R"(, "sources": {"matmul_flops_per_s": "s"}}}})")
                 .find("generations.x.sources.cores_per_chip") != std::string::npos);
  BOOST_TEST(
      bad(R"({"generations": {"x": {"matmul_flops_per_s": -1}}})").find("matmul_flops_per_s: must be a positive") !=
      std::string::npos);
  const std::string all = R"("sources": {"matmul_flops_per_s": "a", "vector_flops_per_s": "b", "hbm_bytes_per_s": "c",
      "cores_per_chip": "d", "sbuf_bytes": "e", "psum_bytes": "f", "partitions": "g"})";
  BOOST_TEST(ParseGenerations(*ParseJson(R"({"generations": {"x": {)" + base + ", " + all + "}}}"), "t").ok());
  // matmul_flops beyond flops is refused by the problem schema.
  auto j = ParseJson(R"({"name": "t", "backend": "nki", "function": "kernel",
    "params": [{"name": "y", "kind": "output", "shape": [4]}], "dims": {}, "flops": 10, "matmul_flops": 11, "bytes": 16})");
  auto p = workflows::ParseProblemSpec(*j, "t/problem.json");
  BOOST_TEST(p.status().message().find("t/problem.json: matmul_flops: must be in [0, flops]") != std::string::npos,
             p.status().message());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(nki_profile)

BOOST_AUTO_TEST_CASE(parses_the_summary_fixture) {
  const std::string file = std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/nki_profiles/summary.json";
  auto p = ParseProfileSummary(ReadText(file), file);
  BOOST_REQUIRE_MESSAGE(p.ok(), p.status().ToString());
  BOOST_TEST(p->kernel == "kernel_file");
  BOOST_TEST(p->total_time_s == 0.000412);
  BOOST_TEST(p->fields.size() == 15u);
  BOOST_TEST(p->fields.at("hbm_read_bytes") == 117440512.0);
  BOOST_TEST(p->fields.at("peak_flops_bandwidth_ratio") == 57.93);  // a numeric string
  BOOST_TEST(p->fields.at("hfu_estimated_percent") == 0.89);
  BOOST_TEST(!p->fields.count("dma_active_time_percent"));  // not one of the 16
  BOOST_REQUIRE(p->missing.size() == 1u);
  BOOST_TEST(p->missing[0] == "gpsimd_engine_active_time_percent");  // null counts as missing
  json j = p->ToJson();
  BOOST_TEST(j["total_time_us"].get<double>() == 412.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(kProfileFields.size() == 16u);
}

// neuron-explorer (Neuron 2.29 and later) and a neuron-profile summary with
// several top-level members: the summary is found by its content, in any
// order (the old parser took the first member of the sorted object and
// failed on both).
BOOST_AUTO_TEST_CASE(reads_both_summary_schemas_with_members_in_any_order) {
  auto explorer = ParseProfileSummary(
      R"({"tool": {"name": "neuron-explorer"}, "summary": [{"total_time": 0.0002, "hbm_read_bytes": 5}], "accelopt_x": true})",
      "e.json");
  BOOST_REQUIRE_MESSAGE(explorer.ok(), explorer.status().ToString());
  BOOST_TEST(explorer->kernel == "summary");
  BOOST_TEST(explorer->total_time_s == 0.0002);
  BOOST_TEST(explorer->fields.at("hbm_read_bytes") == 5.0);
  auto several = ParseProfileSummary(
      R"({"zz_kernel": {"total_time": "0.001"}, "metadata": {"version": "2.28"}, "aa_notes": "x"})", "p.json");
  BOOST_REQUIRE_MESSAGE(several.ok(), several.status().ToString());
  BOOST_TEST(several->kernel == "zz_kernel");
  BOOST_TEST(several->total_time_s == 0.001);
}

// Flat layouts (metrics at the top level) and the device time in ms
// ("latency") as well as in seconds ("total_time"); the layout is named.
BOOST_AUTO_TEST_CASE(reads_flat_summaries_in_seconds_or_milliseconds) {
  auto ms = ParseProfileSummary(R"({"latency": 0.25, "hbm_read_bytes": 7, "tool": "x"})", "f.json");
  BOOST_REQUIRE_MESSAGE(ms.ok(), ms.status().ToString());
  BOOST_TEST(ms->total_time_s == 0.00025, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(ms->layout == "flat latency (ms)");
  BOOST_TEST(ms->kernel.empty());
  BOOST_TEST(ms->fields.at("hbm_read_bytes") == 7.0);
  auto s = ParseProfileSummary(R"({"total_time": 0.003})", "f.json");
  BOOST_REQUIRE(s.ok());
  BOOST_TEST(s->total_time_s == 0.003);
  BOOST_TEST(s->layout == "flat total_time (s)");
  auto nested_ms = ParseProfileSummary(R"({"k": [{"latency": "2"}]})", "f.json");
  BOOST_REQUIRE(nested_ms.ok());
  BOOST_TEST(nested_ms->total_time_s == 0.002, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(nested_ms->layout == "nested latency (ms)");
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_a_summary) {
  auto err = [](const std::string& text) {
    auto r = ParseProfileSummary(text, "p.json");
    BOOST_REQUIRE(!r.ok());
    return r.status().message();
  };
  BOOST_TEST(err("{}").find("p.json: not a profile summary") != std::string::npos);
  BOOST_TEST(err(R"({"k": {"hbm_read_bytes": 1}})").find("p.json: an unknown summary layout") != std::string::npos);
  BOOST_TEST(err(R"({"latency": -2})").find("latency: must be a positive number of milliseconds") != std::string::npos);
  BOOST_TEST(err(R"({"a": {"total_time": 1}, "b": {"total_time": 2}})").find("ambiguous") != std::string::npos);
  BOOST_TEST(err(R"({"k": {"total_time": 0}})").find("total_time: must be a positive") != std::string::npos);
  BOOST_TEST(err(R"({"k": {"total_time": "fast"}})").find("total_time: must be a positive") != std::string::npos);
  BOOST_TEST(err(R"({"k": {"total_time": 1, "hbm_read_bytes": [1]}})").find("k.hbm_read_bytes: must be a number") !=
             std::string::npos);
  BOOST_TEST(err("neuron-profile: error: no such file").find("p.json") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(nki_static_check)

BOOST_AUTO_TEST_CASE(every_forbidden_kernel_is_refused_for_its_reason) {
  const std::string dir = std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/nki_cheats";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string text = ReadText(e.path().string());
    BOOST_REQUIRE_MESSAGE(text.rfind("# expect: ", 0) == 0, e.path().string() + " has no '# expect:' line");
    const std::string want = text.substr(10, text.find('\n') - 10);
    Status st = CheckKernelSource(text);
    BOOST_TEST(!st.ok(), e.path().filename().string() + " passed the static check");
    BOOST_TEST((st.code() == Code::kPermissionDenied));
    BOOST_TEST(st.message().find(want) != std::string::npos,
               e.path().filename().string() + ": '" + st.message() + "' does not say '" + want + "'");
    ++n;
  }
  BOOST_TEST(n >= 15);
}

BOOST_AUTO_TEST_CASE(plain_nki_kernels_pass) {
  for (const auto& e : fs::directory_iterator(kFixture + "/kernels")) {
    auto v = FindViolations(ReadText(e.path().string()));
    BOOST_TEST(v.empty(), e.path().filename().string() + ": " + (v.empty() ? "" : v[0].message));
  }
  // NKIBench-style details: imports inside the kernel, par_dim, string
  // statements as loop markers, uint16 memsets, float32 everywhere, the words
  // in comments.
  const std::string k = R"(import numpy as np
import math
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim
from neuronxcc import nki as nki2
import nki.language as nl2

@nki.jit
def kernel(v1):  # no bfloat16 here: fp32 only
    import numpy as np
    v2 = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.shared_hbm)
    v3 = nl.ndarray((nl.par_dim(128), 1), dtype=np.float32, name='memset.1', buffer=nl.sbuf)
    v3[...] = nisa.memset(shape=(128, 1), value=np.dtype(np.uint16).type(0), dtype=np.float32)
    for i0 in nl.affine_range(4):
        t = nl.load(v1[i0])
        ' end loop i0 '
    profile = 3  # a variable may be called profile
    return v2
)";
  auto v = FindViolations(k);
  const std::string first = v.empty() ? std::string() : "line " + std::to_string(v[0].line) + ": " + v[0].message;
  BOOST_TEST(v.empty(), first);
}

BOOST_AUTO_TEST_CASE(reports_lines_and_every_violation) {
  auto v = FindViolations("import numpy as np\nx = 1\nimport os, sys\ny = np.float16\n");
  BOOST_REQUIRE(v.size() == 5u);  // import os, import sys, 'os', 'sys' names, float16
  BOOST_TEST(v[0].line == 3);
  BOOST_TEST(v[0].rule == "import");
  BOOST_TEST(v.back().line == 4);
  BOOST_TEST(v.back().rule == "reduced_precision");
  BOOST_TEST(CheckKernelSource("x = 'a'  # float16 in a comment is fine\n").ok());
  BOOST_TEST(!CheckKernelSource("x = r'bf16'\n").ok());
  BOOST_TEST(!CheckKernelSource("x = '''\nmulti\nline FP16\n'''\n").ok());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(nki_timing)

std::vector<double> Samples(double base, double spread) {
  std::vector<double> s;
  for (int i = 0; i < 10; ++i) s.push_back(base * (1 + spread * (i % 2)));
  return s;
}

BOOST_AUTO_TEST_CASE(the_papers_rule) {
  TimingRule rule;
  BOOST_TEST(rule.warmup == 2);
  BOOST_TEST(rule.iterations == 10);
  std::vector<TimingRound> rounds;
  BOOST_TEST(NeedAnotherRound(rounds, rule));
  rounds.push_back(*SummarizeRound(Samples(100e-6, 0.005)));  // 0.5%: done
  BOOST_TEST(!NeedAnotherRound(rounds, rule));
  auto t = ChooseRound(rounds, rule);
  BOOST_REQUIRE(t.ok());
  BOOST_TEST(t->stable);
  BOOST_TEST(t->latency_s == 100.25e-6, boost::test_tools::tolerance(1e-9));

  rounds = {*SummarizeRound(Samples(100e-6, 0.05))};  // 5%: another round
  BOOST_TEST(NeedAnotherRound(rounds, rule));
  rounds.push_back(*SummarizeRound(Samples(90e-6, 0.02)));
  BOOST_TEST(NeedAnotherRound(rounds, rule));
  rounds.push_back(*SummarizeRound(Samples(95e-6, 0.03)));
  BOOST_TEST(!NeedAnotherRound(rounds, rule));  // three rounds at most
  t = ChooseRound(rounds, rule);
  BOOST_REQUIRE(t.ok());
  BOOST_TEST(t->kept == 1u);  // the smallest (max - min) / min
  BOOST_TEST(!t->stable);
  BOOST_TEST(t->latency_s == 90.9e-6, boost::test_tools::tolerance(1e-9));
  json j = t->ToJson();
  BOOST_TEST(j["rounds"].size() == 3u);
  BOOST_TEST(j["rounds"][2]["samples_us"].size() == 10u);  // raw samples kept
  BOOST_TEST(j["clock"].get<std::string>().find("device") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(refuses_bad_rounds) {
  TimingRule rule;
  BOOST_TEST(!SummarizeRound({}).ok());
  BOOST_TEST(!SummarizeRound({1e-6, -1}).ok());
  BOOST_TEST(!ChooseRound({}, rule).ok());
  BOOST_TEST(!ChooseRound({*SummarizeRound({1e-6, 2e-6})}, rule).ok());  // 2 samples, not 10
  std::vector<TimingRound> four(4, *SummarizeRound(Samples(1e-6, 0.5)));
  BOOST_TEST(!ChooseRound(four, rule).ok());
}

BOOST_AUTO_TEST_SUITE_END()

#include "workflows/prompt_backend.hpp"
#include "workflows/prompts_nki.hpp"

BOOST_AUTO_TEST_SUITE(nki_prompts)

BOOST_AUTO_TEST_CASE(the_glossary_covers_exactly_the_parsed_profile_fields) {
  const auto& b = workflows::BackendPromptsFor("nki");
  BOOST_TEST(b.name == "nki");
  BOOST_REQUIRE(b.fields.size() == kProfileFields.size());
  for (size_t i = 0; i < b.fields.size(); ++i) {
    BOOST_TEST(b.fields[i].key == std::string(kProfileFields[i]));
    BOOST_TEST(!b.fields[i].meaning.empty());
  }
  // The rules state what the static check refuses.
  for (const char* w : {"bfloat16", "float16", "numpy", "open", "nki.baremetal"})
    BOOST_TEST(b.rules.find(w) != std::string::npos, w);
  BOOST_TEST(CheckKernelSource("import numpy as np\nimport math\nimport neuronxcc.nki.language as nl\n").ok());
  BOOST_TEST(b.pitfalls.find("at most 128") != std::string::npos);
  BOOST_TEST(b.pitfalls.find("sequential_range") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(hardware_prose_from_the_generation_table) {
  auto gen = FindGeneration("trn1");
  BOOST_REQUIRE(gen.ok());
  json g = {{"core", gen->core},
            {"matmul_flops_per_s", gen->matmul_flops_per_s},
            {"vector_flops_per_s", *gen->vector_flops_per_s},
            {"hbm_bytes_per_s", gen->hbm_bytes_per_s},
            {"sbuf_bytes", gen->sbuf_bytes},
            {"psum_bytes", gen->psum_bytes},
            {"partitions", gen->partitions}};
  const std::string s = workflows::NkiHardwareProse(g);
  BOOST_TEST(s.find("NeuronCore-v2") != std::string::npos, s);
  BOOST_TEST(s.find("23.75 TFLOP/s") != std::string::npos, s);
  BOOST_TEST(s.find("5200 GFLOP/s") != std::string::npos, s);  // the docs' Vector + Scalar figure
  BOOST_TEST(s.find("NKI language") == std::string::npos, s);  // no SDK detected: not said
  g["nki_path"] = "nki";
  g["neuron_sdk"] = "2.29";
  const std::string beta2 = workflows::NkiHardwareProse(g);
  BOOST_TEST(beta2.find("NKI language: the nki package (Neuron 2.29") != std::string::npos, beta2);
  g["nki_path"] = "neuronxcc";
  g["neuron_sdk"] = "2.27";
  BOOST_TEST(workflows::NkiHardwareProse(g).find("NKI language: neuronxcc.nki (Neuron 2.27") != std::string::npos);
  BOOST_TEST(s.find("SBUF: 24 MiB in 128 partitions; PSUM: 2 MiB") != std::string::npos, s);
  BOOST_TEST(workflows::NkiHardwareProse(json::object()) == "(none recorded)\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(nki_prompts_facts)

BOOST_AUTO_TEST_CASE(the_daemons_campaign_facts_carry_the_generation_under_nki) {
  // The daemon passes one hardware object to all campaigns: the cpu
  // calibration with the nki generation's facts under "nki".
  json facts = {{"peak_gflops", 1}, {"nki", GenerationFacts(*FindGeneration("trn3"))}};
  const std::string s = workflows::NkiHardwareProse(facts);
  BOOST_TEST(s.find("NeuronCore-v4") != std::string::npos, s);
  BOOST_TEST(s.find("22.88 TFLOP/s") != std::string::npos, s);
  BOOST_TEST(GenerationFacts(*FindGeneration("trn3"))["vector_flops_per_s"] == 2.4e12);
}

BOOST_AUTO_TEST_SUITE_END()

// Outputs handed over as files (evaluators/nki/output_files.hpp): checked
// against their records, compared in chunks with the same result as the
// whole-array comparison.
BOOST_AUTO_TEST_SUITE(nki_output_files)

namespace {
template <typename T>
void WriteArray(const std::string& path, const std::vector<T>& v) {
  WriteText(path, std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)));
}
}  // namespace

BOOST_AUTO_TEST_CASE(chunked_comparison_equals_the_whole_one) {
  TempDir tmp;
  const int64_t n = 10007;  // not a multiple of the chunk
  std::vector<float> got(n);
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) {
    want[static_cast<size_t>(i)] = std::sin(0.001 * static_cast<double>(i)) * 3;
    got[static_cast<size_t>(i)] = static_cast<float>(want[static_cast<size_t>(i)] * (1 + 1e-6 * (i % 7)));
  }
  got[4242] += 0.5f;  // the worst element
  WriteArray(tmp.sub("got.f32"), got);
  WriteArray(tmp.sub("want.f64"), want);
  OutputFile g{tmp.sub("got.f32"), n, 4}, w{tmp.sub("want.f64"), n, 8};
  auto whole = eval::compare::CompareOutput(got.data(), want.data(), n);
  eval::compare::WorstElement(got.data(), want.data(), n, &whole);
  for (int64_t chunk : {int64_t{1}, int64_t{1000}, int64_t{1} << 20}) {
    auto c = CompareOutputFiles(g, w, Env::Default(), chunk);
    BOOST_REQUIRE(c.ok());
    BOOST_TEST(c->rel == whole.rel, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(c->max_idx == 4242);
    BOOST_TEST(c->max_idx == whole.max_idx);
  }
  got[17] = std::nanf("");
  got[9000] = INFINITY;
  WriteArray(tmp.sub("got.f32"), got);
  auto bad = CompareOutputFiles(g, w, Env::Default(), 1000);
  BOOST_REQUIRE(bad.ok());
  BOOST_TEST(bad->nonfinite == 2);
  BOOST_TEST(bad->first_nonfinite == 17);
}

BOOST_AUTO_TEST_CASE(a_record_must_name_a_file_of_its_size_in_the_folder) {
  TempDir tmp;
  WriteText(tmp.sub("c0_k0.f32"), std::string(16, '\0'));
  auto ok = OutputFileOf({{"file", "c0_k0.f32"}, {"elements", 4}, {"nbytes", 16}}, tmp.path(), 4, Env::Default());
  BOOST_REQUIRE_MESSAGE(ok.ok(), ok.status().ToString());
  BOOST_TEST(ok->elements == 4);
  auto err = [&](const json& h) {
    auto r = OutputFileOf(h, tmp.path(), 4, Env::Default());
    BOOST_REQUIRE(!r.ok());
    return r.status().message();
  };
  BOOST_TEST(err({{"file", "../etc/passwd"}, {"elements", 4}, {"nbytes", 16}}).find("not a plain file name") !=
             std::string::npos);
  BOOST_TEST(err({{"file", ".."}, {"elements", 4}, {"nbytes", 16}}).find("not a plain file name") != std::string::npos);
  BOOST_TEST(err({{"elements", 4}, {"nbytes", 16}}).find("names no file") != std::string::npos);
  BOOST_TEST(err({{"file", "c0_k0.f32"}, {"elements", 5}, {"nbytes", 20}}).find("the file holds 16 bytes") !=
             std::string::npos);
  BOOST_TEST(err({{"file", "c0_k0.f32"}, {"elements", 4}, {"nbytes", 20}}).find("20 bytes for 4 elements") !=
             std::string::npos);
  BOOST_TEST(err({{"file", "missing"}, {"elements", 4}, {"nbytes", 16}}).find("cannot stat") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
