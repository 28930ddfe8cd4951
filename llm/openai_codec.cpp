// OpenAI-compatible chat completions (vLLM, SGLang, Ollama, llama.cpp
// server, OpenAI, OpenRouter): POST {base_url}/chat/completions.
#include "llm/codec.hpp"

namespace accelopt::llm {
namespace {

using namespace codec_util;

std::string OpenAiFinish(const std::string& r) {
  if (r == "stop" || r == "eos" || r == "end_turn" || r == "stop_sequence") return "stop";
  if (r == "length" || r == "max_tokens") return "length";
  return r;
}

// message.content may be a string, null, or an array of {type:"text", text}.
std::string ContentText(const json* c) {
  if (!c) return "";
  if (c->is_string()) return c->get<std::string>();
  std::string out;
  if (c->is_array()) {
    for (const auto& part : *c) out += String(Find(part, "text"));
  }
  return out;
}

class OpenAiCodec : public HttpCodec {
 public:
  OpenAiCodec(ProviderConfig config, std::string key) : c_(std::move(config)), key_(std::move(key)) {}

  Result<HttpRequest> Build(const LlmRequest& r) const override {
    json body = c_.extra_body;  // extra_body first: ours wins on conflicts
    json messages = json::array();
    if (!r.system.empty()) messages.push_back({{"role", "system"}, {"content", r.system}});
    messages.push_back({{"role", "user"}, {"content", r.user}});
    body["model"] = r.model;
    body["messages"] = std::move(messages);
    body[c_.max_tokens_field] = r.max_tokens;
    body["stream"] = false;
    if (r.temperature) body["temperature"] = *r.temperature;
    if (r.reasoning_effort) body["reasoning_effort"] = *r.reasoning_effort;
    if (!r.stop.empty()) body["stop"] = r.stop;
    HttpRequest h;
    h.url = c_.base_url + "/chat/completions";
    h.headers.push_back("Content-Type: application/json");
    h.headers.push_back("Accept: application/json");
    for (const auto& [k, v] : c_.headers) h.headers.push_back(k + ": " + v);
    if (!key_.empty()) h.headers.push_back("Authorization: Bearer " + key_);
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
    const json* choices = Find(j, "choices");
    if (!choices || !choices->is_array() || choices->empty()) {
      return InvalidArgument("reply has no choices");
    }
    const json& choice = (*choices)[0];
    const json* message = Find(choice, "message");
    if (!message || !message->is_object()) return InvalidArgument("reply has no choices[0].message");
    LlmResponse out;
    out.text = ContentText(Find(*message, "content"));
    out.reasoning = String(Find(*message, "reasoning_content"));
    if (out.reasoning.empty()) out.reasoning = String(Find(*message, "reasoning"));
    out.finish_reason = OpenAiFinish(String(Find(choice, "finish_reason")));
    out.model = String(Find(j, "model"));
    if (const json* u = Find(j, "usage")) {
      out.input_tokens = Int(Find(*u, "prompt_tokens"));
      out.output_tokens = Int(Find(*u, "completion_tokens"));
      if (const json* d = Find(*u, "prompt_tokens_details")) out.cached_tokens = Int(Find(*d, "cached_tokens"));
    }
    return out;
  }

 private:
  ProviderConfig c_;
  std::string key_;
};

}  // namespace

std::unique_ptr<HttpCodec> MakeOpenAiCodec(const ProviderConfig& config, std::string api_key) {
  return std::make_unique<OpenAiCodec>(config, std::move(api_key));
}

}  // namespace accelopt::llm
