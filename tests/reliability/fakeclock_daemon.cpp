// acceloptd-fakeclock: acceloptd on a FakeClockEnv (base/env.hpp), for
// tests of the daemon's timers. Test-only; never installed.
//
//   acceloptd-fakeclock --config FILE
//
// The Env's clocks start at the real time and stand still; each SIGUSR1
// moves them one hour forward (log line "fake clock: +1 h"). The daemon's
// timers (long-polls, the change feed, provider backoffs, campaign
// deadlines and provider-wait limits) are on this clock; the HTTP client,
// child processes and the systemd watchdog stay on the real one.
// SIGTERM/SIGINT stop it normally.
#include <signal.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "base/env.hpp"
#include "base/log.hpp"
#include "daemon/config.hpp"
#include "daemon/daemon.hpp"

int main(int argc, char** argv) {
  std::string config_path;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--config")) config_path = argv[i + 1];
  }
  accelopt::Env* real = accelopt::Env::Default();
  auto config = accelopt::daemon::LoadDaemonConfig(config_path, real);
  if (!config.ok()) {
    accelopt::LogError(config.status().message());
    return 1;
  }
  static accelopt::FakeClockEnv clock(real, real->NowMicros());

  // SIGUSR1 is taken by one thread with sigwait; every other thread
  // (created after this) inherits the blocked mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) return;
      clock.Advance(std::chrono::hours(1));
      accelopt::LogInfo("fake clock: +1 h");
    }
  }).detach();

  accelopt::daemon::DaemonOptions options;
  options.env = &clock;
  return accelopt::daemon::RunDaemon(*config, options);
}
