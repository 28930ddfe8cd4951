#include "llm/transport.hpp"
#include "base/text.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <queue>
#include <thread>

#include "base/mutex.hpp"

namespace accelopt::llm {
namespace {

using Clock = std::chrono::steady_clock;

struct Transfer {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  HttpRequest request;
  std::shared_ptr<CancelToken> token;
  CurlTransport::DoneFn done;
  HttpResponse response;
  Clock::time_point started;
  Clock::time_point last_byte;
  bool got_byte = false;
  bool too_large = false;
  char errbuf[CURL_ERROR_SIZE] = {0};
};

struct Timer {
  Clock::time_point due;
  uint64_t seq;
  std::shared_ptr<CancelToken> token;
  std::function<void()> fn;
};

std::once_flag g_curl_init;

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  t->got_byte = true;
  t->last_byte = Clock::now();
  std::string line(data, len);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    t->response.headers.clear();  // a new response head (after 100 Continue)
    return len;
  }
  auto colon = line.find(':');
  if (colon == std::string::npos) return len;
  std::string name = Lower(line.substr(0, colon));
  std::string value = line.substr(colon + 1);
  value.erase(0, value.find_first_not_of(" \t"));
  t->response.headers[name] = value;
  return len;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  t->got_byte = true;
  t->last_byte = Clock::now();
  if (t->response.body.size() + len > t->request.max_response_bytes) {
    t->too_large = true;
    return 0;  // curl aborts with CURLE_WRITE_ERROR
  }
  t->response.body.append(data, len);
  return len;
}

TransportError MapCurlError(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return TransportError::kNone;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransportError::kConnect;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::kTimeout;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_NOT_BUILT_IN:
    case CURLE_FAILED_INIT:
      return TransportError::kInvalid;
    default:
      return TransportError::kNetwork;
  }
}

}  // namespace

struct CurlTransport::Impl {
  CURLM* multi = nullptr;
  std::thread thread;

  // What other threads hand to the loop thread.
  mutable Mutex mu;
  std::atomic<bool> stopping{false};
  std::deque<std::unique_ptr<Transfer>> pending ACCELOPT_GUARDED_BY(mu);
  std::vector<Timer> new_timers ACCELOPT_GUARDED_BY(mu);
  uint64_t timer_seq ACCELOPT_GUARDED_BY(mu) = 0;
  std::atomic<size_t> active_count{0};

  // Loop-thread state.
  std::map<CURL*, std::unique_ptr<Transfer>> active;
  std::vector<Timer> timers;  // min-heap on (due, seq)

  static bool TimerLater(const Timer& a, const Timer& b) { return a.due != b.due ? a.due > b.due : a.seq > b.seq; }

  // The loop thread's steps run callbacks (which may call Start/After/Post),
  // so never under mu.
  void Complete(std::unique_ptr<Transfer> t, TransportError error, std::string message) ACCELOPT_EXCLUDES(mu) {
    if (t->easy) {
      curl_multi_remove_handle(multi, t->easy);
      curl_easy_cleanup(t->easy);
      t->easy = nullptr;
    }
    if (t->headers) curl_slist_free_all(t->headers);
    t->headers = nullptr;
    t->response.error = error;
    t->response.error_message = std::move(message);
    t->response.latency = std::chrono::duration_cast<Millis>(Clock::now() - t->started);
    if (error != TransportError::kNone && error != TransportError::kTooLarge) {
      t->response.body.clear();
    }
    auto done = std::move(t->done);
    HttpResponse r = std::move(t->response);
    t.reset();
    active_count.store(active.size(), std::memory_order_relaxed);
    done(std::move(r));
  }

