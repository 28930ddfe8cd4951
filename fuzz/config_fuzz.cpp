// Fuzzes configuration parsing: JSON with comments (base/json.hpp ParseJson),
// the daemon config (daemon/config.hpp ParseDaemonConfig), the providers
// section (llm/config.hpp ParseProvidersConfig), and campaign specs
// (workflows/campaign_request.hpp ParseCampaignSpec + Validate).
//
// Every parser gets the same document; each must answer with a value or an
// InvalidArgument error, never crash or throw. A spec that parses and
// validates must survive ToJson -> ParseCampaignSpec unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/json.hpp"
#include "daemon/config.hpp"
#include "fuzz/fuzz_check.hpp"
#include "llm/config.hpp"
#include "workflows/campaign_request.hpp"

using namespace accelopt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = ParseJson(text, /*allow_comments=*/true);
  if (!parsed.ok()) {
    FUZZ_CHECK(parsed.status().code() == Code::kInvalidArgument);
    return 0;
  }
  const json& j = *parsed;
  (void)Dump(j);

  auto config = daemon::ParseDaemonConfig(j, "/etc/accelopt", Env::Default());
  if (!config.ok()) FUZZ_CHECK(config.status().code() == Code::kInvalidArgument);

  const json& providers = j.is_object() && j.contains("providers") ? j["providers"] : j;
  auto provs = llm::ParseProvidersConfig(providers);
  if (!provs.ok()) FUZZ_CHECK(provs.status().code() == Code::kInvalidArgument);

  // A daemon config carries campaign defaults under "search"; a spec is the
  // whole document. Try both.
  for (const json* spec_json : {&j, j.is_object() && j.contains("search") ? &j["search"] : &j}) {
    auto spec = workflows::ParseCampaignSpec(*spec_json);
    if (!spec.ok()) {
      FUZZ_CHECK(spec.status().code() == Code::kInvalidArgument);
      continue;
    }
    if (!workflows::Validate(*spec).ok()) continue;
    json once = workflows::ToJson(*spec);
    auto again = workflows::ParseCampaignSpec(once);
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(workflows::Validate(*again).ok());
    FUZZ_CHECK(Dump(workflows::ToJson(*again)) == Dump(once));
  }
  return 0;
}
