// Black-box test fixture: a fake LLM server and a real acceloptd started as
// child processes on a temporary state directory, driven through acceloptctl
// (or raw HTTP on the Unix socket).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/json.hpp"

namespace accelopt::testing {

// A child process started with posix_spawn; killed (SIGKILL) on destruction.
class Child {
 public:
  Child() = default;
  Child(const std::vector<std::string>& argv, const std::string& stdout_path,
        const std::vector<std::string>& extra_env = {});
  Child(Child&& o) noexcept : pid_(o.pid_) { o.pid_ = -1; }
  Child& operator=(Child&& o) noexcept;
  ~Child();
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  void Signal(int sig) const;
  // Waits for exit; returns the exit code (128+signal when killed), -1 on timeout.
  int Wait(std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
};

struct CtlResult {
  int exit_code = -1;
  std::string out, err;
  json Json() const;  // parsed stdout (throws on bad JSON)
};

class DaemonFixture {
 public:
  // `script` is the fake LLM server's script (tests/fakes/llm_server/script.hpp).
  explicit DaemonFixture(const json& script, const json& config_overrides = json::object());
  ~DaemonFixture();

  void StartDaemon(const std::vector<std::string>& extra_env = {});
  // Sends SIGTERM and waits; returns the exit code.
  int StopDaemon();
  void KillDaemon();  // SIGKILL

  CtlResult Ctl(const std::vector<std::string>& args, int timeout_s = 300) const;
  // Raw HTTP on the daemon's Unix socket: (status, body).
  std::pair<long, std::string> Http(const std::string& method, const std::string& path,
                                    const std::string& body = "") const;
  // The fake server's recorded requests (GET /_fake/requests).
  json FakeRequests() const;
  // An outage of the model server: StopFake kills it (connections are then
  // refused); RestartFake starts a fresh one (empty request log) with the
  // same script on the same port.
  void StopFake();
  void RestartFake();

  std::string dir;
  std::string socket;
  std::string config_path;
  std::string daemon_log;
  std::string daemon_path;  // default AcceloptdPath(); a test-only variant may replace it
  int fake_port = 0;
  Child fake;
  Child daemon;
};

// Every event of a campaign, read with `acceloptctl events ID -o json`
// (fails the test when acceloptctl does).
json CtlEvents(const DaemonFixture& f, const std::string& id);
// Writes `j` to <f.dir>/<name>; returns the path.
std::string WriteJson(const DaemonFixture& f, const std::string& name, const json& j);

// Headless Chromium (Debian's chromium; ACCELOPT_CHROMIUM names another
// binary). FindChromium fails the test with how to get it when it is missing.
std::string FindChromium();
// Runs it on `url` with `what` (--dump-dom or --screenshot=...) and `extra`
// flags, a profile under `dir`, at most `timeout`; returns its stdout (fails
// the test when it does not exit 0).
std::string RunChromium(const std::string& chromium, const std::string& dir, const std::string& what,
                        const std::string& url, const std::vector<std::string>& extra = {},
                        std::chrono::seconds timeout = std::chrono::seconds(120));
std::string ReadAll(const std::string& path);
// A TCP port that was free a moment ago (bind 127.0.0.1:0, close).
int FreeTcpPort();

// Paths of the built tools (from CMake).
std::string AcceloptdPath();
std::string AcceloptctlPath();
std::string FakeServerPath();
std::string SourceDir();

// A spec for the test suite's problems with small search parameters.
json SmallSpec(const std::vector<std::string>& problems, int T, int B, int N, int K);
// A script whose executor returns an i-k-j matmul (really faster than the
// baseline) and a baseline-equivalent silu; `latency_ms` per reply.
json StandardScript(int latency_ms);

}  // namespace accelopt::testing
