// acceloptctl: drive acceloptd over its HTTP API.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "base/env.hpp"
#include "base/text.hpp"
#include "cli/commands.hpp"
#include "base/version.hpp"

using namespace accelopt::cli;

int main(int argc, char** argv) {
  CLI::App app{"acceloptctl: submit and follow kernel-optimization campaigns on acceloptd"};
  app.footer(std::string(kExitCodesHelp) +
             "\nEnvironment: ACCELOPT_SOCKET (Unix socket), ACCELOPT_URL (http://host:port),\n"
             "  ACCELOPT_TOKEN_FILE (bearer token for TCP; the token itself is never printed).");
  app.set_version_flag("--version", std::string("acceloptctl ") + accelopt::kVersion);
  app.require_subcommand(1);
  app.fallthrough();  // global options (-o, --socket) may follow the subcommand
  std::string socket_path =
      std::getenv("ACCELOPT_SOCKET") ? std::getenv("ACCELOPT_SOCKET") : "/run/accelopt/acceloptd.sock";
  std::string url = std::getenv("ACCELOPT_URL") ? std::getenv("ACCELOPT_URL") : "";
  std::string token_file = std::getenv("ACCELOPT_TOKEN_FILE") ? std::getenv("ACCELOPT_TOKEN_FILE") : "";
  std::string output = "table";
  app.add_option("--socket", socket_path, "acceloptd's Unix socket")->capture_default_str();
  app.add_option("--url", url, "acceloptd over TCP, e.g. http://127.0.0.1:7070 (needs a token file)");
  app.add_option("--token-file", token_file, "file holding the bearer token for --url");
  app.add_option("-o,--output", output, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  Options o;
  o.env = accelopt::Env::Default();
  std::vector<std::pair<CLI::App*, const Command*>> subcommands;
  for (const Command& c : CommandTable()) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    c.flags(*sub, o);
    subcommands.emplace_back(sub, &c);
  }

  // The command word: the first argument that is neither a global option
  // nor its value (acceloptctl --socket S lst).
  int command_at = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--socket" || a == "--url" || a == "--token-file" || a == "-o" || a == "--output") {
      ++i;
      continue;
    }
    if (a.empty() || a[0] == '-') continue;
    command_at = i;
    break;
  }
  // An unknown first word is an unknown command, not "a subcommand is
  // required" (CLI11 takes it for a stray positional).
  if (command_at > 0) {
    const char* word = argv[command_at];
    bool known = false;
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->check_name(word);
      names.push_back(sub->get_name());
    }
    if (!known) {
      const std::string near = accelopt::ClosestMatch(word, names);
      std::cerr << "acceloptctl: unknown command '" << word << "'"
                << (near.empty() ? "" : "; did you mean '" + near + "'?") << "\nRun with --help for the commands.\n";
      return kExitUsage;
    }
  }
  // `report ID --html -o FILE`: with --html, an -o that is not a format is
  // the page's file (people write it as for other tools' output files).
  std::vector<std::string> args(argv, argv + argc);
  std::string html_out;
  if (command_at > 0 && args[command_at] == "report" && std::find(args.begin(), args.end(), "--html") != args.end()) {
    for (size_t i = static_cast<size_t>(command_at) + 1; i + 1 < args.size(); ++i) {
      if ((args[i] == "-o" || args[i] == "--output") && args[i + 1] != "table" && args[i + 1] != "json") {
        html_out = args[i + 1];
        args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
        break;
      }
    }
  }
  std::vector<char*> argp;
  for (auto& a : args) argp.push_back(a.data());
  try {
    app.parse(static_cast<int>(argp.size()), argp.data());
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  o.json_output = output == "json";
  for (const auto& [sub, command] : subcommands) {
    if (std::string(command->name) != "report" || !sub->parsed() || sub->count("--html") == 0) continue;
    if (!html_out.empty()) {
      if (!o.html_file.empty() && o.html_file != html_out) {
        std::cerr << "acceloptctl report: --html " << o.html_file << " and -o " << html_out << " name two files\n";
        return kExitUsage;
      }
      o.html_file = html_out;
    }
    if (o.html_file.empty()) o.html_file = "-";
  }

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
