// Amazon Bedrock Converse API: POST {base_url}/model/{modelId}/converse,
// signed with SigV4 (llm/sigv4.hpp explains why not CURLOPT_AWS_SIGV4).
#include "llm/codec.hpp"
#include "llm/sigv4.hpp"

namespace accelopt::llm {
namespace {

using namespace codec_util;

std::string BedrockFinish(const std::string& r) {
  if (r == "end_turn" || r == "stop_sequence") return "stop";
  if (r == "max_tokens") return "length";
  if (r == "content_filtered" || r == "guardrail_intervened") return "content_filter";
  return r;
}

class BedrockCodec : public HttpCodec {
 public:
  BedrockCodec(ProviderConfig config, AwsCredentials creds, Env* env)
      : c_(std::move(config)), creds_(std::move(creds)), env_(env) {}

  Result<HttpRequest> Build(const LlmRequest& r) const override {
    json body = json::object();
    body["messages"] = json::array({{{"role", "user"}, {"content", json::array({{{"text", r.user}}})}}});
    if (!r.system.empty()) body["system"] = json::array({{{"text", r.system}}});
    json inference = {{"maxTokens", r.max_tokens}};
    if (!r.stop.empty()) inference["stopSequences"] = r.stop;
    if (r.thinking_budget) {
      body["additionalModelRequestFields"] = {
          {"thinking", {{"type", "enabled"}, {"budget_tokens", *r.thinking_budget}}}};
    } else if (r.temperature) {
      inference["temperature"] = *r.temperature;
    }
    if (r.reasoning_effort && !r.thinking_budget) {
      // gpt-oss and other open models on Bedrock take it as a model field.
      body["additionalModelRequestFields"] = {{"reasoning_effort", *r.reasoning_effort}};
    }
    body["inferenceConfig"] = std::move(inference);

    HttpRequest h;
    h.url = c_.base_url + "/model/" + UriEncode(r.model, /*encode_slash=*/true) + "/converse";
    h.body = Dump(body);
    h.timeouts = c_.timeouts;
    h.max_response_bytes = c_.max_response_bytes;

    SigV4Request s;
    s.method = "POST";
    s.url = h.url;
    s.body = h.body;
    s.region = c_.region;
    s.service = "bedrock";
    s.amz_date = AmzDate(env_->NowMicros());
    s.headers["content-type"] = "application/json";
    s.headers["accept"] = "application/json";
    if (!creds_.session_token.empty()) s.headers["x-amz-security-token"] = creds_.session_token;
    SigV4Signature sig = SignV4(s, creds_);

    h.headers.push_back("Host: " + sig.host);
    h.headers.push_back("Content-Type: application/json");
    h.headers.push_back("Accept: application/json");
    h.headers.push_back("X-Amz-Date: " + s.amz_date);
    if (!creds_.session_token.empty()) h.headers.push_back("X-Amz-Security-Token: " + creds_.session_token);
    h.headers.push_back("Authorization: " + sig.authorization);
    for (const auto& [k, v] : c_.headers) h.headers.push_back(k + ": " + v);
    return h;
  }

  Result<LlmResponse> ParseSuccess(const std::string& body) const override {
    auto parsed = ParseJson(body);
    if (!parsed.ok()) return InvalidArgument("reply is not JSON");
    const json& j = *parsed;
    const json* output = Find(j, "output");
    const json* message = output ? Find(*output, "message") : nullptr;
    const json* content = message ? Find(*message, "content") : nullptr;
    if (!content || !content->is_array()) return InvalidArgument("reply has no output.message.content");
    LlmResponse out;
    for (const auto& block : *content) {
      out.text += String(Find(block, "text"));
      if (const json* rc = Find(block, "reasoningContent")) {
        if (const json* rt = Find(*rc, "reasoningText")) out.reasoning += String(Find(*rt, "text"));
      }
    }
    const json* stop = Find(j, "stopReason");
    if (!stop) return InvalidArgument("reply has no stopReason");
    out.finish_reason = BedrockFinish(String(stop));
    if (const json* u = Find(j, "usage")) {
      out.cached_tokens = Int(Find(*u, "cacheReadInputTokens"));
      out.input_tokens = Int(Find(*u, "inputTokens")) + out.cached_tokens + Int(Find(*u, "cacheWriteInputTokens"));
      out.output_tokens = Int(Find(*u, "outputTokens"));
    }
    return out;
  }

 private:
  ProviderConfig c_;
  AwsCredentials creds_;
  Env* env_;
};

}  // namespace

std::unique_ptr<HttpCodec> MakeBedrockCodec(const ProviderConfig& config, AwsCredentials creds, Env* env) {
  return std::make_unique<BedrockCodec>(config, std::move(creds), env);
}

}  // namespace accelopt::llm
