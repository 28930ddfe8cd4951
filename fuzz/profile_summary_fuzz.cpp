// Fuzzes the reader of a profile summary (evaluators/nki/profile.hpp):
// what neuron-profile or neuron-explorer prints about the untrusted
// kernel's run, in a layout that is not documented. Any input must come
// back as a Status, never crash or throw; an accepted summary has a
// positive finite device time and every profile field either read or
// listed as missing.
//
// Input: the summary's text.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "evaluators/nki/profile.hpp"
#include "fuzz/fuzz_check.hpp"

using namespace accelopt;
using namespace accelopt::eval::nki;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto p = ParseProfileSummary(std::string_view(reinterpret_cast<const char*>(data), size), "summary.json");
  if (!p.ok()) {
    FUZZ_CHECK(p.status().code() == Code::kInvalidArgument);
    return 0;
  }
  FUZZ_CHECK(std::isfinite(p->total_time_s) && p->total_time_s > 0);
  FUZZ_CHECK(p->fields.size() + p->missing.size() == kProfileFields.size());
  (void)p->ToJson();
  return 0;
}
