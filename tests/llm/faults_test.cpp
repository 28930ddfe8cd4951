// Every fault of the fake server → the right retry or the right typed error;
// bounded retry storms; concurrency limits; cancellation.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <future>
#include <thread>

#include "llm/http_provider.hpp"
#include "tests/llm/test_util.hpp"

namespace accelopt::llm {
namespace {

using fakes::FakeLlmServer;
using namespace testing;
using namespace std::chrono_literals;

// A script: `fault_rule` (limited to `times` requests when > 0) then a good reply.
json FaultThenOk(json fault, int times) {
  json first = {{"name", "fault"}, {"fault", std::move(fault)}};
  if (times > 0) first["match"] = {{"times", times}};
  return {{"rules", json::array({first, {{"name", "ok"}, {"reply", {{"text", "fine"}}}}})}};
}

LlmResult CallOnce(FakeLlmServer& server, json entry_overrides = json::object(), LlmRequest req = Req("p")) {
  json entry = FakeProviderEntry(server, "openai");
  entry.merge_patch(entry_overrides);
  auto set = MakeSet({{"p", entry}});
  return set->CallBlocking(req);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(faults)

BOOST_AUTO_TEST_CASE(rate_limit_with_retry_after_is_retried_after_waiting) {
  FakeLlmServer server(FaultThenOk({{"kind", "429"}, {"retry_after_s", 1}}, 1));
  auto t0 = std::chrono::steady_clock::now();
  LlmResult r = CallOnce(server);
  const double elapsed = Seconds(t0);
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().ToString()));
  BOOST_TEST(server.count("fault") == 1);
  BOOST_TEST(server.count("ok") == 1);
  BOOST_REQUIRE(r.response().attempts.size() == 2u);
  BOOST_TEST(r.response().attempts[0].status == 429);
  BOOST_TEST(r.response().attempts[0].error.find("rate_limited") == std::string::npos);  // message, not kind
  BOOST_TEST(r.response().attempts[1].backoff.count() >= 1000);
  BOOST_TEST(elapsed >= 1.0);
  BOOST_TEST(elapsed < 5.0);
}

BOOST_AUTO_TEST_CASE(retry_after_ms_header_is_honoured) {
  FakeLlmServer server(FaultThenOk({{"kind", "429"}, {"retry_after_ms", 300}}, 2));
  LlmResult r = CallOnce(server);
  BOOST_REQUIRE(r.ok());
  BOOST_REQUIRE(r.response().attempts.size() == 3u);
  BOOST_TEST(r.response().attempts[1].backoff.count() >= 300);
  BOOST_TEST(r.response().attempts[2].backoff.count() >= 300);
}

BOOST_AUTO_TEST_CASE(too_long_retry_after_gives_up_with_a_retryable_error) {
  FakeLlmServer server(FaultThenOk({{"kind", "429"}, {"retry_after_s", 3600}}, 0));
  LlmResult r = CallOnce(server);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kRateLimited);
  BOOST_TEST(r.error().retryable);
  BOOST_TEST(server.total() == 1);
}

BOOST_AUTO_TEST_CASE(server_errors_are_retried_then_succeed) {
  for (const char* kind : {"500", "503"}) {
    FakeLlmServer server(FaultThenOk(kind, 2));
    LlmResult r = CallOnce(server);
    BOOST_REQUIRE_MESSAGE(r.ok(), kind);
    BOOST_TEST(server.count("fault") == 2);
    BOOST_TEST(r.response().attempts.size() == 3u);
    BOOST_TEST(r.response().attempts[0].status == std::atoi(kind));
    BOOST_TEST(r.response().attempts[2].status == 200);
  }
}

