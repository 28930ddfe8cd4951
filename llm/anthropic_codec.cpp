// Anthropic Messages API with extended thinking: POST {base_url}/v1/messages.
#include "llm/codec.hpp"

namespace accelopt::llm {
namespace {

using namespace codec_util;

std::string AnthropicFinish(const std::string& r) {
  if (r == "end_turn" || r == "stop_sequence") return "stop";
  if (r == "max_tokens") return "length";
  if (r == "refusal") return "content_filter";
  return r;
}

class AnthropicCodec : public HttpCodec {
 public:
  AnthropicCodec(ProviderConfig config, std::string key) : c_(std::move(config)), key_(std::move(key)) {}

  Result<HttpRequest> Build(const LlmRequest& r) const override {
    json body = json::object();
    body["model"] = r.model;
    body["max_tokens"] = r.max_tokens;
    if (!r.system.empty()) body["system"] = r.system;
    body["messages"] = json::array({{{"role", "user"}, {"content", r.user}}});
    if (!r.stop.empty()) body["stop_sequences"] = r.stop;
    if (r.thinking_budget) {
      if (*r.thinking_budget >= r.max_tokens) {
        return InvalidArgument("thinking_budget must be below max_tokens for anthropic");
      }
      body["thinking"] = {{"type", "enabled"}, {"budget_tokens", *r.thinking_budget}};
      // Extended thinking requires the default temperature; it is not sent.
    } else if (r.temperature) {
      body["temperature"] = *r.temperature;
    }
    HttpRequest h;
    h.url = c_.base_url + "/v1/messages";
    h.headers.push_back("Content-Type: application/json");
    h.headers.push_back("Accept: application/json");
    h.headers.push_back("anthropic-version: " + c_.anthropic_version);
    for (const auto& [k, v] : c_.headers) h.headers.push_back(k + ": " + v);
    if (!key_.empty()) h.headers.push_back("x-api-key: " + key_);
    h.body = Dump(body);
    h.timeouts = c_.timeouts;
    h.max_response_bytes = c_.max_response_bytes;
    return h;
  }

  Result<LlmResponse> ParseSuccess(const std::string& body) const override {
    auto parsed = ParseJson(body);
    if (!parsed.ok()) return InvalidArgument("reply is not JSON");
    const json& j = *parsed;
    if (!j.is_object()) return InvalidArgument("reply is not a JSON object");
    const json* content = Find(j, "content");
    if (!content || !content->is_array()) return InvalidArgument("reply has no content array");
    LlmResponse out;
    for (const auto& block : *content) {
      const std::string type = String(Find(block, "type"));
      if (type == "text") out.text += String(Find(block, "text"));
      if (type == "thinking") out.reasoning += String(Find(block, "thinking"));
    }
    const json* stop = Find(j, "stop_reason");
    if (!stop) return InvalidArgument("reply has no stop_reason");
    out.finish_reason = AnthropicFinish(String(stop));
    out.model = String(Find(j, "model"));
    if (const json* u = Find(j, "usage")) {
      const int64_t cache_read = Int(Find(*u, "cache_read_input_tokens"));
      const int64_t cache_write = Int(Find(*u, "cache_creation_input_tokens"));
      out.input_tokens = Int(Find(*u, "input_tokens")) + cache_read + cache_write;
      out.output_tokens = Int(Find(*u, "output_tokens"));
      out.cached_tokens = cache_read;
    }
    return out;
  }

 private:
  ProviderConfig c_;
  std::string key_;
};

}  // namespace

std::unique_ptr<HttpCodec> MakeAnthropicCodec(const ProviderConfig& config, std::string api_key) {
  return std::make_unique<AnthropicCodec>(config, std::move(api_key));
}

}  // namespace accelopt::llm
