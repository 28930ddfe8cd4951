// acceloptctl: drive acceloptd over its HTTP API.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>

#include "base/env.hpp"
#include "cli/commands.hpp"

using namespace accelopt::cli;

int main(int argc, char** argv) {
  CLI::App app{"acceloptctl: submit and follow kernel-optimization campaigns on acceloptd"};
  app.footer(std::string(kExitCodesHelp) +
             "\nEnvironment: ACCELOPT_SOCKET (Unix socket), ACCELOPT_URL (http://host:port),\n"
             "  ACCELOPT_TOKEN_FILE (bearer token for TCP; the token itself is never printed).");
  app.set_version_flag("--version", std::string("acceloptctl ") + ACCELOPT_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global options (-o, --socket) may follow the subcommand
  std::string socket_path = std::getenv("ACCELOPT_SOCKET") ? std::getenv("ACCELOPT_SOCKET") : "/run/accelopt/acceloptd.sock";
  std::string url = std::getenv("ACCELOPT_URL") ? std::getenv("ACCELOPT_URL") : "";
  std::string token_file = std::getenv("ACCELOPT_TOKEN_FILE") ? std::getenv("ACCELOPT_TOKEN_FILE") : "";
  std::string output = "table";
  app.add_option("--socket", socket_path, "acceloptd's Unix socket")->capture_default_str();
  app.add_option("--url", url, "acceloptd over TCP, e.g. http://127.0.0.1:7070 (needs a token file)");
  app.add_option("--token-file", token_file, "file holding the bearer token for --url");
  app.add_option("-o,--output", output, "table or json")->check(CLI::IsMember({"table", "json"}))->capture_default_str();

  Options o;
  o.env = accelopt::Env::Default();
  std::vector<std::pair<CLI::App*, const Command*>> subcommands;
  for (const Command& c : CommandTable()) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    c.flags(*sub, o);
    subcommands.emplace_back(sub, &c);
  }

  // An unknown first word is an unknown command, not "a subcommand is
  // required" (CLI11 takes it for a stray positional).
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      known = known || sub->check_name(argv[1]);
    if (!known) {
      std::cerr << "acceloptctl: unknown command '" << argv[1] << "'\nRun with --help for the commands.\n";
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  o.json_output = output == "json";

  Endpoint ep;
  ep.socket_path = socket_path;
  ep.url = url;
  if (!url.empty()) {
    if (token_file.empty()) {
      std::cerr << "acceloptctl: --url needs --token-file (or ACCELOPT_TOKEN_FILE)\n";
      return kExitUsage;
    }
    auto t = accelopt::Env::Default()->ReadFile(token_file);
    if (!t.ok()) {
      std::cerr << "acceloptctl: cannot read token file " << token_file << "\n";
      return kExitUsage;
    }
    ep.token = *t;
    while (!ep.token.empty() && (ep.token.back() == '\n' || ep.token.back() == '\r')) ep.token.pop_back();
  }
  ApiClient api(ep);

  for (const auto& [sub, command] : subcommands) {
    if (!sub->parsed()) continue;
    // Commands on one campaign take exactly one id (they used to act on
    // the first of several and ignore the rest).
    if (command->one_campaign && o.args.size() > 1) {
      std::cerr << "acceloptctl " << command->name << ": takes one campaign id, got " << o.args.size() << "\n";
      return kExitUsage;
    }
    return command->run(api, o);
  }
  return kExitUsage;
}
