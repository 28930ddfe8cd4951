#include "llm/client.hpp"

#include <cstdlib>

#include "llm/command_provider.hpp"
#include "llm/http_provider.hpp"
#include "llm/replay_provider.hpp"
#include "llm/secrets.hpp"
#include "llm/transport.hpp"

namespace accelopt::llm {

Result<std::unique_ptr<Provider>> MakeProvider(const ProviderConfig& config_in, Env* env,
                                               std::shared_ptr<CurlTransport> transport, ReplayLookup replay_lookup) {
  ProviderConfig config = config_in;
  if (env == nullptr) env = Env::Default();
  const std::string where = "provider '" + config.name + "'";
  switch (config.kind) {
    case ProviderKind::kOpenAi:
    case ProviderKind::kAnthropic:
    case ProviderKind::kBedrock: {
      if (!transport) return InvalidArgument(where + ": no HTTP transport");
      std::unique_ptr<HttpCodec> codec;
      if (config.kind == ProviderKind::kBedrock) {
        if (config.region.empty()) config.region = env->GetEnvVar("AWS_REGION").value_or("");
        if (config.region.empty()) config.region = env->GetEnvVar("AWS_DEFAULT_REGION").value_or("");
        if (config.region.empty()) {
          return InvalidArgument(where + ".region: required (or set AWS_REGION)");
        }
        if (config.base_url.empty()) {
          config.base_url = "https://bedrock-runtime." + config.region + ".amazonaws.com";
        }
        ACCELOPT_ASSIGN_OR_RETURN(auto creds, LoadAwsCredentials(env, config));
        codec = MakeBedrockCodec(config, std::move(creds), env);
      } else {
        ACCELOPT_ASSIGN_OR_RETURN(auto key, LoadApiKey(env, config));
        codec = config.kind == ProviderKind::kOpenAi ? MakeOpenAiCodec(config, std::move(key))
                                                     : MakeAnthropicCodec(config, std::move(key));
      }
      return std::unique_ptr<Provider>(
          std::make_unique<HttpProvider>(config, std::move(codec), std::move(transport), env));
    }
    case ProviderKind::kCommand:
      return MakeCommandProvider(config, env);
    case ProviderKind::kReplay:
      if (!replay_lookup) {
        return FailedPrecondition(where + ": kind replay needs a lookup of recorded calls");
      }
      return MakeReplayProvider(config, env, std::move(replay_lookup));
  }
  return Internal(where + ": unknown kind");
}

Result<std::unique_ptr<ProviderSet>> ProviderSet::Create(const json& section, ProviderSetOptions options) {
  Env* env = options.env ? options.env : Env::Default();
  ACCELOPT_ASSIGN_OR_RETURN(auto configs, ParseProvidersConfig(section));
  std::unique_ptr<ProviderSet> set(new ProviderSet());
  ACCELOPT_ASSIGN_OR_RETURN(set->transport_, CurlTransport::Create());
  for (const auto& c : configs) {
    ACCELOPT_ASSIGN_OR_RETURN(auto p, MakeProvider(c, env, set->transport_, options.replay_lookup));
    set->providers_[c.name] = std::move(p);
  }
  return set;
}

ProviderSet::~ProviderSet() {
  providers_.clear();  // each provider cancels and waits for its calls
  transport_.reset();
}

Provider* ProviderSet::Get(const std::string& name) const {
  auto it = providers_.find(name);
  return it == providers_.end() ? nullptr : it->second.get();
}

std::vector<std::string> ProviderSet::names() const {
  std::vector<std::string> out;
  for (const auto& [n, p] : providers_) out.push_back(n);
  return out;
}

CallHandle ProviderSet::Call(LlmRequest request, LlmCallback done, const std::atomic<bool>* cancel) {
  if (Provider* p = Get(request.provider)) return p->Call(std::move(request), std::move(done), cancel);
  LlmError e;
  e.kind = LlmErrorKind::kConfig;
  e.message = ScrubSecrets("no provider named '" + request.provider + "'");
  auto token = std::make_shared<CancelToken>(cancel);
  transport_->Post([done = std::move(done), e] { done(e); });
  return CallHandle(token);
}

LlmResult ProviderSet::CallBlocking(LlmRequest request, const std::atomic<bool>* cancel) {
  return WaitForCall([&](LlmCallback cb) { return Call(std::move(request), std::move(cb), cancel); });
}

}  // namespace accelopt::llm
