#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>

#include "base/sha256.hpp"
#include "llm/codec.hpp"
#include "llm/error_class.hpp"
#include "llm/pricing.hpp"
#include "llm/retry.hpp"
#include "llm/types.hpp"

namespace accelopt::llm {
namespace {

LlmRequest Base() {
  LlmRequest r;
  r.provider = "local";
  r.model = "gpt-oss-120b";
  r.system = "You are the planner.";
  r.user = "Make it faster.";
  r.max_tokens = 1000;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(types)

BOOST_AUTO_TEST_CASE(request_hash_is_sha256_of_documented_canonical_json) {
  LlmRequest r = Base();
  r.temperature = 0.7;
  r.stop = {"```"};
  // The canonical form: sorted keys, unset optionals omitted, "v": 1.
  const std::string expected_canonical =
      R"({"max_tokens":1000,"model":"gpt-oss-120b","provider":"local","stop":["```"],)"
      R"("system":"You are the planner.","temperature":0.7,"user":"Make it faster.","v":1})";
  BOOST_TEST(Dump(CanonicalRequestJson(r)) == expected_canonical);
  BOOST_TEST(RequestHash(r) == Sha256Hex(expected_canonical));
}

BOOST_AUTO_TEST_CASE(request_hash_changes_with_every_field_that_affects_the_reply) {
  const std::string h0 = RequestHash(Base());
  BOOST_TEST(RequestHash(Base()) == h0);
  auto differs = [&](auto mutate) {
    LlmRequest r = Base();
    mutate(r);
    return RequestHash(r) != h0;
  };
  BOOST_TEST(differs([](LlmRequest& r) { r.provider = "other"; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.model = "qwen3-coder"; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.system += " "; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.user = "Make it slower."; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.max_tokens = 1001; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.temperature = 0.0; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.reasoning_effort = "high"; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.thinking_budget = 2048; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.stop = {"END"}; }));
  BOOST_TEST(differs([](LlmRequest& r) { r.request_id = "campaign-1/it2/executor/3"; }));
}

BOOST_AUTO_TEST_CASE(request_and_response_round_trip_through_json) {
  LlmRequest r = Base();
  r.temperature = 1.0;
  r.thinking_budget = 4096;
  r.stop = {"a", "b"};
  r.request_id = "x";
  auto back = LlmRequest::FromJson(ToJson(r));
  BOOST_REQUIRE(back.ok());
  BOOST_TEST(RequestHash(*back) == RequestHash(r));

  LlmResponse resp;
  resp.text = "```cpp\nint main(){}\n```";
  resp.reasoning = "think";
  resp.finish_reason = "stop";
  resp.input_tokens = 100;
  resp.output_tokens = 50;
  resp.cached_tokens = 20;
  resp.cost_usd = 0.25;
  resp.cost_known = true;
  resp.attempts = {{503, "server_error", std::chrono::milliseconds(12), std::chrono::milliseconds(0)},
                   {200, "", std::chrono::milliseconds(30), std::chrono::milliseconds(7)}};
  auto rb = LlmResponse::FromJson(ToJson(resp));
  BOOST_REQUIRE(rb.ok());
  BOOST_TEST(Dump(ToJson(*rb)) == Dump(ToJson(resp)));
  BOOST_TEST(!LlmResponse::FromJson(json{{"reasoning", "no text"}}).ok());
  BOOST_TEST(!LlmResponse::FromJson(json{{"text", 5}}).ok());
}

BOOST_AUTO_TEST_CASE(cost_uses_cached_price_for_cached_tokens) {
  ModelPrice p{1.0, 4.0, 0.25};
  // 1M input of which 400k cached, 500k output.
  const double cost = CostUsd(p, 1'000'000, 500'000, 400'000);
  BOOST_TEST(cost == 0.6 * 1.0 + 0.4 * 0.25 + 0.5 * 4.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(CostUsd(p, 10, 0, 50) == 10 * 0.25 / 1e6, boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(backoff_is_capped_full_jitter_and_honours_retry_after) {
  RetryPolicy p;
  p.base = Millis(100);
  p.cap = Millis(1000);
  p.max_retry_after = Millis(5000);
  for (int retry = 1; retry <= 10; ++retry) {
    int64_t ceiling = std::min<int64_t>(1000, 100LL << (retry - 1));
    int64_t seen_max = 0;
    for (uint64_t rnd = 0; rnd < 5000; rnd += 7) {
      auto d = FullJitterBackoff(p, retry, rnd * 2654435761u);
      BOOST_TEST(d.count() >= 0);
      BOOST_TEST(d.count() <= ceiling);
      seen_max = std::max(seen_max, static_cast<int64_t>(d.count()));
    }
    BOOST_TEST(seen_max > ceiling / 2);  // the range is actually used
  }
  auto d = RetryDelay(p, 1, Millis(3000), 1);
  BOOST_REQUIRE(d.has_value());
  BOOST_TEST(d->count() >= 3000);
  BOOST_TEST(!RetryDelay(p, 1, Millis(6000), 1).has_value());
  BOOST_TEST(IsRetryableHttpStatus(429));
  BOOST_TEST(IsRetryableHttpStatus(408));
  BOOST_TEST(IsRetryableHttpStatus(503));
  BOOST_TEST(IsRetryableHttpStatus(529));
  BOOST_TEST(!IsRetryableHttpStatus(400));
  BOOST_TEST(!IsRetryableHttpStatus(401));
  BOOST_TEST(!IsRetryableHttpStatus(404));
}

// Errors that no wait heals stop a campaign at once (llm/error_class.hpp);
// the ones that depend on the request or heal by waiting do not.
BOOST_AUTO_TEST_CASE(auth_config_and_404_fail_every_call_the_others_do_not) {
  auto err = [](LlmErrorKind k, int status) {
    LlmError e;
    e.kind = k;
    e.http_status = status;
    return e;
  };
  BOOST_TEST(FailsEveryCall(err(LlmErrorKind::kAuth, 401)));
  BOOST_TEST(FailsEveryCall(err(LlmErrorKind::kAuth, 403)));
  BOOST_TEST(FailsEveryCall(err(LlmErrorKind::kAuth, 0)));  // missing credentials
  BOOST_TEST(FailsEveryCall(err(LlmErrorKind::kConfig, 0)));
  BOOST_TEST(FailsEveryCall(err(LlmErrorKind::kClientError, 404)));
  BOOST_TEST(!FailsEveryCall(err(LlmErrorKind::kClientError, 400)));
  BOOST_TEST(!FailsEveryCall(err(LlmErrorKind::kClientError, 422)));
  BOOST_TEST(!FailsEveryCall(err(LlmErrorKind::kRateLimited, 429)));
  BOOST_TEST(!FailsEveryCall(err(LlmErrorKind::kServerError, 503)));
  BOOST_TEST(!FailsEveryCall(err(LlmErrorKind::kNetwork, 0)));
  BOOST_TEST(!FailsEveryCall(err(LlmErrorKind::kTimeout, 0)));
  BOOST_TEST(!FailsEveryCall(err(LlmErrorKind::kMalformed, 200)));
  BOOST_TEST(!FailsEveryCall(err(LlmErrorKind::kTruncated, 200)));
  BOOST_TEST(FixForEveryCallError(err(LlmErrorKind::kAuth, 401)).find("API key") != std::string::npos);
  BOOST_TEST(FixForEveryCallError(err(LlmErrorKind::kAuth, 403)).find("access to this model") != std::string::npos);
  BOOST_TEST(FixForEveryCallError(err(LlmErrorKind::kClientError, 404)).find("base_url") != std::string::npos);
  BOOST_TEST(FixForEveryCallError(err(LlmErrorKind::kServerError, 503)).empty());
}

BOOST_AUTO_TEST_CASE(numbers_out_of_int64_range_are_refused_not_cast) {
  // A double outside int64's range (or NaN) cast to int64 is undefined
  // behaviour; replies and recorded JSON come from outside.
  json j = {{"huge", 1e300}, {"tiny", -1e300}, {"nan", NAN}, {"frac", 42.9}, {"u", UINT64_MAX}, {"s", "7"}};
  using namespace codec_util;
  BOOST_TEST(Int(Find(j, "huge")) == 0);
  BOOST_TEST(Int(Find(j, "tiny")) == 0);
  BOOST_TEST(Int(Find(j, "nan")) == 0);
  BOOST_TEST(Int(Find(j, "frac")) == 42);
  BOOST_TEST(Int(Find(j, "u")) == INT64_MAX);
  BOOST_TEST(Int(Find(j, "s")) == 0);
  BOOST_TEST(!LlmResponse::FromJson({{"text", "x"}, {"input_tokens", 1e300}}).ok());
  BOOST_TEST(!LlmResponse::FromJson({{"text", "x"}, {"latency_ms", 2.5}}).ok());
  BOOST_TEST(LlmResponse::FromJson({{"text", "x"}, {"input_tokens", 12}}).ok());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace accelopt::llm