BOOST_AUTO_TEST_CASE(exhausted_retries_give_a_retryable_typed_error) {
  FakeLlmServer server(FaultThenOk("503", 0));
  LlmResult r = CallOnce(server, {{"retry", {{"max_attempts", 3}}}});
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kServerError);
  BOOST_TEST(r.error().retryable);
  BOOST_TEST(r.error().http_status == 503);
  BOOST_TEST(r.error().attempts.size() == 3u);
  BOOST_TEST(server.total() == 3);
  BOOST_TEST(r.error().message.find("after 3 attempts") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(client_errors_are_not_retried) {
  for (int status : {400, 404, 422}) {
    FakeLlmServer server(FaultThenOk({{"kind", "status"}, {"status", status}}, 0));
    LlmResult r = CallOnce(server);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().kind == LlmErrorKind::kClientError);
    BOOST_TEST(!r.error().retryable);
    BOOST_TEST(server.total() == 1);
  }
  FakeLlmServer server(FaultThenOk({{"kind", "status"}, {"status", 408}}, 1));
  BOOST_TEST(CallOnce(server).ok());  // 408 is retried
  BOOST_TEST(server.total() == 2);
}

BOOST_AUTO_TEST_CASE(connection_reset_is_retried) {
  FakeLlmServer server(FaultThenOk("reset", 2));
  LlmResult r = CallOnce(server);
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().ToString()));
  BOOST_TEST(server.count("fault") == 2);
  BOOST_TEST(r.response().attempts.size() == 3u);
  BOOST_TEST(!r.response().attempts[0].error.empty());

  FakeLlmServer always(FaultThenOk("reset", 0));
  r = CallOnce(always, {{"retry", {{"max_attempts", 2}}}});
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kNetwork);
  BOOST_TEST(r.error().retryable);
}

BOOST_AUTO_TEST_CASE(connection_refused_is_a_retryable_network_error) {
  int port;
  {
    FakeLlmServer gone(json{{"rules", json::array()}});
    port = gone.port();
  }
  json entry = {{"kind", "openai"},
                {"base_url", "http://127.0.0.1:" + std::to_string(port) + "/v1"},
                {"retry", {{"max_attempts", 2}, {"base_ms", 1}, {"cap_ms", 5}}}};
  auto set = MakeSet({{"p", entry}});
  LlmResult r = set->CallBlocking(Req("p"));
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kNetwork);
  BOOST_TEST(r.error().retryable);
  BOOST_TEST(r.error().attempts.size() == 2u);
}

BOOST_AUTO_TEST_CASE(stalled_body_times_out_and_is_retried) {
  FakeLlmServer server(FaultThenOk({{"kind", "stall"}, {"stall_ms", 5000}}, 1));
  auto t0 = std::chrono::steady_clock::now();
  LlmResult r = CallOnce(server, {{"timeouts", {{"stall_ms", 300}}}});
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().ToString()));
  BOOST_TEST(Seconds(t0) < 3.0);
  BOOST_REQUIRE(r.response().attempts.size() == 2u);
  BOOST_TEST(r.response().attempts[0].error.find("no data for 300 ms") != std::string::npos);

  FakeLlmServer always(FaultThenOk({{"kind", "stall"}, {"stall_ms", 5000}}, 0));
  r = CallOnce(always, {{"timeouts", {{"stall_ms", 200}}}, {"retry", {{"max_attempts", 2}}}});
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kTimeout);
  BOOST_TEST(r.error().retryable);
}

BOOST_AUTO_TEST_CASE(total_timeout_bounds_a_slow_reply) {
  json script = {{"rules", json::array({{{"name", "slow"}, {"latency_ms", 3000}, {"reply", {{"text", "late"}}}}})}};
  FakeLlmServer server(script);
  auto t0 = std::chrono::steady_clock::now();
  LlmResult r = CallOnce(server, {{"timeouts", {{"total_ms", 300}}}, {"retry", {{"max_attempts", 1}}}});
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kTimeout);
  BOOST_TEST(Seconds(t0) < 2.0);
}

