// The standalone fake-llm-server, as later black-box tests start it: it
// prints its port, serves a script, answers /_fake/counts, stops on SIGTERM.
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "llm/transport.hpp"
#include "tests/llm/test_util.hpp"

extern char** environ;

namespace accelopt::llm {

BOOST_AUTO_TEST_SUITE(fake_server_executable)

BOOST_AUTO_TEST_CASE(prints_its_port_serves_the_script_and_stops_on_sigterm) {
  const std::string exe = std::string(ACCELOPT_BINARY_DIR) + "/tests/fakes/llm_server/fake-llm-server";
  BOOST_REQUIRE(std::filesystem::exists(exe));
  const auto script = std::filesystem::temp_directory_path() / ("fake_script_" + std::to_string(::getpid()) + ".json");
  std::ofstream(script)
      << R"({"rules": [{"name": "plan", "match": {"role": "planner"}, "reply": {"text": "ok plan"}}]})";

  int out[2];
  BOOST_REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  std::string script_path = script.string();
  char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>("--script"), script_path.data(), nullptr};
  pid_t pid = -1;
  BOOST_REQUIRE(::posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv, environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  std::string line;
  char c;
  while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(out[0]);
  const int port = std::atoi(line.c_str());
  BOOST_REQUIRE(port > 0);

  json entry = {{"kind", "openai"}, {"base_url", "http://127.0.0.1:" + std::to_string(port) + "/v1"}};
  {
    auto set = testing::MakeSet({{"local", entry}});
    LlmResult r = set->CallBlocking(testing::Req("local"));
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(r.response().text == "ok plan");
  }
  // The counts endpoint, through the same transport.
  auto transport = CurlTransport::Create();
  BOOST_REQUIRE(transport.ok());
  HttpRequest get;
  get.method = "GET";
  get.url = "http://127.0.0.1:" + std::to_string(port) + "/_fake/counts";
  std::promise<HttpResponse> p;
  (*transport)->Start(get, nullptr, [&](HttpResponse r) { p.set_value(std::move(r)); });
  HttpResponse counts = p.get_future().get();
  BOOST_TEST(counts.status == 200);
  json j = json::parse(counts.body);
  BOOST_TEST(j["plan"] == 1);
  BOOST_TEST(j["_total"] == 1);

  ::kill(pid, SIGTERM);
  int status = 0;
  BOOST_REQUIRE(::waitpid(pid, &status, 0) == pid);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);
  std::filesystem::remove(script);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace accelopt::llm
