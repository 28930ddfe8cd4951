// acceloptctl's subcommands as a table: name, help, flags, what runs.
#include "cli/commands.hpp"

namespace accelopt::cli {
namespace {

void Positional(CLI::App& c, Options& o, const std::string& name, const std::string& help, bool required = true) {
  auto* opt = c.add_option(name, o.args, help);
  if (required) opt->required();
}

void CampaignId(CLI::App& c, Options& o) { Positional(c, o, "id", "campaign id"); }

void SubmitFlags(CLI::App& c, Options& o) {
  Positional(c, o, "spec", "campaign spec (JSON), e.g. /etc/accelopt/quick.json", false);
  c.add_option("--idempotency-key", o.idempotency_key, "a repeated submit with this key returns the first campaign");
  c.add_option("--replay-from", o.replay_from,
               "re-run a recorded campaign at no LLM cost: each LLM call takes the recorded reply at the same "
               "activity path, evaluations run on this host's judge (the recorded spec is used unless a spec file "
               "is given)");
  c.add_option("--on-miss", o.replay_on_miss,
               "with --replay-from: where the run diverges (no recorded reply), 'stop' the campaign (default) "
               "or call the 'live' model")
      ->check(CLI::IsMember({"stop", "live"}));
  c.add_option("--problem", o.problems, "problem to optimize (repeatable), e.g. suites/cpu/silu");
  c.add_option("--set", o.sets, "override a spec field: --set search.T=4 (repeatable)");
  c.add_flag("--wait", o.wait, "wait until the campaign ends, then print its summary");
  c.add_flag("-f,--follow", o.follow, "print the campaign's events until it ends");
  c.add_option("--timeout", o.timeout_s, "with --wait/--follow: give up after this many seconds");
  c.add_flag("--dry-run", o.dry_run,
             "check the spec against the running daemon (its config, roles, prices, problems) and start nothing: "
             "exit 0 when it would be accepted, 2 with the daemon's reason when not");
}

void ListFlags(CLI::App& c, Options& o) {
  c.add_option("--state", o.state, "only campaigns in this state")
      ->check(CLI::IsMember({"running", "paused", "completed", "partial", "failed", "cancelled", "budget_exhausted"}));
  auto* watch = c.add_flag("--watch", o.watch,
                           "list again every --interval seconds until interrupted, --count listings, or "
                           "--until-ended (-o json: one JSON line per listing)");
  c.add_option("--interval", o.interval_s, "with --watch: seconds between listings")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  c.add_option("--count", o.count, "with --watch: stop after N listings")->check(CLI::PositiveNumber)->needs(watch);
  c.add_flag("--until-ended", o.until_ended,
             "with --watch: stop after a listing in which every campaign shown has ended (with --state running: "
             "once none runs)")
      ->needs(watch);
}

void EventsFlags(CLI::App& c, Options& o) {
  CampaignId(c, o);
  c.add_flag("-f,--follow", o.follow, "keep printing new events until the campaign ends");
}

void WaitFlags(CLI::App& c, Options& o) {
  CampaignId(c, o);
  c.add_option("--timeout", o.timeout_s, "give up after this many seconds (exit 7)");
}

void BestFlags(CLI::App& c, Options& o) {
  CampaignId(c, o);
  c.add_option("--out", o.out_dir, "folder to write <problem>.cpp files into");
}

void CandidatesFlags(CLI::App& c, Options& o) {
  CampaignId(c, o);
  c.add_option("--problem", o.problems, "only this problem's candidates (its name, e.g. matmul; repeatable)");
  c.add_option("--iteration", o.iteration, "only this iteration's candidates");
}

void ReportFlags(CLI::App& c, Options& o) {
  CampaignId(c, o);
  c.add_option("--html", o.html_file,
               "write the report as one self-contained HTML page (plots, lineage, cost, best kernel) to FILE "
               "('-' or no FILE: stdout; `--html -o FILE` also writes FILE)")
      ->expected(0, 1);
}

void MemoryFlags(CLI::App& c, Options& o) {
  Positional(c, o, "args", "subcommand, bank and (retire) item ids");
  c.add_option("--file", o.file, "import: the file to import; export: write to this file instead of stdout");
  c.add_option("--format", o.format,
               "import format: auto (default), bank (an export) or accelopt (AccelOpt experience list)");
  c.add_option("--generation", o.generation, "show/export: this generation instead of the current one");
  c.add_option("--reason", o.reason, "retire: why (recorded with the retirement)");
  c.add_option("--provider", o.provider,
               "redistill: the summarizer's provider (default: the daemon's summarizer role)");
  c.add_option("--model", o.model, "redistill: the summarizer's model (default: the daemon's summarizer role)");
  c.add_option("--campaign", o.campaigns,
               "redistill: a campaign whose pairs to use (repeatable; '*' = every campaign; default: those that wrote "
               "the bank)");
  c.add_option("--max-pairs", o.max_pairs, "redistill: at most this many pairs");
  c.add_flag("--wait", o.wait, "redistill: wait until it completes, showing progress");
}

void NoFlags(CLI::App&, Options&) {}

void BaselineFlags(CLI::App& c, Options& o) { Positional(c, o, "suite", "suite name (default cpu)", false); }

void CalibrateFlags(CLI::App& c, Options& o) {
  Positional(c, o, "backend", "backend (default cpu)", false);
  c.add_flag("--force", o.force, "re-measure now (keep the machine quiet) and use it from now on");
  c.add_flag("--force-busy", o.force_busy,
             "with --force: accept the figures even when the machine is busy (recorded as forced)");
}

void ExperimentFlags(CLI::App& c, Options& o) {
  Positional(c, o, "args", "subcommand and the experiment file (submit, extend) or id");
  c.add_flag("--wait", o.wait, "submit/extend: wait until every campaign ended, then print the report");
  c.add_flag("--dry-run", o.dry_run,
             "submit/extend: check the file and print the campaigns it would submit; send nothing");
  c.add_option(
      "--timeout", o.timeout_s,
      "submit/extend (waiting for the learn campaigns, or with --wait) / wait: give up after this many seconds");
  c.add_option("--against", o.against, "report/remeasure: the reference arm (default: the first arm submitted)");
  c.add_option("--html", o.html_file,
               "report: write one self-contained HTML page (verdicts, paired plots with intervals, cost-efficiency "
               "curves) to FILE ('-': stdout)");
}

void ImportFlags(CLI::App& c, Options& o) {
  Positional(c, o, "args", "nkibench and the NKIBench folder of an AccelOpt checkout");
  c.add_option("--suite", o.suite, "the suite to import into (default nki; used as suites/NAME/<problem>)");
  c.add_flag("--force", o.force, "replace problems the suite already has");
  c.add_flag("--dry-run", o.dry_run, "check the checkout here and print what would be imported; send nothing");
}

}  // namespace

const std::vector<Command>& CommandTable() {
  static const std::vector<Command> table = {
      {"submit", "submit a campaign from a spec file and/or flags", SubmitFlags, CmdSubmit},
      {"list", "list campaigns", ListFlags, CmdList},
      {"get", "show one campaign", CampaignId, CmdGet, true},
      {"events", "print a campaign's events", EventsFlags, CmdEvents, true},
      {"wait", "wait for a campaign to end (progress on stderr)", WaitFlags, CmdWait, true},
      {"cancel", "cancel a campaign", CampaignId,
       [](ApiClient& api, const Options& o) { return CmdControl(api, o, "cancel"); }, true},
      {"pause", "pause a campaign (in-flight work finishes)", CampaignId,
       [](ApiClient& api, const Options& o) { return CmdControl(api, o, "pause"); }, true},
      {"resume", "resume a paused campaign", CampaignId,
       [](ApiClient& api, const Options& o) { return CmdControl(api, o, "resume"); }, true},
      {"best", "show the best kernel of each problem; --out writes them", BestFlags, CmdBest, true},
      {"candidates", "every candidate of a campaign with its result", CandidatesFlags, CmdCandidates, true},
      {"report", "% of peak per problem per iteration, speedups, cost per role", ReportFlags, CmdReport, true},
      {"memory",
       "optimization memory banks: list | show BANK | export BANK | import BANK --file F | retire BANK ITEM... | "
       "rebuild BANK | redistill BANK",
       MemoryFlags, CmdMemory},
      {"experiment",
       "arms x seeds of campaigns and their paired statistics: submit EXP.json | extend EXP.json (one more "
       "seed) | list | get ID | wait ID | cancel ID | report ID [--html FILE] | remeasure ID (the winners side by "
       "side)",
       ExperimentFlags, CmdExperiment},
      {"suites", "list suites and problems", NoFlags, CmdSuites},
      {"baseline", "evaluate every baseline of a suite", BaselineFlags, CmdBaseline},
      {"calibrate", "show the backend's calibrated peaks; --force re-measures them", CalibrateFlags, CmdCalibrate},
      {"health", "is the daemon healthy? (exit 0 if so)", NoFlags, CmdHealth},
      {"import", "import nkibench PATH: NKIBench from an AccelOpt checkout into a suite", ImportFlags, CmdImport},
  };
  return table;
}

}  // namespace accelopt::cli
