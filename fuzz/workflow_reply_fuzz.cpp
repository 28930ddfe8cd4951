// Fuzzes the parsers of the model's replies in workflows/parse.hpp: the
// executor's code block, the planner's plan, the "Used experiences" lines and
// the summarizer's summary. Replies are untrusted text; a reply that cannot
// be used must come back as a failure value, never crash or throw.
//
// Input: byte 0 picks the function's name the executor must define (a few
// fixed names), the rest is the reply.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "workflows/parse.hpp"

using namespace accelopt;
using namespace accelopt::workflows;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const kNames[] = {"kernel", "silu", "matmul_f32", "softmax"};
  const std::string function = kNames[data[0] % 4];
  const std::string_view reply(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::vector<FencedBlock> blocks = FencedBlocks(reply);
  for (size_t i = 0; i + 1 < blocks.size(); ++i) FUZZ_CHECK(blocks[i].terminated);  // only the last may be open

  const std::string backend = data[0] & 4 ? "nki" : "cpu";
  const std::vector<FencedBlock> answer_blocks = FencedBlocks(StripReasoning(reply));
  ParsedCode code = ParseExecutorReply(reply, function, backend);
  if (code.ok()) {
    FUZZ_CHECK(DefinesKernelFunction(code.code, function, backend));
  } else {
    FUZZ_CHECK(code.failure == kNoCodeBlock || code.failure == kTruncatedCode || code.failure == kMissingFunction ||
               code.failure == kRefused || code.failure == kReasoningOnly);
    const bool no_block = code.failure == kNoCodeBlock || code.failure == kRefused || code.failure == kReasoningOnly;
    FUZZ_CHECK(no_block == answer_blocks.empty());
  }
  // paper: the published rule, the first fenced block of the raw reply's answer.
  ParsedCode first = ParseExecutorReply(reply, function, backend, /*first_block_only=*/true);
  if (first.ok()) {
    FUZZ_CHECK(!answer_blocks.empty() && answer_blocks.front().terminated);
    FUZZ_CHECK(first.code == answer_blocks.front().body);
  }

  auto plan = ParsePlannerReply(reply);
  if (plan.ok()) {
    FUZZ_CHECK(!plan->title.empty());
    FUZZ_CHECK(plan->title.find('\n') == std::string::npos);
  } else {
    FUZZ_CHECK(plan.status().code() == Code::kInvalidArgument);
  }

  std::string rest(reply);
  std::vector<int> used = ExtractUsedExperiences(&rest);
  FUZZ_CHECK(std::is_sorted(used.begin(), used.end()));
  FUZZ_CHECK(std::adjacent_find(used.begin(), used.end()) == used.end());
  FUZZ_CHECK(rest.size() <= reply.size());
  for (int u : used) FUZZ_CHECK(u >= 0);
  // What is left holds no more such lines.
  std::string rest_again = rest;
  FUZZ_CHECK(ExtractUsedExperiences(&rest_again).empty());

  auto summary = ParseSummarizerReply(reply);
  if (!summary.ok()) FUZZ_CHECK(summary.status().code() == Code::kInvalidArgument);
  return 0;
}
