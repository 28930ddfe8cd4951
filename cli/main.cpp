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
  auto positional = [&](CLI::App* c, const std::string& name, const std::string& help, bool required = true) {
    auto* opt = c->add_option(name, o.args, help);
    if (required) opt->required();
  };

  auto* submit = app.add_subcommand("submit", "submit a campaign from a spec file and/or flags");
  positional(submit, "spec", "campaign spec (JSON), e.g. /etc/accelopt/quick.json", false);
  submit->add_option("--idempotency-key", o.idempotency_key, "a repeated submit with this key returns the first campaign");
  submit->add_option("--problem", o.problems, "problem to optimize (repeatable), e.g. suites/cpu/silu");
  submit->add_option("--set", o.sets, "override a spec field: --set search.T=4 (repeatable)");
  submit->add_flag("--wait", o.wait, "wait until the campaign ends, then print its summary");
  submit->add_flag("-f,--follow", o.follow, "print the campaign's events until it ends");
  submit->add_option("--timeout", o.timeout_s, "with --wait/--follow: give up after this many seconds");

  auto* list = app.add_subcommand("list", "list campaigns");
  list->add_option("--state", o.state, "only campaigns in this state")
      ->check(CLI::IsMember({"running", "paused", "completed", "partial", "failed", "cancelled", "budget_exhausted"}));
  auto* watch = list->add_flag("--watch", o.watch,
                                "list again every --interval seconds until interrupted, --count listings, or "
                                "--until-ended (-o json: one JSON line per listing)");
  list->add_option("--interval", o.interval_s, "with --watch: seconds between listings")->capture_default_str()
      ->check(CLI::PositiveNumber);
  list->add_option("--count", o.count, "with --watch: stop after N listings")->check(CLI::PositiveNumber)->needs(watch);
  list->add_flag("--until-ended", o.until_ended,
                 "with --watch: stop after a listing in which every campaign shown has ended (with --state running: "
                 "once none runs)")
      ->needs(watch);
  auto* get = app.add_subcommand("get", "show one campaign");
  positional(get, "id", "campaign id");
  auto* events = app.add_subcommand("events", "print a campaign's events");
  positional(events, "id", "campaign id");
  events->add_flag("-f,--follow", o.follow, "keep printing new events until the campaign ends");
  auto* wait = app.add_subcommand("wait", "wait for a campaign to end (progress on stderr)");
  positional(wait, "id", "campaign id");
  wait->add_option("--timeout", o.timeout_s, "give up after this many seconds (exit 7)");
  auto* cancel = app.add_subcommand("cancel", "cancel a campaign");
  positional(cancel, "id", "campaign id");
  auto* pause = app.add_subcommand("pause", "pause a campaign (in-flight work finishes)");
  positional(pause, "id", "campaign id");
  auto* resume = app.add_subcommand("resume", "resume a paused campaign");
  positional(resume, "id", "campaign id");
  auto* best = app.add_subcommand("best", "show the best kernel of each problem; --out writes them");
  positional(best, "id", "campaign id");
  best->add_option("--out", o.out_dir, "folder to write <problem>.cpp files into");
  auto* candidates = app.add_subcommand("candidates", "every candidate of a campaign with its result");
  positional(candidates, "id", "campaign id");
  candidates->add_option("--problem", o.problems, "only this problem's candidates (its name, e.g. matmul; repeatable)");
  candidates->add_option("--iteration", o.iteration, "only this iteration's candidates");
  auto* report = app.add_subcommand("report", "% of peak per problem per iteration, speedups, cost per role");
  positional(report, "id", "campaign id");
  report->add_option("--html", o.html_file,
                     "write the report as one self-contained HTML page (plots, lineage, cost, best kernel) to FILE "
                     "('-': stdout)");
  auto* memory = app.add_subcommand("memory",
      "optimization memory banks: list | show BANK | export BANK | import BANK --file F | retire BANK ITEM... | "
      "rebuild BANK | redistill BANK");
  positional(memory, "args", "subcommand, bank and (retire) item ids");
  memory->add_option("--file", o.file, "import: the file to import; export: write to this file instead of stdout");
  memory->add_option("--format", o.format, "import format: auto (default), bank (an export) or accelopt (AccelOpt experience list)");
  memory->add_option("--generation", o.generation, "show/export: this generation instead of the current one");
  memory->add_option("--reason", o.reason, "retire: why (recorded with the retirement)");
  memory->add_option("--provider", o.provider, "redistill: the summarizer's provider (default: the daemon's summarizer role)");
  memory->add_option("--model", o.model, "redistill: the summarizer's model (default: the daemon's summarizer role)");
  memory->add_option("--campaign", o.campaigns, "redistill: a campaign whose pairs to use (repeatable; '*' = every campaign; default: those that wrote the bank)");
  memory->add_option("--max-pairs", o.max_pairs, "redistill: at most this many pairs");
  memory->add_flag("--wait", o.wait, "redistill: wait until it completes, showing progress");
  auto* suites = app.add_subcommand("suites", "list suites and problems");
  auto* baseline = app.add_subcommand("baseline", "evaluate every baseline of a suite");
  positional(baseline, "suite", "suite name (default cpu)", false);
  auto* calibrate = app.add_subcommand("calibrate", "show the backend's calibrated peaks; --force re-measures them");
  positional(calibrate, "backend", "backend (default cpu)", false);
  calibrate->add_flag("--force", o.force, "re-measure now (keep the machine quiet) and use it from now on");
  calibrate->add_flag("--force-busy", o.force_busy,
                      "with --force: accept the figures even when the machine is busy (recorded as forced)");
  auto* health = app.add_subcommand("health", "is the daemon healthy? (exit 0 if so)");

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

  // Commands on one campaign take exactly one id (they used to act on the
  // first of several and ignore the rest).
  for (auto* one : {get, events, wait, cancel, pause, resume, best, report, candidates}) {
    if (one->parsed() && o.args.size() > 1) {
      std::cerr << "acceloptctl " << one->get_name() << ": takes one campaign id, got " << o.args.size() << "\n";
      return kExitUsage;
    }
  }
  if (submit->parsed()) return CmdSubmit(api, o);
  if (list->parsed()) return CmdList(api, o);
  if (get->parsed()) return CmdGet(api, o);
  if (events->parsed()) return CmdEvents(api, o);
  if (wait->parsed()) return CmdWait(api, o);
  if (cancel->parsed()) return CmdControl(api, o, "cancel");
  if (pause->parsed()) return CmdControl(api, o, "pause");
  if (resume->parsed()) return CmdControl(api, o, "resume");
  if (best->parsed()) return CmdBest(api, o);
  if (report->parsed()) return CmdReport(api, o);
  if (candidates->parsed()) return CmdCandidates(api, o);
  if (memory->parsed()) return CmdMemory(api, o);
  if (suites->parsed()) return CmdSuites(api, o);
  if (baseline->parsed()) return CmdBaseline(api, o);
  if (calibrate->parsed()) return CmdCalibrate(api, o);
  if (health->parsed()) return CmdHealth(api, o);
  return kExitUsage;
}
