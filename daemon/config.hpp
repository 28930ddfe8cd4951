// acceloptd's configuration: one JSON file, comments allowed, unknown keys
// are errors. Every error names the exact field ("listen.tcp: ...").
//
// Sections that belong to other parts are validated by them: "providers" by
// llm/ (the daemon passes the raw JSON on) and the search defaults by
// workflows/. This file owns the daemon's own fields and their defaults.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/backend_config.hpp"

namespace accelopt::daemon {

struct RoleConfig {
  std::string provider;  // a key of "providers"
  std::string model;     // a model of that provider
  double temperature = 1.0;
  int max_tokens = 16384;
  std::string reasoning_effort;  // "", "low", "medium", "high"
};

struct DaemonConfig {
  std::string state_dir = "/var/lib/accelopt";
  std::string unix_socket = "/run/accelopt/acceloptd.sock";
  unsigned unix_mode = 0660;
  std::string tcp;                                  // "host:port"; empty: no TCP
  unsigned short tcp_port = 0;                      // the port of `tcp`, checked 1..65535
  std::string tcp_token_env;                        // name of an env var holding the token
  std::string tcp_token_file;                       // or a file (relative: $CREDENTIALS_DIRECTORY)
  int write_timeout_s = 60;                         // a client that takes no bytes this long is dropped (1..3600)
  json providers = json::object();                  // validated by llm::ParseProvidersConfig while parsing
  std::map<std::string, RoleConfig> roles;          // planner, executor, summarizer
  std::map<std::string, BackendConfig> evaluators;  // "cpu", ...
  std::map<std::string, std::string> suites;        // name -> folder
  // PUT /v1/suites/{suite}/problems/{name} (acceloptctl import nkibench):
  // refused (403) unless true. An uploaded problem's reference.py is trusted
  // code: the judge runs it as the daemon's user, outside the candidates'
  // sandbox, so accepting uploads lets whoever can reach the API run code
  // as the daemon. Turn it on where everyone who can reach the API may do
  // that (config/acceloptd.json).
  bool suite_uploads = false;
  json search = json::object();  // default search parameters for campaigns
  std::string default_memory_bank = "default";
  int max_active_campaigns = 8;
  // Fairness: while other campaigns are active, a campaign has at most this
  // share of its providers' slots in flight (and at most slots / active); a
  // campaign alone may use them all (daemon/llm_in_flight.hpp, LlmShare).
  double llm_share_per_campaign = 0.5;
  // An unavailable provider is probed after this wait, doubling up to the
  // max (daemon/provider_gate.hpp); "limits.provider_probe_initial_ms/_max_ms".
  int provider_probe_initial_ms = 1000;
  int provider_probe_max_ms = 30000;
  // LLM calls in flight per campaign, fixed; 0 (default): from the role
  // providers' max_concurrency and the active campaigns (LlmShare).
  int max_llm_in_flight_per_campaign = 0;
};

// Parses and validates everything the daemon checks at start (providers
// through llm/, roles, listen addresses and ports, suite folders that must
// exist, evaluators, limits), so `acceloptd --check-config` refuses exactly
// what a start would. `base_dir` resolves relative paths (the config file's
// folder). `env` checks the suite folders.
Result<DaemonConfig> ParseDaemonConfig(const json& j, const std::string& base_dir, Env* env);
// Reads the file through `env` and parses it.
Result<DaemonConfig> LoadDaemonConfig(const std::string& path, Env* env);

// Reads the TCP bearer token from the env var or file named in the config
// (through `env`: its variables and files). Registers it as a secret. Empty
// when none is configured.
Result<std::string> LoadTcpToken(const DaemonConfig& config, Env* env);

}  // namespace accelopt::daemon
