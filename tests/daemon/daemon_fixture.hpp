// Black-box test fixture: a fake LLM server and a real acceloptd started as
// child processes on a temporary state directory, driven through acceloptctl
// (or raw HTTP on the Unix socket).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json.hpp"

namespace accelopt::testing {

// A child process started with posix_spawn; killed (SIGKILL) on destruction.
class Child {
 public:
  Child() = default;
  // `fds`: (child fd, parent fd) pairs dup2'ed into the child (the parent's
  // stay open; make them close-on-exec so other children do not inherit them).
  Child(const std::vector<std::string>& argv, const std::string& stdout_path,
        const std::vector<std::string>& extra_env = {}, const std::vector<std::pair<int, int>>& fds = {});
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
  // Each top-level key of `config_overrides` replaces the fixture's config
  // entry, except "listen", whose keys are added (the socket stays).
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

// One headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: it reads commands on fd 3 and answers on fd 4,
// NUL-terminated JSON). Unlike RunChromium, its pages stay open while the
// test reads them, so what a page does as server-sent events arrive can be
// watched from one page load. Every call fails the test on a protocol error
// or after `timeout`; the browser is closed (then killed) on destruction.
// Not thread-safe.
class HeadlessBrowser {
 public:
  HeadlessBrowser(const std::string& chromium, const std::string& dir, int width = 1400, int height = 2400);
  ~HeadlessBrowser();
  HeadlessBrowser(const HeadlessBrowser&) = delete;
  HeadlessBrowser& operator=(const HeadlessBrowser&) = delete;

  // Opens `url` in a new tab; returns the tab's session (for the calls below).
  std::string Open(const std::string& url);
  // The value of a JavaScript expression evaluated in the tab (a promise is
  // awaited); fails the test when it throws.
  json Eval(const std::string& session, const std::string& expression);
  // The tab's DOM as HTML (like chromium --dump-dom).
  // The page's markup; "" while a tab just opened has no document yet (seen
  // under ctest -j3: Dom right after Open read a null documentElement).
  std::string Dom(const std::string& session) {
    return Eval(session, "document.documentElement ? document.documentElement.outerHTML : ''").get<std::string>();
  }
  // Writes a PNG of the tab (its whole layout height) to `png_path`. The tab
  // is brought to the front first (a background tab may get no frame to
  // capture), and a capture that got no answer is asked for once more.
  void Screenshot(const std::string& session, const std::string& png_path);
  // One DevTools command's result (events in between are skipped).
  json Call(const std::string& method, const json& params, const std::string& session = "",
            std::chrono::seconds timeout = std::chrono::seconds(60));
  // Like Call, but nullopt when no answer came within `timeout` (a reply
  // arriving later is skipped by the next call, its id being older).
  std::optional<json> TryCall(const std::string& method, const json& params, const std::string& session,
                              std::chrono::seconds timeout);

 private:
  Child child_;
  int to_ = -1, from_ = -1;  // our ends of its fd 3 and fd 4
  std::string pending_;      // bytes read past the last message
  int next_id_ = 0;
};
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