BOOST_AUTO_TEST_CASE(malformed_replies_are_typed_errors_never_empty_successes) {
  struct Case {
    const char* fault;
    LlmErrorKind kind;
  };
  for (const char* api : {"openai", "anthropic", "bedrock"}) {
    for (Case c : {Case{"invalid_json", LlmErrorKind::kMalformed}, Case{"missing_fields", LlmErrorKind::kMalformed},
                   Case{"empty", LlmErrorKind::kEmptyReply}, Case{"length", LlmErrorKind::kTruncated}}) {
      FakeLlmServer server(FaultThenOk(c.fault, 0));
      ::setenv("ACCELOPT_TEST_ANTHROPIC_KEY", "sk-ant-xxxxxxxxxxxx", 1);
      ::setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE", 1);
      ::setenv("AWS_SECRET_ACCESS_KEY", "secret-example-key", 1);
      auto set = MakeSet({{"p", FakeProviderEntry(server, api)}});
      LlmResult r = set->CallBlocking(Req("p"));
      BOOST_TEST_CONTEXT(api << " " << c.fault) {
        BOOST_REQUIRE(!r.ok());
        BOOST_TEST(static_cast<int>(r.error().kind) == static_cast<int>(c.kind));
        BOOST_TEST(!r.error().retryable);
        BOOST_TEST(server.total() == 1);  // not retried
        if (c.kind == LlmErrorKind::kTruncated) {
          BOOST_REQUIRE(r.error().partial.has_value());
          BOOST_TEST(r.error().partial->finish_reason == "length");
          BOOST_TEST(r.error().partial->output_tokens > 0);
          BOOST_TEST(r.error().partial->cost_known);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(huge_replies_succeed_or_fail_by_the_size_limit) {
  FakeLlmServer server(FaultThenOk({{"kind", "huge"}, {"bytes", 4 << 20}}, 0));
  LlmResult r = CallOnce(server);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.response().text.size() == static_cast<size_t>(4 << 20));

  r = CallOnce(server, {{"max_response_bytes", 1 << 20}});
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kTooLarge);
  BOOST_TEST(!r.error().retryable);
}

BOOST_AUTO_TEST_CASE(retry_storm_is_bounded) {
  // Many calls against a server that always fails: exactly calls × attempts
  // requests, never more than max_concurrency at once, all finished quickly.
  const int calls = 30 * StressScale();
  FakeLlmServer server(FaultThenOk("503", 0));
  json entry = FakeProviderEntry(server, "openai");
  entry["max_concurrency"] = 4;
  entry["retry"] = {{"max_attempts", 3}, {"base_ms", 1}, {"cap_ms", 20}};
  auto set = MakeSet({{"p", entry}});
  std::vector<std::future<LlmResult>> futures;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {
    auto promise = std::make_shared<std::promise<LlmResult>>();
    futures.push_back(promise->get_future());
    set->Call(Req("p", "call " + std::to_string(i)), [promise](LlmResult r) { promise->set_value(std::move(r)); });
  }
  for (auto& f : futures) {
    LlmResult r = f.get();
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().kind == LlmErrorKind::kServerError);
    BOOST_TEST(r.error().attempts.size() == 3u);
  }
  BOOST_TEST(server.total() == calls * 3);
  BOOST_TEST(server.peak_in_flight() <= 4);
  BOOST_TEST(Seconds(t0) < 20.0);
}

BOOST_AUTO_TEST_CASE(concurrency_limit_is_respected) {
  json script = {{"rules", json::array({{{"name", "ok"}, {"latency_ms", 50}, {"reply", {{"text", "x"}}}}})}};
  FakeLlmServer server(script);
  json entry = FakeProviderEntry(server, "openai");
  entry["max_concurrency"] = 3;
  auto set = MakeSet({{"p", entry}});
  std::atomic<int> ok{0};
  std::vector<std::future<void>> done;
  for (int i = 0; i < 12; ++i) {
    auto promise = std::make_shared<std::promise<void>>();
    done.push_back(promise->get_future());
    set->Call(Req("p"), [promise, &ok](LlmResult r) {
      if (r.ok()) ++ok;
      promise->set_value();
    });
  }
  for (auto& f : done) f.get();
  BOOST_TEST(ok.load() == 12);
  BOOST_TEST(server.peak_in_flight() == 3);
}

BOOST_AUTO_TEST_CASE(cancellation_stops_in_flight_requests) {
  FakeLlmServer server(FaultThenOk({{"kind", "stall"}}, 0));  // stalls until the server stops
  json entry = FakeProviderEntry(server, "openai");
  entry["timeouts"] = {{"stall_ms", 60000}, {"total_ms", 60000}};
  auto set = MakeSet({{"p", entry}});

  // Through the handle.
  auto promise = std::make_shared<std::promise<LlmResult>>();
  auto fut = promise->get_future();
  CallHandle h = set->Call(Req("p"), [promise](LlmResult r) { promise->set_value(std::move(r)); });
  while (server.total() < 1) std::this_thread::sleep_for(5ms);
  auto t0 = std::chrono::steady_clock::now();
  h.Cancel();
  BOOST_REQUIRE(fut.wait_for(2s) == std::future_status::ready);
  LlmResult r = fut.get();
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kCancelled);
  BOOST_TEST(!r.error().retryable);
  BOOST_TEST(Seconds(t0) < 1.0);

  // Through an external flag.
  std::atomic<bool> stop{false};
  auto p2 = std::make_shared<std::promise<LlmResult>>();
  auto f2 = p2->get_future();
  set->Call(
      Req("p"), [p2](LlmResult r) { p2->set_value(std::move(r)); }, &stop);
  while (server.total() < 2) std::this_thread::sleep_for(5ms);
  stop = true;
  BOOST_REQUIRE(f2.wait_for(2s) == std::future_status::ready);
  BOOST_TEST(f2.get().error().kind == LlmErrorKind::kCancelled);
  BOOST_TEST(server.total() == 2);  // no retry after a cancel
}

BOOST_AUTO_TEST_CASE(cancellation_during_backoff_and_in_the_queue) {
  FakeLlmServer server(FaultThenOk({{"kind", "429"}, {"retry_after_s", 30}}, 0));
  json entry = FakeProviderEntry(server, "openai");
  entry["max_concurrency"] = 1;
  entry["retry"] = {{"max_attempts", 5}, {"base_ms", 1}, {"cap_ms", 5}, {"max_retry_after_ms", 60000}};
  auto set = MakeSet({{"p", entry}});
  auto p1 = std::make_shared<std::promise<LlmResult>>();
  auto p2 = std::make_shared<std::promise<LlmResult>>();
  auto f1 = p1->get_future();
  auto f2 = p2->get_future();
  CallHandle h1 = set->Call(Req("p"), [p1](LlmResult r) { p1->set_value(std::move(r)); });
  CallHandle h2 = set->Call(Req("p"), [p2](LlmResult r) { p2->set_value(std::move(r)); });
  while (server.total() < 1) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(50ms);  // call 1 is now backing off for 30 s; call 2 waits for the slot
  h2.Cancel();
  BOOST_REQUIRE(f2.wait_for(2s) == std::future_status::ready);
  BOOST_TEST(f2.get().error().kind == LlmErrorKind::kCancelled);
  h1.Cancel();
  BOOST_REQUIRE(f1.wait_for(2s) == std::future_status::ready);
  LlmResult r1 = f1.get();
  BOOST_TEST(r1.error().kind == LlmErrorKind::kCancelled);
  BOOST_TEST(r1.error().attempts.size() == 1u);
  BOOST_TEST(server.total() == 1);
}

BOOST_AUTO_TEST_CASE(destroying_the_set_completes_outstanding_calls) {
  FakeLlmServer server(FaultThenOk({{"kind", "stall"}}, 0));
  std::atomic<int> cancelled{0};
  {
    json entry = FakeProviderEntry(server, "openai");
    entry["max_concurrency"] = 2;
    auto set = MakeSet({{"p", entry}});
    for (int i = 0; i < 5; ++i) {
      set->Call(Req("p"), [&](LlmResult r) {
        if (!r.ok() && r.error().kind == LlmErrorKind::kCancelled) ++cancelled;
      });
    }
    while (server.total() < 2) std::this_thread::sleep_for(5ms);
  }
  BOOST_TEST(cancelled.load() == 5);
}

// What a local server answers (llama.cpp, llama-cpp-python; issue 37).
BOOST_AUTO_TEST_CASE(a_prompt_over_the_context_window_is_a_named_error_with_the_servers_words) {
  for (const char* message : {"the request exceeds the available context size, try increasing it",
                              "This model's maximum context length is 8192 tokens. However, you "
                              "requested 9100 tokens (8900 in the messages, 200 in the completion)."}) {
    FakeLlmServer server(FaultThenOk({{"kind", "status"}, {"status", 400}, {"message", message}}, 0));
    LlmResult r = CallOnce(server);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().kind == LlmErrorKind::kContextOverflow);
    BOOST_TEST(std::string(LlmErrorKindName(r.error().kind)) == "context_overflow");
    BOOST_TEST(!r.error().retryable);
    BOOST_TEST(r.error().message.find(std::string(message).substr(0, 30)) != std::string::npos);
    BOOST_TEST(server.total() == 1);  // not sent again as is
  }
  // Another 400 stays a client error.
  FakeLlmServer other(FaultThenOk({{"kind", "status"}, {"status", 400}, {"message", "bad temperature"}}, 0));
  BOOST_TEST(CallOnce(other).error().kind == LlmErrorKind::kClientError);
}

