// acceloptd: the accelopt daemon. See daemon/daemon.hpp and docs/.
#include <CLI/CLI.hpp>

#include <iostream>

#include "base/env.hpp"
#include "base/log.hpp"
#include "daemon/config.hpp"
#include "daemon/daemon.hpp"
#include "daemon/dev_mode.hpp"
#include "daemon/spec_check.hpp"
#include "base/version.hpp"

namespace {

// The config parsed and checked as every submission would use it
// (daemon/spec_check.hpp): what --check-config and the start both run.
accelopt::Result<accelopt::daemon::DaemonConfig> LoadChecked(const std::string& path, accelopt::Env* env) {
  auto c = accelopt::daemon::LoadDaemonConfig(path, env);
  if (!c.ok()) return c;
  if (auto st = accelopt::daemon::CheckCampaignDefaults(*c); !st.ok()) return st.WithContext(path);
  return c;
}

// --force-busy: every calibrating backend takes a busy machine's figures.
void ForceBusy(accelopt::daemon::DaemonConfig& config) {
  for (auto& [name, bc] : config.evaluators) bc.calibration_force_busy = true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"acceloptd: runs LLM kernel-optimization campaigns, recording every step in an event log"};
  std::string config_path = "/etc/accelopt/acceloptd.json";
  std::string check_path;
  bool version = false;
  app.add_option("-c,--config", config_path, "configuration file (JSON, comments allowed)")->capture_default_str();
  app.add_option("--check-config", check_path, "validate a configuration file and exit (0 when valid)");
  app.add_flag("--version", version, "print the version and exit");
  bool force_busy = false;
  app.add_flag("--force-busy", force_busy,
               "accept the cpu calibration measured at start even when the machine is busy (the config key "
               "evaluators.cpu.calibration_force_busy); without it a busy host's daemon serves anyway and cpu "
               "evaluations wait for a quiet calibration");
  bool dev = false;
  accelopt::daemon::DevOptions dev_options;
  auto* dev_flag = app.add_flag(
      "--dev", dev,
      "run from a build tree: state, socket and config in ./.accelopt-dev (or --dev-dir, $ACCELOPT_DEV_DIR), "
      "the source tree's suites; prints ACCELOPT_SOCKET=... when ready (daemon/dev_mode.hpp)");
  app.add_option("--dev-dir", dev_options.dir, "with --dev: the folder to use")->needs(dev_flag);
  app.add_option("--tcp", dev_options.tcp,
                 "with --dev: also listen on HOST:PORT (token generated in the folder) and "
                 "print the dashboard's address")
      ->needs(dev_flag);
  app.footer(
      "Signals: SIGTERM/SIGINT stop taking work, interrupt campaigns (they resume at the next start) and exit 0.\n"
      "Logs go to stderr with syslog priority prefixes; secrets never appear in them.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // The one place the daemon's real Env is chosen (daemon/daemon.hpp).
  accelopt::Env* env = accelopt::Env::Default();
  if (version) {
    std::cout << "acceloptd " << accelopt::kVersion << "\n";
    return 0;
  }
  if (!check_path.empty()) {
    // The start's checks, in the start's order (LoadChecked below).
    auto c = LoadChecked(check_path, env);
    if (!c.ok()) {
      std::string hint;
      // A campaign spec is not a daemon config: say where it is checked.
      if (auto j = accelopt::ReadJsonFile(env, check_path); j.ok() && j->is_object() && j->contains("problems")) {
        hint = " (this looks like a campaign spec, not a daemon config: check it with acceloptctl submit --dry-run " +
               check_path + ")";
      }
      std::cerr << "acceloptd: " << c.status().message() << hint << "\n";
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
    // Without a model (no ACCELOPT_LLM_BASE_URL, no providers) --dev serves
    // the API and dashboard, and every submission says what is missing.
    if (auto st = accelopt::daemon::CheckCampaignDefaults(setup->config); !st.ok()) {
      std::cerr << "acceloptd: " << st.message() << "\n";
      return 1;
    }
    if (force_busy) ForceBusy(setup->config);
    accelopt::daemon::DaemonOptions options;
    options.env = env;
    options.on_ready = [&setup](unsigned short port) {
      std::cout << accelopt::daemon::DevReadyLines(*setup, port) << std::flush;
    };
    return accelopt::daemon::RunDaemon(setup->config, options);
  }
  auto config = LoadChecked(config_path, env);
  if (!config.ok()) {
    accelopt::LogError(config.status().message());
    return 1;
  }
  if (force_busy) ForceBusy(*config);
  accelopt::daemon::DaemonOptions options;
  options.env = env;
  return accelopt::daemon::RunDaemon(*config, options);
}
