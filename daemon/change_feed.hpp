// ChangeFeed: server-sent events that tell the dashboard (or anyone) which
// campaign or memory-bank streams grew, for GET /v1/stream (docs/api.md).
//
// A store subscription marks streams dirty (the log's writer thread only
// records the stream's newest version); a timer on the io_context (on the
// Env's clock, daemon/env_timer.hpp) sends one
// "change" event per dirty stream at most every `coalesce`, so a busy
// campaign costs its watchers a few lines a second, not one per event.
// Clients re-read what they show (summary, report) when told.
//
// Bounds: at most `max_streams` open streams (more get 503), a comment line
// every `heartbeat` (keeps proxies and dead peers honest), each stream closed
// after its lifetime (clients reconnect), every stream closed by Stop() (the
// daemon's shutdown). A stream's connection cuts off a reader that falls
// 1 MiB behind (daemon/http_server.hpp).
//
// Wire format (text/event-stream):
//   retry: 1000
//   event: hello       data: {"position": <last global position>}
//   event: change      data: {"stream": "campaign-<id>", "campaign": "<id>", "version": N}
//                      data: {"stream": "memory-<bank>", "bank": "<bank>", "version": N}
//   : heartbeat
//
// Thread safety: all methods are thread-safe. Destroy after the io_context
// stopped running its handlers (or after Stop() and before the log closes).
#pragma once

#include "base/mutex.hpp"
#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "daemon/env_timer.hpp"
#include "daemon/http_server.hpp"
#include "store/event_log.hpp"

namespace accelopt::daemon {

class ChangeFeed {
 public:
  struct Options {
    size_t max_streams = 32;
    std::chrono::milliseconds coalesce{250};
    std::chrono::milliseconds heartbeat{15000};
  };
  // `env`: the clock of the lifetimes, heartbeats and coalescing
  // (daemon/env_timer.hpp); must outlive this.
  ChangeFeed(store::EventLog* log, boost::asio::io_context* ioc, Env* env, Options options);
  ~ChangeFeed();

  // Streams changes to `respond` (which must be able to stream) for
  // `lifetime`; `campaign` non-empty: only that campaign's changes (memory
  // changes are always sent). Answers 503 when max_streams are open or after
  // Stop, 500 when `respond` cannot stream.
  // `heartbeat`: this stream's interval (0: options.heartbeat; at least
  // 100 ms).
  void Open(const Respond& respond, const std::string& campaign, std::chrono::seconds lifetime,
            std::chrono::milliseconds heartbeat = std::chrono::milliseconds(0));

  // Closes every stream and refuses new ones. Idempotent.
  void Stop();

  size_t open_streams() const;

 private:
  struct Client {
    std::shared_ptr<ResponseStream> stream;
    std::string campaign;
    int64_t closes_at = 0;  // Env::MonotonicNanos
    std::chrono::milliseconds heartbeat;
    int64_t last_beat = 0;  // Env::MonotonicNanos
  };
  void OnCommitted(const std::vector<store::EventRecord>& records);
  void Flush();      // on the strand: sends the dirty streams
  void Heartbeat();  // on the strand: comment lines, closes expired streams
  void ArmHeartbeat();

  store::EventLog* log_;
  Env* env_;
  Options options_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  EnvTimer flush_timer_;      // used on the strand
  EnvTimer heartbeat_timer_;  // used on the strand
  mutable Mutex mu_;
  std::map<uint64_t, Client> clients_ ACCELOPT_GUARDED_BY(mu_);     // by id
  std::map<std::string, uint64_t> dirty_ ACCELOPT_GUARDED_BY(mu_);  // stream -> newest version
  bool flush_armed_ ACCELOPT_GUARDED_BY(mu_) = false;
  bool stopped_ ACCELOPT_GUARDED_BY(mu_) = false;
  uint64_t next_id_ ACCELOPT_GUARDED_BY(mu_) = 1;
  store::Subscription subscription_;  // last: reset first on destruction
};

}  // namespace accelopt::daemon
