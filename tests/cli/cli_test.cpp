// acceloptctl's promises, with the real binaries against a daemon fixture:
//  - `list --state S` lists only campaigns in S; `list --watch` ends with
//    --count N or --until-ended (and prints one JSON line per listing);
//  - `calibrate` prints tables; `acceloptctl baseline` and `accelopt-eval
//    baseline` print the same columns (base/baseline_table.hpp);
//  - bash completion (cli/acceloptctl.bash-completion) completes bank names
//    and item ids from the daemon that --socket names.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/subprocess.hpp"
#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> Ids(const json& listing) {
  std::vector<std::string> ids;
  for (const auto& c : listing.value("campaigns", json::array())) ids.push_back(c.value("id", ""));
  return ids;
}

// The words bash completion offers for `words` (the last one being
// completed), with acceloptctl on PATH and `env` set.
std::vector<std::string> Complete(const std::vector<std::string>& words,
                                  const std::map<std::string, std::string>& env) {
  ProcessSpec spec;
  spec.argv = {"bash", "-c",
               "source \"$1\"; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _acceloptctl; "
               "printf '%s\\n' \"${COMPREPLY[@]}\"",
               "_", SourceDir() + "/cli/acceloptctl.bash-completion"};
  spec.argv.insert(spec.argv.end(), words.begin(), words.end());
  spec.env_set = env;
  spec.env_set["PATH"] = fs::path(AcceloptctlPath()).parent_path().string() + ":" + std::getenv("PATH");
  auto r = RunProcess(spec);
  BOOST_REQUIRE(r.ok());
  BOOST_REQUIRE_MESSAGE(r->exit_code == 0, r->stderr_data);
  std::vector<std::string> out;
  for (const auto& l : Lines(r->stdout_data))
    if (!l.empty()) out.push_back(l);
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

BOOST_AUTO_TEST_CASE(list_state_filters_and_list_watch_ends) {
  DaemonFixture f(StandardScript(400));
  f.StartDaemon();
  const std::string spec_path = WriteJson(f, "spec.json", SmallSpec({"matmul"}, 2, 1, 2, 1));
  auto s = f.Ctl({"submit", spec_path, "-o", "json"});
  BOOST_REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  const std::string id = s.Json()["id"];

  // --count: that many listings, one JSON line each, then exit 0.
  auto counted = f.Ctl({"list", "--watch", "--count", "3", "--interval", "0.1", "-o", "json"}, 60);
  BOOST_REQUIRE_MESSAGE(counted.exit_code == 0, counted.err);
  const auto listings = Lines(counted.out);
  BOOST_REQUIRE_EQUAL(listings.size(), 3u);
  for (const auto& l : listings) BOOST_TEST(Ids(json::parse(l)) == std::vector<std::string>{id});

  // While it runs: --state running lists it, --state completed does not.
  auto running = f.Ctl({"list", "--state", "running", "-o", "json"});
  BOOST_REQUIRE_EQUAL(running.exit_code, 0);
  BOOST_TEST(Ids(running.Json()) == std::vector<std::string>{id}, running.out);
  BOOST_TEST(Ids(f.Ctl({"list", "--state", "completed", "-o", "json"}).Json()).empty());

  // --until-ended: listings until every campaign listed ended; the first
  // shows it running, the last completed.
  auto watched = f.Ctl({"list", "--watch", "--until-ended", "--interval", "0.2", "-o", "json"}, 240);
  BOOST_REQUIRE_MESSAGE(watched.exit_code == 0, watched.err);
  const auto seen = Lines(watched.out);
  BOOST_REQUIRE_GE(seen.size(), 2u);
  BOOST_TEST(json::parse(seen.front())["campaigns"][0]["state"] == "running");
  BOOST_TEST(json::parse(seen.back())["campaigns"][0]["state"] == "completed");
  for (size_t i = 0; i + 1 < seen.size(); ++i) BOOST_TEST(json::parse(seen[i])["campaigns"][0]["state"] == "running");

  // After the end: the filters the other way round, in both output modes.
  BOOST_TEST(Ids(f.Ctl({"list", "--state", "running", "-o", "json"}).Json()).empty());
  BOOST_TEST(Ids(f.Ctl({"list", "--state", "completed", "-o", "json"}).Json()) == std::vector<std::string>{id});
  auto table = f.Ctl({"list", "--state", "completed"});
  BOOST_TEST(table.out.find("ID") == 0u, table.out);
  BOOST_TEST(table.out.find(id) != std::string::npos);
  auto none = f.Ctl({"list", "--state", "running"});
  BOOST_TEST(Lines(none.out).size() == 1u, none.out);  // the header alone
  // --state running --watch --until-ended: ends at once, nothing runs.
  auto idle = f.Ctl({"list", "--state", "running", "--watch", "--until-ended", "-o", "json"}, 30);
  BOOST_TEST(idle.exit_code == 0);
  BOOST_TEST(Lines(idle.out).size() == 1u, idle.out);

  // Usage errors: an unknown state, --count without --watch.
  BOOST_TEST(f.Ctl({"list", "--state", "sleeping"}).exit_code == 2);
  BOOST_TEST(f.Ctl({"list", "--count", "2"}).exit_code == 2);
  BOOST_TEST(f.Ctl({"list", "--help"}).out.find("--until-ended") != std::string::npos);
  BOOST_TEST(f.StopDaemon() == 0);
}

BOOST_AUTO_TEST_CASE(calibrate_prints_tables_and_both_baselines_print_the_same_columns) {
  DaemonFixture f(StandardScript(5), {{"suites", {{"test", SourceDir() + "/tests/evaluators/problems"}}}});
  f.StartDaemon();
  auto cal = f.Ctl({"calibrate"});
  BOOST_REQUIRE_MESSAGE(cal.exit_code == 0, cal.err);
  const auto cal_lines = Lines(cal.out);
  BOOST_REQUIRE(!cal_lines.empty());
  BOOST_TEST(cal_lines[0].starts_with("FIELD"), cal.out);
  BOOST_TEST(cal_lines[0].find("VALUE") != std::string::npos, cal.out);
  BOOST_TEST(cal.out.find("peak GFLOP/s (all cores)") != std::string::npos, cal.out);
  BOOST_TEST(cal.out.find("WORKING SET") != std::string::npos, cal.out);

  auto ctl = f.Ctl({"baseline", "test"});
  BOOST_REQUIRE_MESSAGE(ctl.exit_code == 0, ctl.err);
  BOOST_TEST(f.StopDaemon() == 0);
  ProcessSpec spec;
  spec.argv = {ACCELOPT_EVAL_PATH,
               "baseline",
               SourceDir() + "/tests/evaluators/problems",
               "--cache-dir",
               std::string(ACCELOPT_BINARY_DIR) + "/test-eval-cache",
               "--force-busy"};
  spec.timeout = std::chrono::minutes(10);
  auto eval = RunProcess(spec);
  BOOST_REQUIRE(eval.ok());
  BOOST_REQUIRE_MESSAGE(eval->exit_code == 0, eval->stdout_data << eval->stderr_data);

  const auto a = Lines(ctl.out), b = Lines(eval->stdout_data);
  BOOST_REQUIRE_EQUAL(a.size(), 5u);  // header, three problems, geometric mean
  BOOST_REQUIRE_EQUAL(b.size(), a.size());
  BOOST_TEST(a[0] == b[0]);  // the same header, character for character
  BOOST_TEST(a[0].starts_with("PROBLEM "), a[0]);
  for (const char* column : {"STATUS", "MEDIAN_US", "SPREAD", "% OF PEAK", "BOUND", "REASON"})
    BOOST_TEST(a[0].find(column) != std::string::npos, column);
  // Rows: the same problems and statuses, each cell starting under its header.
  for (size_t i = 1; i + 1 < a.size(); ++i) {
    std::istringstream x(a[i]), y(b[i]);
    std::string px, sx, py, sy;
    x >> px >> sx;
    y >> py >> sy;
    BOOST_TEST(px == py);
    BOOST_TEST(sx == "ok");
    BOOST_TEST(sy == "ok");
    BOOST_TEST(a[i].size() == b[i].size(), a[i] << " | " << b[i]);
  }
  BOOST_TEST(a.back().starts_with("geometric mean of % of peak: "), a.back());
  BOOST_TEST(b.back().starts_with("geometric mean of % of peak: "), b.back());
}

BOOST_AUTO_TEST_CASE(bash_completion_completes_banks_and_items_from_the_daemon_socket_names) {
  DaemonFixture f(StandardScript(5));
  f.StartDaemon();
  const std::string list = WriteJson(f, "accelopt.json", json::parse(R"([
      {"title": "Double buffering", "summary": "Overlap loads with compute.", "slow_code": "a", "fast_code": "b", "speedup": 1.3}])"));
  for (const char* bank : {"nightly-bank", "other-bank"})
    BOOST_REQUIRE_EQUAL(f.Ctl({"memory", "import", bank, "--file", list, "--format", "accelopt"}).exit_code, 0);
  const json shown = f.Ctl({"memory", "show", "nightly-bank", "-o", "json"}).Json();
  BOOST_REQUIRE_EQUAL(shown["items"].size(), 1u);
  const std::string item = shown["items"][0]["id"];
  const std::string spec_path = WriteJson(f, "spec.json", SmallSpec({"silu"}, 1, 1, 1, 1));
  auto s = f.Ctl({"submit", spec_path, "--wait", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  const std::string campaign = s.Json()["id"];

  // ACCELOPT_SOCKET names nothing: what is completed came through --socket.
  const std::map<std::string, std::string> env = {{"ACCELOPT_SOCKET", f.dir + "/nothing.sock"}};
  for (const std::string& sub : {"show", "export", "import", "retire", "rebuild", "redistill"}) {
    const auto banks = Complete({"acceloptctl", "--socket", f.socket, "memory", sub, ""}, env);
    BOOST_TEST(Has(banks, "nightly-bank"), sub);
    BOOST_TEST(Has(banks, "other-bank"), sub);
  }
  // A prefix, "--socket=PATH" split at '=' as bash does, and --socket after the command.
  BOOST_TEST(Complete({"acceloptctl", "--socket", "=", f.socket, "memory", "show", "nig"}, env) ==
             std::vector<std::string>{"nightly-bank"});
  BOOST_TEST(Complete({"acceloptctl", "--socket=" + f.socket, "memory", "show", "nig"}, env) ==
             std::vector<std::string>{"nightly-bank"});
  BOOST_TEST(Complete({"acceloptctl", "memory", "show", "--socket", f.socket, "oth"}, env) ==
             std::vector<std::string>{"other-bank"});
  // retire BANK: the bank's item ids.
  BOOST_TEST(Has(Complete({"acceloptctl", "--socket", f.socket, "memory", "retire", "nightly-bank", ""}, env), item));
  // Campaign ids, and nothing from a daemon that is not there.
  const std::vector<std::string> report_words = {campaign, "--html"};
  BOOST_TEST(Complete({"acceloptctl", "--socket", f.socket, "report", ""}, env) == report_words);
  BOOST_TEST(!Has(Complete({"acceloptctl", "memory", "show", ""}, env), "nightly-bank"));
  BOOST_TEST(Has(Complete({"acceloptctl", "memory", "show", ""}, {{"ACCELOPT_SOCKET", f.socket}}), "nightly-bank"));
  // The words the CLI takes.
  BOOST_TEST(Has(Complete({"acceloptctl", "list", "--"}, env), "--until-ended"));
  BOOST_TEST(Has(Complete({"acceloptctl", "list", "--state", ""}, env), "partial"));
  BOOST_TEST(f.StopDaemon() == 0);
}

// The mistakes people make at the command line are told with the fix
// (issue 27, "CLI"): did-you-mean for commands and problem ids, a --set
// without a value, a spec file that cannot be opened (and why), an invalid
// spec exits 2 like bad JSON, `submit --dry-run` checks without starting,
// `report ID --html -o FILE` writes the page, every tool has --version.
BOOST_AUTO_TEST_CASE(usage_mistakes_are_told_with_the_fix) {
  DaemonFixture f(StandardScript(5));
  f.StartDaemon();
  auto lst = f.Ctl({"lst"});
  BOOST_TEST(lst.exit_code == 2);
  BOOST_TEST(lst.err.find("unknown command 'lst'; did you mean 'list'?") != std::string::npos, lst.err);

  auto typo = f.Ctl({"submit", "--problem", "suites/cpu/siluu"});
  BOOST_TEST(typo.exit_code == 4);  // not found
  BOOST_TEST(typo.err.find("did you mean 'suites/cpu/silu'?") != std::string::npos, typo.err);

  auto no_value = f.Ctl({"submit", "--problem", "suites/cpu/silu", "--set", "search.T"});
  BOOST_TEST(no_value.exit_code == 2);
  BOOST_TEST(no_value.err.find("--set search.T: no value given (write --set FIELD=VALUE, e.g. --set search.T=4)") !=
                 std::string::npos,
             no_value.err);

  auto missing = f.Ctl({"submit", f.dir + "/no-such-spec.json"});
  BOOST_TEST(missing.exit_code == 2);
  BOOST_TEST(
      missing.err.find("cannot open " + f.dir + "/no-such-spec.json: No such file or directory") != std::string::npos,
      missing.err);

  // A spec the daemon refuses: exit 2 (usage), as a file that is not JSON.
  const std::string bad =
      WriteJson(f, "bad.json", {{"problems", {"silu"}}, {"suite", "suites/test"}, {"search", {{"T", "three"}}}});
  auto refused = f.Ctl({"submit", bad});
  BOOST_TEST(refused.exit_code == 2);
  BOOST_TEST(refused.err.find("search.T") != std::string::npos, refused.err);
  std::ofstream(f.dir + "/garbage.json") << "{not json";
  BOOST_TEST(f.Ctl({"submit", f.dir + "/garbage.json"}).exit_code == 2);

  // --dry-run: the daemon's checks, nothing started.
  auto dry_bad = f.Ctl({"submit", bad, "--dry-run"});
  BOOST_TEST(dry_bad.exit_code == 2);
  BOOST_TEST(dry_bad.err.find("search.T") != std::string::npos, dry_bad.err);
  const std::string good = WriteJson(f, "good.json", SmallSpec({"silu"}, 1, 1, 1, 1));
  auto dry = f.Ctl({"submit", good, "--dry-run"});
  BOOST_TEST(dry.exit_code == 0, dry.err);
  BOOST_TEST(dry.out.find(good + ": ok (would start suites/test/silu); nothing was submitted") != std::string::npos,
             dry.out);
  auto dry_json = f.Ctl({"submit", good, "--dry-run", "-o", "json"});
  BOOST_TEST(dry_json.Json()["spec"]["roles"]["planner"]["model"] == "fake-model");  // completed from the config
  BOOST_TEST(Ids(f.Ctl({"list", "-o", "json"}).Json()).empty());                     // nothing was submitted

  // report ID --html -o FILE.
  auto done = f.Ctl({"submit", good, "--wait", "-o", "json"}, 240);
  BOOST_REQUIRE_MESSAGE(done.exit_code == 0, done.err);
  const std::string id = done.Json()["id"];
  auto html = f.Ctl({"report", id, "--html", "-o", f.dir + "/r.html"});
  BOOST_TEST(html.exit_code == 0, html.err);
  BOOST_TEST(ReadAll(f.dir + "/r.html").find("<html") != std::string::npos);
  auto html2 = f.Ctl({"report", id, "--html", f.dir + "/r2.html"});
  BOOST_TEST(html2.exit_code == 0, html2.err);
  BOOST_TEST(fs::file_size(f.dir + "/r2.html") > 0u);

  for (const std::string tool : {AcceloptctlPath(), AcceloptdPath(), std::string(ACCELOPT_EVAL_PATH)}) {
    ProcessSpec spec;
    spec.argv = {tool, "--version"};
    auto r = RunProcess(spec);
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(r->exit_code == 0, tool << ": " << r->stderr_data);
    BOOST_TEST(r->stdout_data.find(" 0.1.0") != std::string::npos, tool << ": " << r->stdout_data);
  }
  ProcessSpec eval_typo;
  eval_typo.argv = {ACCELOPT_EVAL_PATH, "calibrat"};
  auto et = RunProcess(eval_typo);
  BOOST_REQUIRE(et.ok());
  BOOST_TEST(et->exit_code == 2);
  BOOST_TEST(et->stderr_data.find("did you mean 'calibrate'?") != std::string::npos, et->stderr_data);
}
