// ChangeFeed (GET /v1/stream): a stream says which campaign/memory stream
// grew (coalesced, filtered by campaign), more than max_streams are refused
// with 503, expired streams are closed, and Stop closes every stream.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <mutex>
#include <thread>

#include "daemon/change_feed.hpp"

using namespace accelopt;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// A ResponseStream that records what was sent.
class FakeStream : public daemon::ResponseStream {
 public:
  bool Send(std::string data) override {
    std::lock_guard l(mu);
    if (closed_) return false;
    text += data;
    return true;
  }
  void Close() override {
    std::function<void()> fn;
    {
      std::lock_guard l(mu);
      if (closed_) return;
      closed_ = true;
      fn = std::move(on_close);
    }
    if (fn) fn();
  }
  bool closed() const override {
    std::lock_guard l(mu);
    return closed_;
  }
  void OnClose(std::function<void()> fn) override {
    {
      std::lock_guard l(mu);
      if (!closed_) {
        on_close = std::move(fn);
        return;
      }
    }
    fn();
  }
  std::string Text() const {
    std::lock_guard l(mu);
    return text;
  }

  mutable std::mutex mu;
  std::string text;
  bool closed_ = false;
  std::function<void()> on_close;
};

struct Opened {
  std::shared_ptr<FakeStream> stream = std::make_shared<FakeStream>();
  int status = 0;  // of a plain answer (refusal)
};

struct FeedFixture {
  explicit FeedFixture(Env* clock = Env::Default()) : env(clock) {
    dir = fs::temp_directory_path() / ("accelopt-feed-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    store::EventLog::Options o;
    o.create_if_missing = true;
    auto opened = store::EventLog::Open(dir.string(), o);
    BOOST_REQUIRE_MESSAGE(opened.ok(), opened.status().ToString());
    log = std::move(*opened);
    feed = std::make_unique<daemon::ChangeFeed>(log.get(), &ioc, env,
                                                daemon::ChangeFeed::Options{2, std::chrono::milliseconds(20), 200ms});
    thread = std::thread([this] { ioc.run(); });
  }
  ~FeedFixture() {
    feed->Stop();
    work.reset();
    ioc.stop();
    thread.join();
    feed.reset();
    log->Close();
    fs::remove_all(dir);
  }
  std::shared_ptr<Opened> Open(const std::string& campaign, std::chrono::seconds life = 60s) {
    auto o = std::make_shared<Opened>();
    daemon::Respond r([o](daemon::HttpResponse res) { o->status = res.result_int(); },
                      [o](daemon::HttpResponse) -> std::shared_ptr<daemon::ResponseStream> { return o->stream; });
    feed->Open(r, campaign, life);
    return o;
  }
  void Append(const std::string& stream) {
    store::StreamAppend a;
    a.stream = stream;
    a.events.push_back(store::NewEvent{"T", 0, json::object(), {}, {}});
    BOOST_REQUIRE(log->Append({std::move(a)}).ok());
  }
  // Waits until `s`'s text contains `what`.
  static bool Eventually(const std::shared_ptr<FakeStream>& s, const std::string& what) {
    for (int i = 0; i < 300; ++i) {
      if (s->Text().find(what) != std::string::npos) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

  Env* env;  // the feed's clock
  fs::path dir;
  boost::asio::io_context ioc;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work = boost::asio::make_work_guard(ioc);
  std::unique_ptr<store::EventLog> log;
  std::unique_ptr<daemon::ChangeFeed> feed;
  std::thread thread;
};

// The same on a clock the test moves.
struct FeedClock {
  FakeClockEnv fake{Env::Default()};
};
struct FakeClockFeedFixture : FeedClock, FeedFixture {
  FakeClockFeedFixture() : FeedFixture(&fake) {}
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(lifetimes_and_heartbeats_are_on_the_envs_clock, FakeClockFeedFixture) {
  // An hour-long stream with 200 ms heartbeats, on a fake clock: real time
  // brings neither a heartbeat nor the end; moving the clock brings both.
  auto s = Open("", 3600s);
  BOOST_REQUIRE(s->status == 0);
  std::this_thread::sleep_for(400ms);
  BOOST_TEST(s->stream->Text().find(": heartbeat") == std::string::npos, s->stream->Text());
  fake.Advance(300ms);
  BOOST_TEST(Eventually(s->stream, ": heartbeat\n\n"));
  BOOST_TEST(!s->stream->closed());
  fake.Advance(3600s);
  for (int i = 0; i < 300 && !s->stream->closed(); ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST(s->stream->closed(), "a stream ends after its lifetime on the feed's clock");
}

BOOST_FIXTURE_TEST_CASE(change_feed_tells_which_stream_grew_bounded_and_closed_on_stop, FeedFixture) {
  auto all = Open("");
  auto only_b = Open("b");
  BOOST_TEST(all->stream->Text().find("event: hello") != std::string::npos);
  BOOST_TEST(feed->open_streams() == 2u);
  // A third stream is refused: the cap.
  auto third = Open("");
  BOOST_TEST(third->status == 503);
  BOOST_TEST(third->stream->Text().empty());

  // A burst on one campaign: coalesced into one line with the newest version.
  for (int i = 0; i < 5; ++i) Append("campaign-a");
  Append("memory-bank1");
  BOOST_REQUIRE_MESSAGE(Eventually(all->stream, "\"version\":5"), all->stream->Text());
  BOOST_REQUIRE(Eventually(all->stream, "\"bank\":\"bank1\""));
  const std::string t = all->stream->Text();
  BOOST_TEST(t.find("event: change\ndata: {\"campaign\":\"a\",\"stream\":\"campaign-a\",\"version\":5}\n\n") !=
                 std::string::npos,
             t);
  BOOST_TEST(t.find("\"stream\":\"campaign-a\"") == t.rfind("\"stream\":\"campaign-a\""),
             "a burst is coalesced: " << t);
  // The filtered stream sees memory changes but not campaign a's.
  BOOST_REQUIRE(Eventually(only_b->stream, "memory-bank1"));
  BOOST_TEST(only_b->stream->Text().find("campaign-a") == std::string::npos);
  Append("campaign-b");
  BOOST_REQUIRE(Eventually(only_b->stream, "campaign-b"));
  // Other streams (submissions, system) are not news.
  Append("system");
  std::this_thread::sleep_for(100ms);
  BOOST_TEST(all->stream->Text().find("\"system\"") == std::string::npos);
  // Heartbeats.
  BOOST_TEST(Eventually(all->stream, ": heartbeat\n\n"));

  // A closed stream frees its place.
  only_b->stream->Close();
  BOOST_TEST(feed->open_streams() == 1u);
  auto expiring = Open("", 1s);
  BOOST_TEST(expiring->status == 0);
  for (int i = 0; i < 300 && !expiring->stream->closed(); ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST(expiring->stream->closed(), "a stream ends after its lifetime");

  feed->Stop();
  BOOST_TEST(all->stream->closed());
  BOOST_TEST(feed->open_streams() == 0u);
  auto late = Open("");
  BOOST_TEST(late->status == 503);
}
