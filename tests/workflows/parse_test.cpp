// Reply parsing: code from the first fenced block with the required
// function, plans and summaries into fields.
#include <boost/test/unit_test.hpp>

#include "workflows/parse.hpp"

namespace accelopt::workflows {
namespace {

const char kGood[] = "extern \"C\" void silu(const float* x, float* out, int64_t M, int64_t N) {\n  // ...\n}\n";

BOOST_AUTO_TEST_CASE(first_fenced_block_is_taken) {
  const std::string reply = std::string("Sure.\n```cpp\n") + kGood + "```\nAnd a test:\n```cpp\nint main() {}\n```\n";
  ParsedCode code = ParseExecutorReply(reply, "silu", "cpu");
  BOOST_TEST(code.ok());
  BOOST_TEST(code.code == kGood);
}

BOOST_AUTO_TEST_CASE(bad_replies_are_failures_with_reasons) {
  BOOST_TEST(ParseExecutorReply("I'd unroll it.", "silu", "cpu").failure == kNoCodeBlock);
  BOOST_TEST(ParseExecutorReply("", "silu", "cpu").failure == kNoCodeBlock);
  BOOST_TEST(ParseExecutorReply(std::string("```cpp\n") + kGood, "silu", "cpu").failure == kTruncatedCode);
  BOOST_TEST(ParseExecutorReply(std::string("```cpp\n") + kGood + "```", "gelu", "cpu").failure == kMissingFunction);
  // Declaration only, or only mentioned in a comment or string.
  BOOST_TEST(
      !DefinesExternCFunction("extern \"C\" void silu(const float* x, float* out, int64_t M, int64_t N);", "silu"));
  BOOST_TEST(!DefinesExternCFunction("// extern \"C\" void silu(float* x) {}\n", "silu"));
  BOOST_TEST(!DefinesExternCFunction("const char* s = \"extern \\\"C\\\" void silu() {}\";", "silu"));
  // A longer name is not the function.
  BOOST_TEST(!DefinesExternCFunction("extern \"C\" void silu_fast(float* x) {}", "silu"));
  // No C linkage.
  BOOST_TEST(!DefinesExternCFunction("void silu(float* x) {}", "silu"));
}

BOOST_AUTO_TEST_CASE(definitions_in_several_styles_are_found) {
  BOOST_TEST(DefinesExternCFunction(kGood, "silu"));
  BOOST_TEST(DefinesExternCFunction("extern \"C\" {\nvoid silu(float* x)\n{\n}\n}", "silu"));
  BOOST_TEST(
      DefinesExternCFunction("static inline float f(float v) { return v; }\n"
                             "extern \"C\" void silu(const float* __restrict x, float* out) noexcept {\n}\n",
                             "silu"));
  BOOST_TEST(DefinesExternCFunction("extern \"C\" void\nsilu (const float* x,\n  float* y)\n{}", "silu"));
  // Tilde fences and indented fences count.
  BOOST_TEST(ParseExecutorReply(std::string("~~~\n") + kGood + "~~~\n", "silu", "cpu").ok());
  BOOST_TEST(ParseExecutorReply(std::string("  ```c++\n") + kGood + "  ```\n", "silu", "cpu").ok());
}

// nki kernels are Python modules: the kernel function is a top-level def.
const char kNkiGood[] =
    "import neuronxcc.nki as nki\n"
    "import neuronxcc.nki.language as nl\n"
    "\n"
    "\n"
    "@nki.jit\n"
    "def kernel(x):\n"
    "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
    "    nl.store(out, value=nl.load(x))\n"
    "    return out\n";

BOOST_AUTO_TEST_CASE(nki_kernel_function_is_a_top_level_def) {
  BOOST_TEST(DefinesKernelFunction(kNkiGood, "kernel", "nki"));
  BOOST_TEST(DefinesPythonFunction("def kernel (x, y):\n    return x\n", "kernel"));
  BOOST_TEST(DefinesPythonFunction("def\tkernel(\n    x,\n):\n    return x\n", "kernel"));
  // Several decorators, one with arguments spanning lines.
  BOOST_TEST(DefinesPythonFunction("@nki.jit(\n    mode='baremetal')\n@other\ndef kernel(x):\n  pass\n", "kernel"));
  // Other definitions before it, a def of the same name indented in another.
  BOOST_TEST(
      DefinesPythonFunction("def helper(a):\n    def kernel(b):\n        pass\n    return a\n\n"
                            "def kernel(x):\n    return helper(x)\n",
                            "kernel"));
  // Docstrings before and in it do not hide it.
  BOOST_TEST(
      DefinesPythonFunction("\"\"\"Module.\n\nIt's here.\"\"\"\ndef kernel(x):\n    \"\"\"Doc.\"\"\"\n", "kernel"));
}

BOOST_AUTO_TEST_CASE(nki_kernel_function_not_in_comments_strings_classes_or_other_names) {
  // In a comment.
  BOOST_TEST(!DefinesPythonFunction("# def kernel(x):\nx = 1\n", "kernel"));
  BOOST_TEST(!DefinesPythonFunction("x = 1  # def kernel(x):\n", "kernel"));
  // In a docstring (triple double and single quotes) or a string.
  BOOST_TEST(!DefinesPythonFunction("\"\"\"\ndef kernel(x):\n    pass\n\"\"\"\n", "kernel"));
  BOOST_TEST(!DefinesPythonFunction("def other(x):\n    '''\ndef kernel(x):\n    '''\n    return x\n", "kernel"));
  BOOST_TEST(!DefinesPythonFunction("s = 'def kernel(x):'\nt = \"\\\"def kernel(\"\n", "kernel"));
  // Indented: in a class, in a block, in a function.
  BOOST_TEST(!DefinesPythonFunction("class K:\n    @nki.jit\n    def kernel(self, x):\n        pass\n", "kernel"));
  BOOST_TEST(!DefinesPythonFunction("if True:\n    def kernel(x):\n        pass\n", "kernel"));
  BOOST_TEST(!DefinesPythonFunction("def outer():\n\tdef kernel(x):\n\t\tpass\n", "kernel"));
  // Inside brackets: no statement starts there.
  BOOST_TEST(!DefinesPythonFunction("x = (1,\ndef kernel(x):\n)\n", "kernel"));
  // Another name: optimized_kernel is not kernel, and the other way round.
  const std::string optimized = "@nki.jit\ndef optimized_kernel(x):\n    return x\n";
  BOOST_TEST(!DefinesKernelFunction(optimized, "kernel", "nki"));
  BOOST_TEST(DefinesKernelFunction(optimized, "optimized_kernel", "nki"));
  BOOST_TEST(!DefinesKernelFunction(kNkiGood, "optimized_kernel", "nki"));
  BOOST_TEST(!DefinesPythonFunction("def kernel_v2(x):\n    pass\n", "kernel"));
  BOOST_TEST(!DefinesPythonFunction("kernel = lambda x: x\n", "kernel"));
  BOOST_TEST(!DefinesPythonFunction("def kernel(x):\n", ""));
  // A C kernel is no nki kernel, and a Python one no cpu kernel; cpu and cuda keep extern "C".
  BOOST_TEST(!DefinesKernelFunction(kGood, "silu", "nki"));
  BOOST_TEST(!DefinesKernelFunction("def silu(x):\n    return x\n", "silu", "cpu"));
  BOOST_TEST(DefinesKernelFunction(kGood, "silu", "cpu"));
  BOOST_TEST(DefinesKernelFunction(kGood, "silu", "cuda"));
  BOOST_TEST(!DefinesKernelFunction("// extern \"C\" void silu(float* x) {}\n", "silu", "cpu"));
}

BOOST_AUTO_TEST_CASE(nki_executor_reply_is_parsed_with_python_rules) {
  const std::string reply = std::string("Here it is.\n```python\n") + kNkiGood + "```\n";
  ParsedCode code = ParseExecutorReply(reply, "kernel", "nki");
  BOOST_TEST(code.ok());
  BOOST_TEST(code.code == kNkiGood);
  // The same reply for a cpu problem misses its extern "C" function.
  ParsedCode as_cpu = ParseExecutorReply(reply, "kernel", "cpu");
  BOOST_TEST(as_cpu.failure == kMissingFunction);
  BOOST_TEST(as_cpu.detail == "the code does not define extern \"C\" kernel(...)");
  // A kernel that is a method says what is missing in Python's terms.
  ParsedCode in_class =
      ParseExecutorReply("```python\nclass K:\n    def kernel(self, x):\n        return x\n```\n", "kernel", "nki");
  BOOST_TEST(in_class.failure == kMissingFunction);
  BOOST_TEST(in_class.detail == "the code does not define def kernel(...)");
  BOOST_TEST(ParseExecutorReply("```python\n" + std::string(kNkiGood), "kernel", "nki").failure == kTruncatedCode);
  BOOST_TEST(ParseExecutorReply("no code", "kernel", "nki").failure == kNoCodeBlock);
}

BOOST_AUTO_TEST_CASE(plans_parse_into_title_and_description) {
  auto p = ParsePlannerReply(
      "\n\n## **Plan: Tile the loop for L1**\nSplit N into blocks of 64.\n"
      "This keeps x in cache.\n");
  BOOST_REQUIRE(p.ok());
  BOOST_TEST(p->title == "Tile the loop for L1");
  BOOST_TEST(p->description == "Split N into blocks of 64.\nThis keeps x in cache.");
  auto bare = ParsePlannerReply("Fuse the two passes");
  BOOST_REQUIRE(bare.ok());
  BOOST_TEST(bare->title == "Fuse the two passes");
  BOOST_TEST(bare->description.empty());
  BOOST_TEST(!ParsePlannerReply("  \n \n").ok());
}

BOOST_AUTO_TEST_CASE(summaries_parse_into_fields) {
  auto s = ParseSummarizerReply(
      "**Hoist the reciprocal**\nCompute 1/n once outside the loop instead of dividing in it.\n"
      "```cpp\nfor (...) y = x / n;\n```\n```cpp\nconst float r = 1.0f / n;\n```\n");
  BOOST_REQUIRE(s.ok());
  BOOST_TEST(s->title == "Hoist the reciprocal");
  BOOST_TEST(s->description == "Compute 1/n once outside the loop instead of dividing in it.");
  BOOST_TEST(s->slow_snippet == "for (...) y = x / n;\n");
  BOOST_TEST(s->fast_snippet == "const float r = 1.0f / n;\n");
  BOOST_TEST(!s->no_optimization);
  auto none = ParseSummarizerReply("No optimization found.");
  BOOST_REQUIRE(none.ok());
  BOOST_TEST(none->no_optimization);
  auto plain = ParseSummarizerReply("Title line\nbody");
  BOOST_REQUIRE(plain.ok());
  BOOST_TEST(plain->title == "Title line");
  BOOST_TEST(plain->description == "body");
  BOOST_TEST(!ParseSummarizerReply("").ok());
}

}  // namespace
}  // namespace accelopt::workflows

