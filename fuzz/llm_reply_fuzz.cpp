// Fuzzes the decoding of LLM provider replies (llm/): the OpenAI, Anthropic
// and Bedrock codecs' ParseSuccess, ErrorMessageFromBody (error bodies), the
// recorded request/response JSON read back by replay (llm/types.hpp), and the
// secret scrubber that every error text passes through.
//
// Input: byte 0 picks the decoder, the rest is the body. codec.hpp promises
// that ParseSuccess never throws, whatever the body holds: an exception
// escaping here is a crash libFuzzer reports.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "fuzz/fuzz_check.hpp"
#include "llm/codec.hpp"
#include "llm/secrets.hpp"
#include "llm/types.hpp"

using namespace accelopt;
using namespace accelopt::llm;

namespace {

struct Codecs {
  std::unique_ptr<HttpCodec> openai, anthropic, bedrock;
  Codecs() {
    ProviderConfig c;
    c.name = "fuzz";
    c.base_url = "http://127.0.0.1:9/v1";
    c.region = "us-east-1";
    c.kind = ProviderKind::kOpenAi;
    openai = MakeOpenAiCodec(c, "sk-fuzz-key");
    c.kind = ProviderKind::kAnthropic;
    anthropic = MakeAnthropicCodec(c, "sk-ant-fuzz-key");
    c.kind = ProviderKind::kBedrock;
    bedrock = MakeBedrockCodec(c, AwsCredentials{"AKIAFUZZ", "fuzz-secret", ""}, Env::Default());
  }
};

void CheckResponse(const Result<LlmResponse>& r) {
  if (!r.ok()) {
    FUZZ_CHECK(r.status().code() == Code::kInvalidArgument);
    return;
  }
  // What the runtime records: must serialize and read back.
  json j = ToJson(*r);
  auto back = LlmResponse::FromJson(ParseJson(Dump(j)).value());
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(back->input_tokens == r->input_tokens && back->output_tokens == r->output_tokens);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Codecs codecs;
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      CheckResponse(codecs.openai->ParseSuccess(body));
      break;
    case 1:
      CheckResponse(codecs.anthropic->ParseSuccess(body));
      break;
    case 2:
      CheckResponse(codecs.bedrock->ParseSuccess(body));
      break;
    case 3:
      (void)ErrorMessageFromBody(body);
      break;
    case 4: {
      auto j = ParseJson(body);
      if (!j.ok()) break;
      auto resp = LlmResponse::FromJson(*j);
      if (resp.ok()) (void)Dump(ToJson(*resp));
      auto req = LlmRequest::FromJson(*j);
      if (req.ok()) {
        // The hash that keys recorded replies is stable over a round trip.
        auto again = LlmRequest::FromJson(ToJson(*req));
        FUZZ_CHECK(again.ok());
        FUZZ_CHECK(RequestHash(*again) == RequestHash(*req));
      }
      break;
    }
    case 5: {
      std::string scrubbed = ScrubSecrets(body);
      FUZZ_CHECK(scrubbed.size() <= 600 + 16);  // max_len plus the truncation marker
      break;
    }
  }
  return 0;
}
