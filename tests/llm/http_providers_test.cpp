// Each HTTP provider against the fake server: request shape, parsing,
// tokens, cost; Bedrock's SigV4 verified independently with OpenSSL.
#include <boost/test/unit_test.hpp>

#include <openssl/evp.h>

#include <cstdlib>

#include "base/sha256.hpp"
#include "llm/sigv4.hpp"
#include "tests/llm/test_util.hpp"

namespace accelopt::llm {
namespace {

using fakes::FakeLlmServer;
using namespace testing;

json ReplyScript() {
  return json::parse(R"({"rules": [
    {"name": "plan", "match": {"role": "planner"},
     "reply": {"text": "Fuse the two loops.", "reasoning": "The loops share x.",
               "input_tokens": 1000, "output_tokens": 200, "cached_tokens": 400}},
    {"name": "other", "reply": {"text": "ok"}}]})");
}

std::string Hmac(const std::string& key, const std::string& data) {
  unsigned char out[64];
  size_t n = 0;
  EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA256", nullptr, key.data(), key.size(),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, sizeof(out), &n);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string Field(const std::string& auth, const std::string& name) {
  auto p = auth.find(name + "=");
  if (p == std::string::npos) return "";
  p += name.size() + 1;
  return auth.substr(p, auth.find(',', p) - p);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_providers)

