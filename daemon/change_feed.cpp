#include "daemon/change_feed.hpp"

#include "base/json.hpp"
#include "daemon/router.hpp"

namespace accelopt::daemon {

namespace {

constexpr std::string_view kCampaignPrefix = "campaign-";
constexpr std::string_view kMemoryPrefix = "memory-";

bool Watched(const std::string& stream) {
  return stream.starts_with(kCampaignPrefix) || stream.starts_with(kMemoryPrefix);
}

std::string ChangeEvent(const std::string& stream, uint64_t version) {
  json j = {{"stream", stream}, {"version", version}};
  if (stream.starts_with(kCampaignPrefix))
    j["campaign"] = stream.substr(kCampaignPrefix.size());
  else
    j["bank"] = stream.substr(kMemoryPrefix.size());
  return "event: change\ndata: " + Dump(j) + "\n\n";
}

}  // namespace

ChangeFeed::ChangeFeed(store::EventLog* log, net::io_context* ioc, Env* env, Options options)
    : log_(log),
      env_(env),
      options_(options),
      strand_(net::make_strand(*ioc)),
      flush_timer_(strand_, env),
      heartbeat_timer_(strand_, env) {
  subscription_ = log_->Subscribe([this](const std::vector<store::EventRecord>& r) { OnCommitted(r); });
}

ChangeFeed::~ChangeFeed() {
  subscription_.Reset();
  Stop();
}

size_t ChangeFeed::open_streams() const {
  MutexLock lock(&mu_);
  return clients_.size();
}

void ChangeFeed::Open(const Respond& respond, const std::string& campaign, std::chrono::seconds lifetime,
                      std::chrono::milliseconds heartbeat) {
  if (heartbeat.count() == 0) heartbeat = options_.heartbeat;
  heartbeat = std::max(heartbeat, std::chrono::milliseconds(100));
  MutexLock lock(&mu_);
  if (stopped_) {
    lock.Unlock();
    return respond(ApiError(http::status::service_unavailable, "unavailable", "the daemon is stopping"));
  }
  if (clients_.size() >= options_.max_streams) {
    lock.Unlock();
    return respond(ApiError(http::status::service_unavailable, "unavailable",
                            "too many open event streams (" + std::to_string(options_.max_streams) + ")"));
  }
  HttpResponse head{http::status::ok, 11};
  head.set(http::field::server, "acceloptd");
  head.set(http::field::content_type, "text/event-stream; charset=utf-8");
  head.set(http::field::cache_control, "no-store");
  auto stream = respond.Stream(std::move(head));
  if (!stream) {
    lock.Unlock();
    return respond(ApiError(http::status::internal_server_error, "internal", "this connection cannot stream"));
  }
  const uint64_t id = next_id_++;
  const bool first = clients_.empty();
  const int64_t now = env_->MonotonicNanos();
  clients_[id] = Client{stream, campaign, now + std::chrono::nanoseconds(lifetime).count(), heartbeat, now};
  lock.Unlock();
  stream->Send("retry: 1000\nevent: hello\ndata: " + Dump(json{{"position", log_->LastGlobalPosition()}}) + "\n\n");
  stream->OnClose([this, id] {
    MutexLock l(&mu_);
    clients_.erase(id);
  });
  if (first) net::post(strand_, [this] { ArmHeartbeat(); });
}

void ChangeFeed::ArmHeartbeat() {
  heartbeat_timer_.ExpiresAfter(std::chrono::milliseconds(100));
  heartbeat_timer_.AsyncWait([this](boost::system::error_code ec) {
    if (!ec) Heartbeat();
  });
}

void ChangeFeed::Heartbeat() {
  // Ticks every 100 ms while streams are open: heartbeats when due, expiries.
  const int64_t now = env_->MonotonicNanos();
  std::vector<std::shared_ptr<ResponseStream>> expired, beat;
  {
    MutexLock lock(&mu_);
    if (stopped_ || clients_.empty()) return;
    for (auto& [id, c] : clients_) {
      if (now >= c.closes_at) {
        expired.push_back(c.stream);
      } else if (now - c.last_beat >= std::chrono::nanoseconds(c.heartbeat).count()) {
        c.last_beat = now;
        beat.push_back(c.stream);
      }
    }
  }
  for (auto& s : expired) s->Close();
  for (auto& s : beat) s->Send(": heartbeat\n\n");
  ArmHeartbeat();
}

void ChangeFeed::OnCommitted(const std::vector<store::EventRecord>& records) {
  MutexLock lock(&mu_);
  if (stopped_ || clients_.empty()) return;
  bool any = false;
  for (const auto& r : records) {
    if (!Watched(r.stream)) continue;
    uint64_t& v = dirty_[r.stream];
    v = std::max(v, r.version);
    any = true;
  }
  if (any && !flush_armed_) {
    flush_armed_ = true;
    net::post(strand_, [this] {
      flush_timer_.ExpiresAfter(options_.coalesce);
      flush_timer_.AsyncWait([this](boost::system::error_code ec) {
        if (!ec) Flush();
      });
    });
  }
}

void ChangeFeed::Flush() {
  std::map<std::string, uint64_t> dirty;
  std::vector<Client> clients;
  {
    MutexLock lock(&mu_);
    flush_armed_ = false;
    dirty.swap(dirty_);
    if (stopped_) return;
    for (auto& [id, c] : clients_) clients.push_back(c);
  }
  for (const auto& [stream, version] : dirty) {
    const std::string line = ChangeEvent(stream, version);
    const bool is_campaign = stream.starts_with(kCampaignPrefix);
    for (auto& c : clients) {
      if (is_campaign && !c.campaign.empty() && stream.substr(kCampaignPrefix.size()) != c.campaign) continue;
      c.stream->Send(line);
    }
  }
}

void ChangeFeed::Stop() {
  std::vector<std::shared_ptr<ResponseStream>> streams;
  {
    MutexLock lock(&mu_);
    stopped_ = true;
    for (auto& [id, c] : clients_) streams.push_back(c.stream);
  }
  // The timers see stopped_ at their next expiry and stop.
  for (auto& s : streams) s->Close();
}

}  // namespace accelopt::daemon