BOOST_AUTO_TEST_CASE(a_template_without_a_system_role_gets_the_system_prompt_in_the_user_message) {
  // The server refuses any request with a system message (as Gemma 2's
  // template does, with a 500 from llama-cpp-python's jinja).
  json script = {
      {"rules",
       json::array({{{"name", "no-system"},
                     {"match", {{"system_regex", "."}}},
                     {"fault", {{"kind", "status"}, {"status", 500}, {"message", "System role not supported"}}}},
                    {{"name", "ok"}, {"reply", {{"text", "fine"}}}}})}};
  FakeLlmServer server(script);
  json entry = FakeProviderEntry(server, "openai");
  auto set = MakeSet({{"p", entry}});
  LlmResult r = set->CallBlocking(Req("p", "Optimize this kernel.", "You are the planner."));
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().ToString()));
  BOOST_TEST(r.response().text == "fine");
  BOOST_TEST(server.count("no-system") == 1);  // not retried 6 times as a 500
  BOOST_REQUIRE(r.response().attempts.size() == 2u);
  BOOST_TEST(r.response().attempts[0].error.find("System role not supported") != std::string::npos);
  auto requests = server.requests();
  BOOST_REQUIRE(requests.size() == 2u);
  BOOST_TEST(requests[1]["system"].get<std::string>().empty());
  BOOST_TEST(requests[1]["user"].get<std::string>() == "You are the planner.\n\nOptimize this kernel.");
  // The model's later calls are folded at once.
  LlmResult again = set->CallBlocking(Req("p", "Second.", "You are the executor."));
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(again.response().attempts.size() == 1u);
  BOOST_TEST(server.count("no-system") == 1);
  // A server that refuses the folded prompt too: a typed error, no loop.
  json never = {
      {"rules",
       json::array({{{"name", "never"},
                     {"fault", {{"kind", "status"}, {"status", 400}, {"message", "System role not supported"}}}}})}};
  FakeLlmServer server2(never);
  auto set2 = MakeSet({{"p", FakeProviderEntry(server2, "openai")}});
  LlmResult r2 = set2->CallBlocking(Req("p"));
  BOOST_REQUIRE(!r2.ok());
  BOOST_TEST(r2.error().kind == LlmErrorKind::kClientError);
  BOOST_TEST(server2.total() == 2);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace accelopt::llm
