// acceloptd: the accelopt daemon. See daemon/daemon.hpp and docs/.
#include <CLI/CLI.hpp>

#include <iostream>

#include "base/env.hpp"
#include "base/log.hpp"
#include "daemon/config.hpp"
#include "daemon/daemon.hpp"
#include "daemon/dev_mode.hpp"

int main(int argc, char** argv) {
  CLI::App app{"acceloptd: runs LLM kernel-optimization campaigns, recording every step in an event log"};
  std::string config_path = "/etc/accelopt/acceloptd.json";
  std::string check_path;
  bool version = false;
  app.add_option("-c,--config", config_path, "configuration file (JSON, comments allowed)")->capture_default_str();
  app.add_option("--check-config", check_path, "validate a configuration file and exit (0 when valid)");
  app.add_flag("--version", version, "print the version and exit");
  bool dev = false;
  accelopt::daemon::DevOptions dev_options;
  auto* dev_flag = app.add_flag("--dev", dev,
               "run from a build tree: state, socket and config in ./.accelopt-dev (or --dev-dir, $ACCELOPT_DEV_DIR), "
               "the source tree's suites; prints ACCELOPT_SOCKET=... when ready (daemon/dev_mode.hpp)");
  app.add_option("--dev-dir", dev_options.dir, "with --dev: the folder to use")->needs(dev_flag);
  app.add_option("--tcp", dev_options.tcp, "with --dev: also listen on HOST:PORT (token generated in the folder) and "
                 "print the dashboard's address")->needs(dev_flag);
  app.footer("Signals: SIGTERM/SIGINT stop taking work, interrupt campaigns (they resume at the next start) and exit 0.\n"
             "Logs go to stderr with syslog priority prefixes; secrets never appear in them.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // The one place the daemon's real Env is chosen (daemon/daemon.hpp).
  accelopt::Env* env = accelopt::Env::Default();
  if (version) {
    std::cout << "acceloptd 0.1.0\n";
    return 0;
  }
  if (!check_path.empty()) {
    auto c = accelopt::daemon::LoadDaemonConfig(check_path, env);
    if (!c.ok()) {
      std::cerr << "acceloptd: " << c.status().message() << "\n";
      return 1;
    }
    std::cout << check_path << ": ok\n";
    return 0;
  }
  if (dev) {
    dev_options.source_dir = ACCELOPT_SOURCE_DIR;
    if (app.count("--config")) {
      auto base = accelopt::ReadJsonFile(env, config_path);
      if (!base.ok()) {
        std::cerr << "acceloptd: " << base.status().message() << "\n";
        return 1;
      }
      dev_options.base = *base;
    }
    auto setup = accelopt::daemon::PrepareDev(dev_options, env);
    if (!setup.ok()) {
      std::cerr << "acceloptd: " << setup.status().message() << "\n";
      return 1;
    }
    accelopt::daemon::DaemonOptions options;
    options.env = env;
    options.on_ready = [&setup](unsigned short port) {
      std::cout << accelopt::daemon::DevReadyLines(*setup, port) << std::flush;
    };
    return accelopt::daemon::RunDaemon(setup->config, options);
  }
  auto config = accelopt::daemon::LoadDaemonConfig(config_path, env);
  if (!config.ok()) {
    accelopt::LogError(config.status().message());
    return 1;
  }
  accelopt::daemon::DaemonOptions options;
  options.env = env;
  return accelopt::daemon::RunDaemon(*config, options);
}
