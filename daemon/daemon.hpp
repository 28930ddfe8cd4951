// Daemon: acceloptd's wiring. Owns the state-directory lock, the event log,
// the LLM providers, the evaluation backends and their slots, the campaigns,
// the HTTP API and the systemd notifications, and runs them on an io_context.
//
// Start-up order: lock the state dir → open the log (replay) → providers →
// evaluators (calibration) → resume unfinished campaigns → bind sockets →
// READY=1. Shutdown (SIGTERM/SIGINT): STOPPING=1 → stop accepting → record
// interruptions and stop children → close the log → exit 0.
//
// Thread safety: RunDaemon once, from the main thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/status.hpp"
#include "daemon/config.hpp"

namespace rocksdb {
class Env;
}

namespace accelopt {
class Env;
}

namespace accelopt::daemon {

struct DaemonOptions {
  // REQUIRED: every file, clock, randomness and child-process access of the
  // daemon's own code (state dir, lock, token, suites, backends,
  // calibration) goes through it; main() passes Env::Default(), tests a
  // wrapper (base/env.hpp: FakeClockEnv, FaultyFileEnv). The event log's
  // files go through rocksdb_env instead.
  Env* env = nullptr;
  int io_threads = 4;
  // The RocksDB environment of the event log; null = the default. Tests pass
  // a fault-injecting file system here (tests/reliability: power loss).
  rocksdb::Env* rocksdb_env = nullptr;
  // Called once the sockets listen, before READY=1, with the TCP port (0
  // without TCP); `acceloptd --dev` prints its lines here.
  std::function<void(unsigned short tcp_port)> on_ready;
};

// Runs until SIGTERM/SIGINT. Returns the process exit code; start-up errors
// (options.env missing included) are logged with the reason.
int RunDaemon(const DaemonConfig& config, const DaemonOptions& options);

}  // namespace accelopt::daemon
