// Fuzzes what the nki judge reads from its untrusted runner
// (evaluators/nki/runner_link.hpp): the record stream on the runner's
// stdout (JSON lines), and each output record's header as the judge turns
// it into a file to compare (evaluators/nki/output_files.hpp). Any input
// must come back as a Status, never crash or throw.
//
// Input: the runner's stdout.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/env.hpp"
#include "evaluators/nki/output_files.hpp"
#include "evaluators/nki/runner_link.hpp"
#include "fuzz/fuzz_check.hpp"

using namespace accelopt;
using namespace accelopt::eval::nki;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto records = ParseRecords(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!records.ok()) {
    FUZZ_CHECK(records.status().code() == Code::kInvalidArgument);
    return 0;
  }
  for (const RunnerRecord& r : *records) {
    FUZZ_CHECK(r.header.is_object() && r.header.contains("type") && r.header["type"].is_string());
    if (r.header["type"] != "output") continue;
    // No such folder: the header is read, then the file is not found.
    auto f = OutputFileOf(r.header, "/nonexistent/accelopt-fuzz", 4, Env::Default());
    FUZZ_CHECK(!f.ok());
  }
  return 0;
}
