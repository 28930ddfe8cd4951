// A real HTTP/1.1 server on 127.0.0.1 that speaks OpenAI chat completions
// (POST .../chat/completions), Anthropic messages (POST .../v1/messages) and
// Bedrock Converse (POST /model/{id}/converse), answering from a FakeScript,
// with fault injection. TEST TOOL ONLY: it lives in tests/fakes, is never
// installed, and is never a provider.
//
//   FakeLlmServer server(script_json);          // throws on a bad script
//   cfg["base_url"] = server.base_url() + "/v1";
//   ... run the client ...
//   BOOST_TEST(server.count("plan") == 3);
//
// Also: GET /_fake/requests (every request received, JSON array),
// GET /_fake/counts ({"rule": n, ..., "_total": n, "_unmatched": n}),
// POST /_fake/reset (clears counts and records). An unmatched request gets
// 404 {"error": {"message": "fake-llm-server: no rule matched"}}.
//
// Threads: one accept thread and one thread per connection (blocking Beast),
// so latencies and stalls of different connections overlap. All public
// methods are thread-safe. The destructor closes every connection (stalled
// ones included) and joins all threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/json.hpp"
#include "tests/fakes/llm_server/script.hpp"

namespace accelopt::fakes {

class FakeLlmServer {
 public:
  // Binds 127.0.0.1:port (0 = ephemeral) and starts serving.
  // Throws std::runtime_error on a bad script or bind failure.
  explicit FakeLlmServer(const json& script, uint16_t port = 0);
  ~FakeLlmServer();
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  uint16_t port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Requests served by the rule named `rule` (0 if none has that name).
  int count(const std::string& rule) const;
  int total() const;      // model requests received (matched or not)
  int unmatched() const;  // model requests no rule matched
  // Every model request: {"api","path","model","system","user","rule"
  // (null when unmatched),"headers" (lower-case names),"body"}.
  std::vector<json> requests() const;
  // Most model requests being handled at the same time so far.
  int peak_in_flight() const { return peak_in_flight_.load(); }

  // Replaces the script and clears counts and records. Throws on a bad script.
  void SetScript(const json& script);
  void Reset();

 private:
  struct Conn;
  void AcceptLoop();
  void Serve(std::shared_ptr<Conn> conn);
  // Sleeps up to ms; returns false when the server is stopping.
  bool SleepMs(int64_t ms);

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  FakeScript script_;
  std::vector<json> records_;
  int total_ = 0, unmatched_ = 0;
  std::list<std::shared_ptr<Conn>> conns_;
  std::atomic<int> in_flight_{0};
  std::atomic<int> peak_in_flight_{0};
};

}  // namespace accelopt::fakes
