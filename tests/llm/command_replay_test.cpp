// The command provider with small shell scripts, and the replay provider.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include <sys/stat.h>

#include "tests/llm/test_util.hpp"

namespace accelopt::llm {
namespace {

using namespace testing;
using namespace std::chrono_literals;

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("llm_cmd_" + std::to_string(::getpid()) + "_" + std::to_string(std::rand()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string Script(const std::string& name, const std::string& body) {
    auto p = path / name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    ::chmod(p.c_str(), 0755);
    return p.string();
  }
};

std::unique_ptr<ProviderSet> CommandSet(const std::string& script, const std::string& output = "text",
                                        int timeout_ms = 10000) {
  json entry = {{"kind", "command"},
                {"argv", json::array({script})},
                {"output", output},
                {"timeouts", {{"total_ms", timeout_ms}}},
                {"models", {{"m", {{"input_per_mtok", 1.0}, {"output_per_mtok", 1.0}}}}}};
  return MakeSet({{"cli", entry}});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(command_provider)

BOOST_AUTO_TEST_CASE(text_output_gets_the_request_on_stdin) {
  TempDir dir;
  const std::string capture = (dir.path / "stdin.json").string();
  // Saves stdin and answers with the reply text.
  auto set = CommandSet(dir.Script("llm.sh", "cat > " + capture + "\necho '  Fuse the loops.  '\n"));
  LlmResult r = set->CallBlocking(Req("cli"));
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().ToString()));
  BOOST_TEST(r.response().text == "Fuse the loops.");
  BOOST_TEST(r.response().finish_reason == "stop");
  BOOST_TEST(r.response().attempts.size() == 1u);
  json in = json::parse(std::ifstream(capture));
  BOOST_TEST(in["user"] == "Optimize this kernel.");
  BOOST_TEST(in["system"] == "You are the planner.");
  BOOST_TEST(in["model"] == "m");
  BOOST_TEST(in["request_hash"] == RequestHash(Req("cli")));
}

BOOST_AUTO_TEST_CASE(json_output_carries_tokens_and_cost) {
  TempDir dir;
  auto set = CommandSet(dir.Script("llm.sh", R"(cat >/dev/null
echo '{"text": "ok", "reasoning": "r", "input_tokens": 1000000, "output_tokens": 2000000}'
)"),
                        "json");
  LlmResult r = set->CallBlocking(Req("cli"));
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.response().text == "ok");
  BOOST_TEST(r.response().reasoning == "r");
  BOOST_TEST(r.response().cost_usd == 3.0, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(failures_are_typed) {
  TempDir dir;
  {
    auto set = CommandSet(dir.Script("fail.sh", "echo 'boom: quota exceeded' >&2\nexit 3\n"));
    LlmResult r = set->CallBlocking(Req("cli"));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().kind == LlmErrorKind::kCommandFailed);
    BOOST_TEST(r.error().message.find("boom: quota exceeded") != std::string::npos);
  }
  {
    auto set = CommandSet(dir.Script("empty.sh", "cat >/dev/null\necho '   '\n"));
    LlmResult r = set->CallBlocking(Req("cli"));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().kind == LlmErrorKind::kEmptyReply);
  }
  {
    auto set = CommandSet(dir.Script("bad.sh", "cat >/dev/null\necho '{\"txt\": 1'\n"), "json");
    LlmResult r = set->CallBlocking(Req("cli"));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().kind == LlmErrorKind::kMalformed);
  }
  {
    auto t0 = std::chrono::steady_clock::now();
    auto set = CommandSet(dir.Script("slow.sh", "sleep 30\necho late\n"), "text", 300);
    LlmResult r = set->CallBlocking(Req("cli"));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().kind == LlmErrorKind::kTimeout);
    BOOST_TEST(r.error().retryable);
    BOOST_TEST(Seconds(t0) < 5.0);
  }
}

BOOST_AUTO_TEST_CASE(cancel_kills_the_child) {
  TempDir dir;
  auto set = CommandSet(dir.Script("slow.sh", "sleep 30\necho late\n"));
  std::atomic<bool> stop{false};
  auto p = std::make_shared<std::promise<LlmResult>>();
  auto f = p->get_future();
  set->Call(
      Req("cli"), [p](LlmResult r) { p->set_value(std::move(r)); }, &stop);
  std::this_thread::sleep_for(200ms);
  auto t0 = std::chrono::steady_clock::now();
  stop = true;
  BOOST_REQUIRE(f.wait_for(3s) == std::future_status::ready);
  BOOST_TEST(f.get().error().kind == LlmErrorKind::kCancelled);
  BOOST_TEST(Seconds(t0) < 2.0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(replay_provider)

BOOST_AUTO_TEST_CASE(answers_recorded_calls_by_hash_and_misses_are_errors) {
  // Record a call from the command provider, then replay it.
  TempDir dir;
  auto live = CommandSet(dir.Script("llm.sh", "cat >/dev/null\necho recorded-answer\n"));
  LlmRequest req = Req("cli");
  LlmResult rec = live->CallBlocking(req);
  BOOST_REQUIRE(rec.ok());

  std::mutex mu;
  std::map<std::string, std::string> log = {{RequestHash(req), Dump(ToJson(rec.response()))}};
  std::vector<std::string> asked;
  ProviderSetOptions opts;
  opts.replay_lookup = [&](const std::string& hash) -> std::optional<std::string> {
    std::lock_guard lock(mu);
    asked.push_back(hash);
    auto it = log.find(hash);
    if (it == log.end()) return std::nullopt;
    return it->second;
  };
  // Same provider name, kind replay: the hashes match the recorded ones.
  auto set = ProviderSet::Create(json{{"providers", {{"cli", {{"kind", "replay"}}}}}}, opts);
  BOOST_REQUIRE(set.ok());
  LlmResult r = (*set)->CallBlocking(req);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r.response().text == "recorded-answer");
  BOOST_TEST(r.response().replayed);
  BOOST_TEST(r.response().cost_usd == 0.0);

  LlmRequest other = req;
  other.request_id = "sample-2";
  r = (*set)->CallBlocking(other);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kReplayMiss);
  BOOST_TEST(!r.error().retryable);
  BOOST_TEST(r.error().message.find(RequestHash(other)) != std::string::npos);

  {
    std::lock_guard lock(mu);
    log[RequestHash(other)] = "{not json";
  }
  r = (*set)->CallBlocking(other);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().kind == LlmErrorKind::kMalformed);
  BOOST_TEST(asked.size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace accelopt::llm
