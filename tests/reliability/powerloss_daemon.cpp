// acceloptd-powerloss: acceloptd on a RocksDB file system that can lose power
// (tests/store/fault_fs.hpp). Test-only; never installed.
//
//   acceloptd-powerloss --config FILE
//
// SIGUSR1 cuts the power during the event log's next sync (within 2 s;
// otherwise at once): that sync fails, nothing more reaches the disk, every
// file the event log wrote is truncated to the length it had synced — what
// the machine would find after losing power — and the process exits 137,
// like a machine that went dark. SIGTERM/SIGINT stop it normally.
#include <signal.h>
#include <unistd.h>

#include <rocksdb/env.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "base/env.hpp"
#include "base/log.hpp"
#include "daemon/config.hpp"
#include "daemon/daemon.hpp"
#include "tests/store/fault_fs.hpp"

int main(int argc, char** argv) {
  std::string config_path;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--config")) config_path = argv[i + 1];
  }
  auto config = accelopt::daemon::LoadDaemonConfig(config_path, accelopt::Env::Default());
  if (!config.ok()) {
    accelopt::LogError(config.status().message());
    return 1;
  }
  auto fs = std::make_shared<accelopt::store::testing::FaultFs>();
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(fs);

  // SIGUSR1 is taken by one thread with sigwait; every other thread
  // (created after this) inherits the blocked mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([fs, set] {
    int sig = 0;
    sigwait(&set, &sig);
    // Mid-write is where power loss hurts: wait for the next sync to fail.
    fs->PowerOffAtSync(0);
    for (int i = 0; i < 200 && !fs->power_off(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    fs->SetPowerOff(true);
    const uint64_t dropped = fs->DropUnsyncedData();
    accelopt::LogWarning("power cut: " + std::to_string(dropped) + " unsynced bytes lost");
    _exit(137);
  }).detach();

  accelopt::daemon::DaemonOptions options;
  options.env = accelopt::Env::Default();
  options.rocksdb_env = env.get();
  return accelopt::daemon::RunDaemon(*config, options);
}