BOOST_AUTO_TEST_CASE(openai_chat_completions) {
  FakeLlmServer server(ReplyScript());
  json p = FakeProviderEntry(server, "openai");
  p["api_key_env"] = "ACCELOPT_TEST_OPENAI_KEY";
  p["extra_body"] = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
  ::setenv("ACCELOPT_TEST_OPENAI_KEY", "sk-openai-test-KEY-1234567890", 1);
  auto set = MakeSet({{"local", p}});
  LlmRequest r = Req("local");
  r.reasoning_effort = "high";
  r.stop = {"</plan>"};
  LlmResult res = set->CallBlocking(r);
  BOOST_REQUIRE_MESSAGE(res.ok(), (res.ok() ? std::string() : res.error().ToString()));
  const LlmResponse& resp = res.response();
  BOOST_TEST(resp.text == "Fuse the two loops.");
  BOOST_TEST(resp.reasoning == "The loops share x.");
  BOOST_TEST(resp.finish_reason == "stop");
  BOOST_TEST(resp.input_tokens == 1000);
  BOOST_TEST(resp.output_tokens == 200);
  BOOST_TEST(resp.cached_tokens == 400);
  BOOST_TEST(resp.cost_known);
  BOOST_TEST(resp.cost_usd == (600 * 1.0 + 400 * 0.5 + 200 * 2.0) / 1e6, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(resp.attempts.size() == 1u);
  BOOST_TEST(resp.attempts[0].status == 200);
  BOOST_TEST(server.count("plan") == 1);

  auto recs = server.requests();
  BOOST_REQUIRE(recs.size() == 1u);
  BOOST_TEST(recs[0]["path"] == "/v1/chat/completions");
  BOOST_TEST(recs[0]["headers"]["authorization"] == "Bearer sk-openai-test-KEY-1234567890");
  json body = json::parse(recs[0]["body"].get<std::string>());
  BOOST_TEST(body["model"] == "m");
  BOOST_TEST(body["max_tokens"] == 256);
  BOOST_TEST(body["temperature"] == 0.5);
  BOOST_TEST(body["reasoning_effort"] == "high");
  BOOST_TEST(body["stop"][0] == "</plan>");
  BOOST_TEST(body["messages"][0]["role"] == "system");
  BOOST_TEST(body["messages"][1]["content"] == "Optimize this kernel.");
  BOOST_TEST(body["chat_template_kwargs"]["enable_thinking"] == false);
  ::unsetenv("ACCELOPT_TEST_OPENAI_KEY");
}

BOOST_AUTO_TEST_CASE(anthropic_messages_with_extended_thinking) {
  FakeLlmServer server(ReplyScript());
  ::setenv("ACCELOPT_TEST_ANTHROPIC_KEY", "sk-ant-test-KEY-abcdefghij", 1);
  auto set = MakeSet({{"claude", FakeProviderEntry(server, "anthropic")}});
  LlmRequest r = Req("claude");
  r.max_tokens = 8000;
  r.thinking_budget = 2048;
  LlmResult res = set->CallBlocking(r);
  BOOST_REQUIRE_MESSAGE(res.ok(), (res.ok() ? std::string() : res.error().ToString()));
  BOOST_TEST(res.response().text == "Fuse the two loops.");
  BOOST_TEST(res.response().reasoning == "The loops share x.");
  BOOST_TEST(res.response().input_tokens == 1000);  // input + cache reads
  BOOST_TEST(res.response().cached_tokens == 400);
  auto rec = server.requests().at(0);
  BOOST_TEST(rec["path"] == "/v1/messages");
  BOOST_TEST(rec["headers"]["x-api-key"] == "sk-ant-test-KEY-abcdefghij");
  BOOST_TEST(rec["headers"]["anthropic-version"] == "2023-06-01");
  json body = json::parse(rec["body"].get<std::string>());
  BOOST_TEST(body["system"] == "You are the planner.");
  BOOST_TEST(body["thinking"]["type"] == "enabled");
  BOOST_TEST(body["thinking"]["budget_tokens"] == 2048);
  BOOST_TEST(!body.contains("temperature"));  // not allowed with thinking

  // A thinking budget not below max_tokens is refused before any request.
  r.thinking_budget = 9000;
  res = set->CallBlocking(r);
  BOOST_REQUIRE(!res.ok());
  BOOST_TEST(res.error().kind == LlmErrorKind::kInvalidRequest);
  BOOST_TEST(server.total() == 1);
  ::unsetenv("ACCELOPT_TEST_ANTHROPIC_KEY");
}

BOOST_AUTO_TEST_CASE(bedrock_converse_is_signed_correctly) {
  FakeLlmServer server(ReplyScript());
  ::setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", 1);
  ::setenv("AWS_SESSION_TOKEN", "session-token-EXAMPLE-123456", 1);
  json entry = FakeProviderEntry(server, "bedrock");
  entry["models"] = {
      {"anthropic.claude-3-5-sonnet-20240620-v1:0", {{"input_per_mtok", 3.0}, {"output_per_mtok", 15.0}}}};
  auto set = MakeSet({{"aws", entry}});
  LlmRequest r = Req("aws");
  r.model = "anthropic.claude-3-5-sonnet-20240620-v1:0";
  LlmResult res = set->CallBlocking(r);
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  ::unsetenv("AWS_SESSION_TOKEN");
  BOOST_REQUIRE_MESSAGE(res.ok(), (res.ok() ? std::string() : res.error().ToString()));
  BOOST_TEST(res.response().text == "Fuse the two loops.");
  BOOST_TEST(res.response().reasoning == "The loops share x.");
  BOOST_TEST(res.response().cost_usd == (600 * 3.0 + 400 * 3.0 + 200 * 15.0) / 1e6,
             boost::test_tools::tolerance(1e-12));

  json rec = server.requests().at(0);
  const std::string path = rec["path"];
  BOOST_TEST(path == "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse");
  BOOST_TEST(rec["model"] == "anthropic.claude-3-5-sonnet-20240620-v1:0");
  json h = rec["headers"];
  const std::string auth = h["authorization"];
  const std::string date = h["x-amz-date"];
  BOOST_REQUIRE(date.size() == 16u);
  BOOST_TEST(
      auth.rfind("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/" + date.substr(0, 8) + "/us-east-1/bedrock/aws4_request, ",
                 0) == 0u);
  BOOST_TEST(h["x-amz-security-token"] == "session-token-EXAMPLE-123456");
  const std::string signed_headers = Field(auth, "SignedHeaders");
  BOOST_TEST(signed_headers == "accept;content-type;host;x-amz-date;x-amz-security-token");

  // Recompute the signature from what arrived on the wire.
  std::string canonical_headers;
  for (size_t pos = 0; pos < signed_headers.size();) {
    size_t semi = signed_headers.find(';', pos);
    std::string name = signed_headers.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
    canonical_headers += name + ":" + h[name].get<std::string>() + "\n";
    pos = semi == std::string::npos ? signed_headers.size() : semi + 1;
  }
  std::string canonical_path = path;
  for (size_t p = 0; (p = canonical_path.find('%', p)) != std::string::npos; p += 3) {
    canonical_path.replace(p, 1, "%25");
  }
  const std::string creq = "POST\n" + canonical_path + "\n\n" + canonical_headers + "\n" + signed_headers + "\n" +
                           Sha256Hex(rec["body"].get<std::string>());
  const std::string scope = date.substr(0, 8) + "/us-east-1/bedrock/aws4_request";
  const std::string sts = "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + Sha256Hex(creq);
  std::string k = Hmac("AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", date.substr(0, 8));
  k = Hmac(k, "us-east-1");
  k = Hmac(k, "bedrock");
  k = Hmac(k, "aws4_request");
  BOOST_TEST(Field(auth + ",", "Signature") == ToHex(Hmac(k, sts)));

  json body = json::parse(rec["body"].get<std::string>());
  BOOST_TEST(body["system"][0]["text"] == "You are the planner.");
  BOOST_TEST(body["messages"][0]["content"][0]["text"] == "Optimize this kernel.");
  BOOST_TEST(body["inferenceConfig"]["maxTokens"] == 256);
}

BOOST_AUTO_TEST_CASE(unknown_provider_and_invalid_requests_are_typed_errors) {
  FakeLlmServer server(ReplyScript());
  auto set = MakeSet({{"local", FakeProviderEntry(server, "openai")}});
  LlmResult res = set->CallBlocking(Req("nope"));
  BOOST_REQUIRE(!res.ok());
  BOOST_TEST(res.error().kind == LlmErrorKind::kConfig);
  LlmRequest r = Req("local");
  r.max_tokens = 0;
  res = set->CallBlocking(r);
  BOOST_REQUIRE(!res.ok());
  BOOST_TEST(res.error().kind == LlmErrorKind::kInvalidRequest);
  BOOST_TEST(server.total() == 0);
}

BOOST_AUTO_TEST_CASE(secrets_never_appear_in_errors) {
  // The server echoes the key back in its error message, as some providers do.
  const std::string key = "sk-planted-SECRET-9f8e7d6c5b4a";
  json script = {
      {"rules",
       json::array(
           {{{"name", "deny"},
             {"fault", {{"kind", "status"}, {"status", 401}, {"message", "Incorrect API key provided: " + key}}}}})}};
  FakeLlmServer server(script);
  json p = FakeProviderEntry(server, "openai");
  p["api_key_env"] = "ACCELOPT_TEST_PLANTED_KEY";
  ::setenv("ACCELOPT_TEST_PLANTED_KEY", key.c_str(), 1);
  auto set = MakeSet({{"local", p}});
  LlmResult res = set->CallBlocking(Req("local"));
  ::unsetenv("ACCELOPT_TEST_PLANTED_KEY");
  BOOST_REQUIRE(!res.ok());
  BOOST_TEST(res.error().kind == LlmErrorKind::kAuth);
  BOOST_TEST(!res.error().retryable);
  BOOST_TEST(res.error().http_status == 401);
  BOOST_TEST(server.total() == 1);  // 401 is not retried
  const std::string all = res.error().ToString() + Dump(ToJson(res.error())) + res.error().ToStatus().ToString();
  BOOST_TEST(all.find(key) == std::string::npos);
  BOOST_TEST(all.find("SECRET-9f8e") == std::string::npos);
  BOOST_TEST(all.find("Incorrect API key provided") != std::string::npos);
  // And it did go out, in the header only.
  BOOST_TEST(server.requests()[0]["headers"]["authorization"] == "Bearer " + key);
}

// Errors that waiting cannot heal go back after one attempt, with what to
// check; a body that is not OpenAI-shaped keeps its message.
BOOST_AUTO_TEST_CASE(errors_that_cannot_heal_fail_fast_with_a_hint) {
  struct Case {
    int status;
    json body;  // null: the API's own error shape
    LlmErrorKind kind;
    std::string must_contain;
  };
  const std::vector<Case> cases = {
      {404, nullptr, LlmErrorKind::kClientError, "the server answered 404 for /v1/chat/completions"},
      {401, nullptr, LlmErrorKind::kAuth, "check the API key"},
      {403, nullptr, LlmErrorKind::kAuth, "permissions"},
      {400, nullptr, LlmErrorKind::kClientError, "refused the request as invalid"},
      {422, json{{"detail", json::array({{{"loc", {"body", "model"}}, {"msg", "unknown model llama-9"}}})}},
       LlmErrorKind::kClientError, "unknown model llama-9"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT("HTTP " << c.status) {
      json fault = {{"kind", "status"}, {"status", c.status}};
      if (!c.body.is_null()) fault["body"] = c.body;
      json script = {{"rules", json::array({{{"name", "e"}, {"fault", fault}}})}};
      FakeLlmServer server(script);
      json p = FakeProviderEntry(server, "openai");
      p["retry"] = {{"max_attempts", 5}, {"base_ms", 10}, {"cap_ms", 20}};
      auto set = MakeSet({{"local", p}});
      LlmResult res = set->CallBlocking(Req("local"));
      BOOST_REQUIRE(!res.ok());
      BOOST_TEST(res.error().kind == c.kind);
      BOOST_TEST(!res.error().retryable);
      BOOST_TEST(server.total() == 1);  // no retry budget burnt
      BOOST_TEST(res.error().message.find(c.must_contain) != std::string::npos, res.error().message);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace accelopt::llm
