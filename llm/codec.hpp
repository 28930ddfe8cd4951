// Wire formats of the HTTP providers: how an LlmRequest becomes an HTTP
// request, and how a reply body becomes an LlmResponse.
//
// A codec holds the provider's credentials and puts them only into request
// headers. Build() and Parse*() never throw, whatever the body holds; a body
// that is not the expected JSON is a kMalformed error message. Codecs are
// used from the transport thread and from Call(); Build() must be
// thread-safe (the implementations are immutable after construction).
#pragma once

#include <memory>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "llm/config.hpp"
#include "llm/secrets.hpp"
#include "llm/transport.hpp"
#include "llm/types.hpp"

namespace accelopt::llm {

class HttpCodec {
 public:
  virtual ~HttpCodec() = default;

  // URL, headers (credentials included) and body for one attempt.
  virtual Result<HttpRequest> Build(const LlmRequest& request) const = 0;

  // A 2xx body → text, reasoning, normalized finish_reason, model, tokens
  // (input_tokens including cached ones). The text may be empty here; the
  // caller turns empty and truncated replies into errors. A non-ok Status
  // (kInvalidArgument) describes what was malformed, without body content.
  virtual Result<LlmResponse> ParseSuccess(const std::string& body) const = 0;
};

// The provider's own error text from an error body ("error.message",
// "message", "Message", "detail", ...), or "" (unscrubbed).
std::string ErrorMessageFromBody(const std::string& body);

std::unique_ptr<HttpCodec> MakeOpenAiCodec(const ProviderConfig& config, std::string api_key);
std::unique_ptr<HttpCodec> MakeAnthropicCodec(const ProviderConfig& config, std::string api_key);
// `env` supplies the clock for X-Amz-Date.
std::unique_ptr<HttpCodec> MakeBedrockCodec(const ProviderConfig& config, AwsCredentials creds, Env* env);

// Small JSON accessors for codecs: never throw.
namespace codec_util {
const json* Find(const json& j, const char* key);
std::string String(const json* j);  // "" unless a string
int64_t Int(const json* j);         // 0 unless a number in int64's range (floats truncated)
}  // namespace codec_util

}  // namespace accelopt::llm
