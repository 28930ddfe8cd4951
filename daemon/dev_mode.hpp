// `acceloptd --dev`: run from a build tree without installing anything.
//
// Picks a folder (--dev-dir, else $ACCELOPT_DEV_DIR, else ./.accelopt-dev),
// created mode 0700, holding the state directory (state/), the socket
// (acceloptd.sock; under $XDG_RUNTIME_DIR or /tmp when that path is too long
// for a Unix socket), the configuration in use (acceloptd.json, rewritten at
// every start, for reading and --check-config) and, with TCP, a generated
// token (token, kept across starts). The suites are the source tree's
// (suites/cpu as "cpu", tests/evaluators/problems as "test"); an LLM comes
// from ACCELOPT_LLM_BASE_URL + ACCELOPT_LLM_MODEL (key in
// ACCELOPT_LLM_API_KEY) as in scripts/demo, else campaigns cannot run but
// everything else does. A --config given with --dev is the base: its
// providers, roles, evaluators, suites and search are kept; the folder,
// socket and TCP address are the dev ones.
//
// When it is ready the daemon prints on stdout:
//   ACCELOPT_SOCKET=<socket>
//   ACCELOPT_DASHBOARD=http://<host>:<port>/ui/?token=<token from the file>   (with TCP; see DevReadyLines)
//
// Thread safety: plain functions, called from main before the daemon runs.
#pragma once

#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/config.hpp"

namespace accelopt::daemon {

struct DevOptions {
  std::string dir;             // empty: $ACCELOPT_DEV_DIR, else ./.accelopt-dev
  std::string tcp;             // "host:port"; empty: Unix socket only
  std::string source_dir;      // the source tree (suites)
  json base = json::object();  // a --config given with --dev
};

struct DevSetup {
  DaemonConfig config;
  std::string dir;
  std::string token_file;  // with TCP
};

// Creates the folder, the token and the config; the config as the daemon
// will run it. Every file and environment-variable access goes through `env`.
Result<DevSetup> PrepareDev(const DevOptions& options, Env* env);

// The lines to print once the daemon listens (`tcp_port`: the bound port).
// The token itself is not printed (stdout may be a journal): the dashboard
// line names the token file to read it from.
std::string DevReadyLines(const DevSetup& setup, unsigned short tcp_port);

}  // namespace accelopt::daemon