  void Begin(std::unique_ptr<Transfer> t) ACCELOPT_EXCLUDES(mu) {
    t->started = Clock::now();
    t->last_byte = t->started;
    if (stopping || (t->token && t->token->cancelled())) {
      Complete(std::move(t), TransportError::kCancelled, "cancelled");
      return;
    }
    CURL* e = curl_easy_init();
    if (!e) {
      Complete(std::move(t), TransportError::kInvalid, "curl_easy_init failed");
      return;
    }
    t->easy = e;
    const HttpRequest& rq = t->request;
    curl_easy_setopt(e, CURLOPT_URL, rq.url.c_str());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(rq.timeouts.connect.count()));
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(rq.timeouts.total.count()));
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode
    if (rq.method == "POST") {
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, rq.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(rq.body.size()));
    } else if (rq.method != "GET") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, rq.method.c_str());
    }
    curl_slist* list = nullptr;
    for (const auto& h : rq.headers) list = curl_slist_append(list, h.c_str());
    list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
    t->headers = list;
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);
    CURLMcode mc = curl_multi_add_handle(multi, e);
    if (mc != CURLM_OK) {
      Complete(std::move(t), TransportError::kInvalid, curl_multi_strerror(mc));
      return;
    }
    CURL* key = e;
    active.emplace(key, std::move(t));
    active_count.store(active.size(), std::memory_order_relaxed);
  }

  void Finish(CURL* e, CURLcode code) ACCELOPT_EXCLUDES(mu) {
    auto it = active.find(e);
    if (it == active.end()) return;
    std::unique_ptr<Transfer> t = std::move(it->second);
    active.erase(it);
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    t->response.status = static_cast<int>(status);
    curl_off_t retry_after = -1;
    if (curl_easy_getinfo(e, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0) {
      t->response.retry_after = Millis(static_cast<int64_t>(retry_after) * 1000);
    }
    if (auto h = t->response.headers.find("retry-after-ms"); h != t->response.headers.end()) {
      char* end = nullptr;
      double ms = std::strtod(h->second.c_str(), &end);
      if (end != h->second.c_str() && ms >= 0 && ms < 1e9) {
        t->response.retry_after = Millis(static_cast<int64_t>(ms));
      }
    }
    if (code == CURLE_OK) {
      Complete(std::move(t), TransportError::kNone, "");
      return;
    }
    if (t->too_large) {
      std::string m = "response larger than " + std::to_string(t->request.max_response_bytes) + " bytes";
      Complete(std::move(t), TransportError::kTooLarge, m);
      return;
    }
    std::string message = t->errbuf[0] ? std::string(t->errbuf) : curl_easy_strerror(code);
    TransportError err = MapCurlError(code);
    // The status line may have arrived before the failure; the body is partial.
    Complete(std::move(t), err, message);
  }

  // Cancels and stall-checks running transfers. Returns the earliest stall deadline.
  std::optional<Clock::time_point> Sweep(Clock::time_point now, bool* any_external) ACCELOPT_EXCLUDES(mu) {
    std::optional<Clock::time_point> next;
    std::vector<CURL*> cancelled, stalled;
    for (auto& [e, t] : active) {
      if (stopping || (t->token && t->token->cancelled())) {
        cancelled.push_back(e);
        continue;
      }
      if (t->token && t->token->has_external()) *any_external = true;
      if (t->got_byte) {
        auto deadline = t->last_byte + t->request.timeouts.stall;
        if (deadline <= now) {
          stalled.push_back(e);
        } else if (!next || deadline < *next) {
          next = deadline;
        }
      }
    }
    for (CURL* e : cancelled) {
      auto t = std::move(active[e]);
      active.erase(e);
      Complete(std::move(t), TransportError::kCancelled, "cancelled");
    }
    for (CURL* e : stalled) {
      auto t = std::move(active[e]);
      active.erase(e);
      std::string m =
          "no data for " + std::to_string(t->request.timeouts.stall.count()) + " ms after the response started";
      Complete(std::move(t), TransportError::kStall, m);
    }
    return next;
  }

  std::optional<Clock::time_point> FireTimers(Clock::time_point now, bool* any_external) ACCELOPT_EXCLUDES(mu) {
    // Due timers, or timers whose token is cancelled, fire now.
    std::vector<Timer> ready;
    std::vector<Timer> keep;
    for (auto& tm : timers) {
      if (stopping || tm.due <= now || (tm.token && tm.token->cancelled())) {
        ready.push_back(std::move(tm));
      } else {
        if (tm.token && tm.token->has_external()) *any_external = true;
        keep.push_back(std::move(tm));
      }
    }
    timers = std::move(keep);
    std::sort(ready.begin(), ready.end(), [](const Timer& a, const Timer& b) { return TimerLater(b, a); });
    for (auto& tm : ready) tm.fn();
    std::optional<Clock::time_point> next;
    for (const auto& tm : timers) {
      if (!next || tm.due < *next) next = tm.due;
    }
    return next;
  }

  void Loop() ACCELOPT_EXCLUDES(mu) {
    for (;;) {
      std::deque<std::unique_ptr<Transfer>> starts;
      bool stop;
      {
        MutexLock lock(&mu);
        starts.swap(pending);
        for (auto& tm : new_timers) timers.push_back(std::move(tm));
        new_timers.clear();
        stop = stopping;
      }
      for (auto& t : starts) Begin(std::move(t));

      int running = 0;
      curl_multi_perform(multi, &running);
      int left = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
        if (msg->msg == CURLMSG_DONE) Finish(msg->easy_handle, msg->data.result);
      }
      const auto now = Clock::now();
      bool any_external = false;
      auto stall_next = Sweep(now, &any_external);
      auto timer_next = FireTimers(now, &any_external);

      if (stop) {
        MutexLock lock(&mu);
        if (active.empty() && timers.empty() && pending.empty() && new_timers.empty()) break;
        continue;
      }
      {
        MutexLock lock(&mu);
        if (!pending.empty() || !new_timers.empty()) continue;
      }
      long timeout_ms = 1000;
      auto consider = [&](std::optional<Clock::time_point> tp) {
        if (!tp) return;
        auto ms = std::chrono::duration_cast<Millis>(*tp - Clock::now()).count() + 1;
        timeout_ms = std::min<long>(timeout_ms, std::max<long>(static_cast<long>(ms), 0));
      };
      consider(stall_next);
      consider(timer_next);
      if (any_external) timeout_ms = std::min<long>(timeout_ms, 50);
      if (timeout_ms > 0) curl_multi_poll(multi, nullptr, 0, static_cast<int>(timeout_ms), nullptr);
    }
  }
};

