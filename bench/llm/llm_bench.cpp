// Throughput of the HTTP client under a concurrency limit: N requests to the
// fake server, each answered after `latency_ms`, at most `concurrency` in
// flight. The ideal is N / concurrency * latency (1.25 s for the
// defaults); whole waves make ceil(N / concurrency) * latency (1.30 s) the
// true lower bound, printed too. The ratio measured / ideal shows the
// overhead of the transport, queueing and slot hand-off.
// Target: ratio <= 1.10 against the ideal for 200 requests, 100 ms,
// concurrency 16.
//
//   llm_bench [requests=200] [latency_ms=100] [concurrency=16] [rounds=3]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <vector>

#include "llm/client.hpp"
#include "tests/fakes/llm_server/fake_llm_server.hpp"
#include "bench/bench_help.hpp"

using namespace accelopt;
using namespace accelopt::llm;

int main(int argc, char** argv) {
  if (accelopt::bench::PrintedHelp(argc, argv,
                                   "usage: llm_bench [requests=200] [latency_ms=100] [concurrency=16] [rounds=3]\n"))
    return 0;
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  const int latency_ms = argc > 2 ? std::atoi(argv[2]) : 100;
  const int concurrency = argc > 3 ? std::atoi(argv[3]) : 16;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 3;

  json script = {
      {"rules",
       json::array({{{"name", "ok"}, {"latency_ms", latency_ms}, {"reply", {{"text", "```cpp\nvoid k() {}\n```"}}}}})}};
  fakes::FakeLlmServer server(script);
  json providers = {
      {"providers",
       {{"local", {{"kind", "openai"}, {"base_url", server.base_url() + "/v1"}, {"max_concurrency", concurrency}}}}}};
  auto set = ProviderSet::Create(providers, {});
  if (!set.ok()) {
    std::fprintf(stderr, "%s\n", set.status().ToString().c_str());
    return 1;
  }
  const double ideal_s = static_cast<double>(n) / concurrency * latency_ms / 1000.0;
  const double waves_s = std::ceil(static_cast<double>(n) / concurrency) * latency_ms / 1000.0;
  std::printf("llm_bench: %d requests, %d ms latency, concurrency %d; ideal %.3f s (whole waves %.3f s)\n", n,
              latency_ms, concurrency, ideal_s, waves_s);
  double best = 1e9;
  int failures = 0;
  for (int round = 0; round < rounds; ++round) {
    server.Reset();
    std::vector<std::future<bool>> done;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      auto p = std::make_shared<std::promise<bool>>();
      done.push_back(p->get_future());
      LlmRequest r;
      r.provider = "local";
      r.model = "gpt-oss-120b";
      r.system = "You are the executor.";
      r.user = "Rewrite kernel " + std::to_string(i);
      r.max_tokens = 1024;
      (*set)->Call(r, [p](LlmResult res) { p->set_value(res.ok()); });
    }
    for (auto& f : done) failures += f.get() ? 0 : 1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    std::printf("  round %d: %.3f s, ratio %.3f, peak in flight %d, server saw %d requests\n", round + 1, s,
                s / ideal_s, server.peak_in_flight(), server.total());
  }
  const double ratio = best / ideal_s;
  std::printf(
      "llm_bench: best %.3f s / ideal %.3f s = ratio %.3f (target <= 1.10) %s; "
      "vs whole waves %.3f; failures %d\n",
      best, ideal_s, ratio, ratio <= 1.10 ? "OK" : "OVER", best / waves_s, failures);
  return failures == 0 ? 0 : 1;
}