namespace accelopt::workflows {
namespace {

// paper: "No optimization found" is the published plain, case-sensitive
// substring test; default: case-insensitive and only without two snippets.
BOOST_AUTO_TEST_CASE(no_optimization_detection_per_mode) {
  const std::string lower = "**Tile**\nno optimization found here, but see:\n";
  const std::string with_code = "No optimization found? Actually:\n**Tile**\n```cpp\na();\n```\n```cpp\nb();\n```\n";
  BOOST_TEST(ParseSummarizerReply(lower, /*published_rule=*/false)->no_optimization);
  BOOST_TEST(!ParseSummarizerReply(lower, /*published_rule=*/true)->no_optimization);
  BOOST_TEST(!ParseSummarizerReply(with_code, false)->no_optimization);
  BOOST_TEST(ParseSummarizerReply(with_code, true)->no_optimization);
}

}  // namespace
}  // namespace accelopt::workflows

// What real models write (issue 37): each case lands in a usable kernel or a
// named failure, never a crash or a silent skip.
namespace accelopt::workflows {
namespace {

const char kKernel[] =
    "extern \"C\" void silu(const float* x, float* out, int64_t M, int64_t N) {\n  out[0] = x[0];\n}\n";

BOOST_AUTO_TEST_CASE(reasoning_blocks_are_dropped_before_the_answer) {
  // A fenced block inside the reasoning is not the answer.
  const std::string reply = std::string(
                                "<think>\nMaybe:\n```cpp\nextern \"C\" void silu() {}\n```\n"
                                "No, better vectorize.\n</think>\nHere it is:\n```cpp\n") +
                            kKernel + "```\n";
  ParsedCode code = ParseExecutorReply(reply, "silu", "cpu");
  BOOST_TEST(code.ok());
  BOOST_TEST(code.code == kKernel);
  // Cut off while reasoning: a named failure, not "no code".
  ParsedCode cut = ParseExecutorReply("<think>\nLet me think about the cache lines", "silu", "cpu");
  BOOST_TEST(cut.failure == kReasoningOnly);
  // A template that opened <think> in the prompt: only the closing tag.
  ParsedCode closing =
      ParseExecutorReply(std::string("plan plan\n</think>\n```c\n") + kKernel + "```\n", "silu", "cpu");
  BOOST_TEST(closing.ok());
  auto plan = ParsePlannerReply("<think>hmm</think>\n**Vectorize the loop**\nUse AVX2.");
  BOOST_REQUIRE(plan.ok());
  BOOST_TEST(plan->title == "Vectorize the loop");
  auto all_thinking = ParsePlannerReply("<think>\nstill thinking");
  BOOST_REQUIRE(!all_thinking.ok());
  BOOST_TEST(all_thinking.status().message().find("reasoning") != std::string::npos);
  auto summary = ParseSummarizerReply("<think>x</think>**Fuse**\nfused\n```c\na();\n```\n```c\nb();\n```\n");
  BOOST_REQUIRE(summary.ok());
  BOOST_TEST(summary->title == "Fuse");
  BOOST_TEST(summary->slow_snippet == "a();\n");
}

BOOST_AUTO_TEST_CASE(the_block_that_defines_the_kernel_is_taken_whatever_its_tag) {
  // A usage example first, the kernel second, under a wrong language tag.
  const std::string reply =
      std::string("Usage:\n```bash\ng++ -O3 silu.cpp\n```\nKernel:\n```python\n") + kKernel + "```\n";
  ParsedCode code = ParseExecutorReply(reply, "silu", "cpu");
  BOOST_TEST(code.ok());
  BOOST_TEST(code.code == kKernel);
  BOOST_TEST(code.detail.find("block 2 of 2") != std::string::npos);
  // paper: the published rule keeps the first block (and fails it).
  ParsedCode first = ParseExecutorReply(reply, "silu", "cpu", /*first_block_only=*/true);
  BOOST_TEST(first.failure == kMissingFunction);
}

BOOST_AUTO_TEST_CASE(code_without_a_fence_is_taken_from_its_first_line_of_code) {
  const std::string reply = std::string("Here is the optimized kernel.\n#include <cmath>\n") + kKernel;
  ParsedCode code = ParseExecutorReply(reply, "silu", "cpu");
  BOOST_TEST(code.ok());
  BOOST_TEST(code.code == std::string("#include <cmath>\n") + kKernel);
  BOOST_TEST(ParseExecutorReply(reply, "silu", "cpu", true).failure == kNoCodeBlock);
}

BOOST_AUTO_TEST_CASE(another_function_name_is_named_in_the_failure) {
  const std::string reply =
      "```cpp\nextern \"C\" void silu_avx2(const float* x, float* out, int64_t M, int64_t N) {\n}\n```\n";
  ParsedCode code = ParseExecutorReply(reply, "silu", "cpu");
  BOOST_TEST(code.failure == kMissingFunction);
  BOOST_TEST(code.detail.find("silu_avx2 instead") != std::string::npos);
  // Not C linkage at all: still missing, nothing named.
  ParsedCode cpp = ParseExecutorReply("```cpp\nvoid silu(float* x) {}\n```\n", "silu", "cpu");
  BOOST_TEST(cpp.failure == kMissingFunction);
}

BOOST_AUTO_TEST_CASE(cut_off_refused_and_empty_replies_are_named) {
  // Cut at max_tokens after a complete but unrelated block.
  const std::string cut = "```bash\nmake\n```\n```cpp\nextern \"C\" void silu(const float* x";
  BOOST_TEST(ParseExecutorReply(cut, "silu", "cpu").failure == kTruncatedCode);
  BOOST_TEST(ParseExecutorReply("I'm sorry, but I can't help with that.", "silu", "cpu").failure == kRefused);
  BOOST_TEST(ParseExecutorReply("I cannot write this kernel.", "silu", "cpu").failure == kRefused);
  BOOST_TEST(ParseExecutorReply("", "silu", "cpu").failure == kNoCodeBlock);
  BOOST_TEST(ParseExecutorReply("<think>ok</think>", "silu", "cpu").failure == kNoCodeBlock);
  BOOST_TEST(ParseExecutorReply("Use SIMD for speed.", "silu", "cpu").failure == kNoCodeBlock);
}

}  // namespace
}  // namespace accelopt::workflows