CurlTransport::CurlTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::shared_ptr<CurlTransport>> CurlTransport::Create() {
  std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  auto impl = std::make_unique<Impl>();
  impl->multi = curl_multi_init();
  if (!impl->multi) return Internal("curl_multi_init failed");
  std::shared_ptr<CurlTransport> t(new CurlTransport(std::move(impl)));
  Impl* raw = t->impl_.get();
  raw->thread = std::thread([raw] { raw->Loop(); });
  return t;
}

CurlTransport::~CurlTransport() {
  impl_->stopping = true;
  curl_multi_wakeup(impl_->multi);
  if (impl_->thread.joinable()) impl_->thread.join();
  curl_multi_cleanup(impl_->multi);
}

void CurlTransport::Start(HttpRequest request, std::shared_ptr<CancelToken> token, DoneFn done) {
  auto t = std::make_unique<Transfer>();
  t->request = std::move(request);
  t->token = std::move(token);
  t->done = std::move(done);
  {
    MutexLock lock(&impl_->mu);
    impl_->pending.push_back(std::move(t));
  }
  curl_multi_wakeup(impl_->multi);
}

void CurlTransport::After(Millis delay, std::shared_ptr<CancelToken> token, std::function<void()> fn) {
  {
    MutexLock lock(&impl_->mu);
    impl_->new_timers.push_back(Timer{Clock::now() + delay, impl_->timer_seq++, std::move(token), std::move(fn)});
  }
  curl_multi_wakeup(impl_->multi);
}

void CurlTransport::Wakeup() { curl_multi_wakeup(impl_->multi); }

size_t CurlTransport::active() const { return impl_->active_count.load(std::memory_order_relaxed); }

}  // namespace accelopt::llm
