// Reply parsing: code from the first fenced block with the required
// function, plans and summaries into fields.
#include <boost/test/unit_test.hpp>

#include "workflows/parse.hpp"

namespace accelopt::workflows {
namespace {

const char kGood[] =
    "extern \"C\" void silu(const float* x, float* out, int64_t M, int64_t N) {\n  // ...\n}\n";

BOOST_AUTO_TEST_CASE(first_fenced_block_is_taken) {
  const std::string reply = std::string("Sure.\n```cpp\n") + kGood +
                            "```\nAnd a test:\n```cpp\nint main() {}\n```\n";
  ParsedCode code = ParseExecutorReply(reply, "silu");
  BOOST_TEST(code.ok());
  BOOST_TEST(code.code == kGood);
}

BOOST_AUTO_TEST_CASE(bad_replies_are_failures_with_reasons) {
  BOOST_TEST(ParseExecutorReply("I'd unroll it.", "silu").failure == kNoCodeBlock);
  BOOST_TEST(ParseExecutorReply("", "silu").failure == kNoCodeBlock);
  BOOST_TEST(ParseExecutorReply(std::string("```cpp\n") + kGood, "silu").failure ==
             kTruncatedCode);
  BOOST_TEST(ParseExecutorReply(std::string("```cpp\n") + kGood + "```", "gelu").failure ==
             kMissingFunction);
  // Declaration only, or only mentioned in a comment or string.
  BOOST_TEST(!DefinesExternCFunction(
      "extern \"C\" void silu(const float* x, float* out, int64_t M, int64_t N);", "silu"));
  BOOST_TEST(!DefinesExternCFunction("// extern \"C\" void silu(float* x) {}\n", "silu"));
  BOOST_TEST(!DefinesExternCFunction("const char* s = \"extern \\\"C\\\" void silu() {}\";",
                                     "silu"));
  // A longer name is not the function.
  BOOST_TEST(!DefinesExternCFunction("extern \"C\" void silu_fast(float* x) {}", "silu"));
  // No C linkage.
  BOOST_TEST(!DefinesExternCFunction("void silu(float* x) {}", "silu"));
}

BOOST_AUTO_TEST_CASE(definitions_in_several_styles_are_found) {
  BOOST_TEST(DefinesExternCFunction(kGood, "silu"));
  BOOST_TEST(DefinesExternCFunction("extern \"C\" {\nvoid silu(float* x)\n{\n}\n}", "silu"));
  BOOST_TEST(DefinesExternCFunction(
      "static inline float f(float v) { return v; }\n"
      "extern \"C\" void silu(const float* __restrict x, float* out) noexcept {\n}\n",
      "silu"));
  BOOST_TEST(DefinesExternCFunction("extern \"C\" void\nsilu (const float* x,\n  float* y)\n{}",
                                    "silu"));
  // Tilde fences and indented fences count.
  BOOST_TEST(ParseExecutorReply(std::string("~~~\n") + kGood + "~~~\n", "silu").ok());
  BOOST_TEST(ParseExecutorReply(std::string("  ```c++\n") + kGood + "  ```\n", "silu").ok());
}

BOOST_AUTO_TEST_CASE(plans_parse_into_title_and_description) {
  auto p = ParsePlannerReply("\n\n## **Plan: Tile the loop for L1**\nSplit N into blocks of 64.\n"
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
