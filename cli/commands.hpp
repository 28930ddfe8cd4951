// acceloptctl's subcommands, as a table (after ninja's tools): each entry
// names a subcommand, adds its own flags and positionals, and says what it
// runs (cli/command_table.cpp; main.cpp only parses the global options and
// dispatches). A command takes the parsed options and a client and returns
// an exit code (see output.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "cli/api_client.hpp"
#include "cli/output.hpp"

namespace accelopt::cli {

struct Options {
  bool json_output = false;            // -o json
  std::vector<std::string> args;       // positional arguments after the subcommand
  std::string idempotency_key;         // submit
  std::string replay_from;             // submit --replay-from CAMPAIGN
  std::string replay_on_miss;          // submit --on-miss stop|live
  std::string against;                 // experiment report --against ARM (default: the arm submitted first)
  bool wait = false;                   // submit --wait
  bool follow = false;                 // -f/--follow (submit, events)
  double timeout_s = 0;                // wait/--wait: 0 = forever
  std::string out_dir;                 // best --out
  std::string html_file;               // report --html FILE ("-": stdout)
  std::string state;                   // list --state S
  bool watch = false;                  // list --watch
  double interval_s = 2;               // list --watch --interval
  int count = 0;                       // list --watch --count N: stop after N listings (0: no limit)
  bool until_ended = false;            // list --watch --until-ended: stop once every campaign listed ended
  int iteration = -1;                  // candidates --iteration (-1: all)
  std::vector<std::string> sets;       // submit --set key=value (JSON values allowed)
  std::vector<std::string> problems;   // submit --problem; candidates --problem (a filter)
  std::string file;                    // memory import --file FILE
  std::string format;                  // memory import --format accelopt|bank
  int generation = 0;                  // memory show/export --generation (0: current)
  std::string reason;                  // memory retire --reason
  std::string provider, model;         // memory redistill --provider/--model
  std::vector<std::string> campaigns;  // memory redistill --campaign
  int max_pairs = 0;                   // memory redistill --max-pairs
  bool force = false;                  // calibrate --force: re-measure now; import --force: replace problems
  bool force_busy = false;             // calibrate --force-busy: accept a busy machine's figures
  std::string suite;                   // import --suite NAME (default nki)
  bool dry_run = false;                // import --dry-run: check locally, send nothing; submit --dry-run: check only
  Env* env = nullptr;                  // the process's Env (main sets it): import reads the checkout through it
};

// One subcommand. `flags` adds its flags and positionals to `sub`, writing
// into `o` (the Options outlive the parse). `one_campaign`: takes exactly
// one campaign id (more is a usage error, not "the first of several").
struct Command {
  const char* name;
  const char* help;
  void (*flags)(CLI::App& sub, Options& o);
  int (*run)(ApiClient& api, const Options& o);
  bool one_campaign = false;
};

// Every subcommand, in the order --help lists them. Built once; not
// modified after.
const std::vector<Command>& CommandTable();

// A call's reply when it succeeded (2xx). Otherwise the error was printed on
// stderr (TransportError / ReplyError) and `exit_code` says which.
struct Answer : ApiReply {
  int exit_code = kExitOk;
  bool ok() const { return exit_code == kExitOk; }
};
Answer Ask(ApiClient& api, const std::string& method, const std::string& path, const json* body = nullptr,
           std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Maps an API reply to an exit code, printing the error on stderr.
int ReplyError(const ApiReply& reply);
// Prints a Status (unreachable, timeout) and returns its exit code.
int TransportError(const Status& status);
// Calls the API and prints the reply's JSON (or the error); the exit code.
int Simple(ApiClient& api, const Options& o, const std::string& method, const std::string& path,
           const json* body = nullptr, std::chrono::milliseconds timeout = std::chrono::seconds(30));

int CmdSubmit(ApiClient& api, const Options& o);
int CmdList(ApiClient& api, const Options& o);
int CmdGet(ApiClient& api, const Options& o);
int CmdEvents(ApiClient& api, const Options& o);
int CmdWait(ApiClient& api, const Options& o);
int CmdControl(ApiClient& api, const Options& o, const std::string& action);  // cancel|pause|resume
int CmdBest(ApiClient& api, const Options& o);
int CmdReport(ApiClient& api, const Options& o);
int CmdCandidates(ApiClient& api, const Options& o);  // candidates_command.cpp
int CmdMemory(ApiClient& api, const Options& o);      // memory_commands.cpp
int CmdExperiment(ApiClient& api, const Options& o);  // experiment_commands.cpp
// report of a replay (submit --replay-from): the recorded campaign beside it
// (replay_report.cpp). json() when `id` is no replay; nullopt when a call
// failed (printed; *exit_code).
std::optional<json> ReplaySideBySide(ApiClient& api, const std::string& id, const json& report, int* exit_code);
void PrintReplaySideBySide(const json& side);
// experiment wait ID (o.args = {"wait", ID}): until every campaign of it
// ended, then its report; kExitPartial when one did not complete.
int ExperimentWait(ApiClient& api, const Options& o);
int CmdSuites(ApiClient& api, const Options& o);
int CmdBaseline(ApiClient& api, const Options& o);
int CmdCalibrate(ApiClient& api, const Options& o);
int CmdHealth(ApiClient& api, const Options& o);
// import nkibench PATH: the importer (accelopt_nki) runs here on o.env, then
// each problem is uploaded (import_command.cpp).
int CmdImport(ApiClient& api, const Options& o);

// Follows a campaign's events until it ends, drawing progress on stderr.
// Returns the exit code for the campaign's final state.
int FollowCampaign(ApiClient& api, const std::string& id, const Options& o, bool print_events);
int ExitCodeForState(const std::string& state);

}  // namespace accelopt::cli
