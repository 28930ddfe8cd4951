// acceloptctl import nkibench and PUT /v1/suites/{suite}/problems/{name}
// through a real acceloptd: the importer runs in acceloptctl on the small
// NKIBench-shaped fixture (tests/evaluators/nkibench/), the files go to the
// daemon, which checks them again and writes <state_dir>/suites/<suite>/.
// The imported problems are never evaluated here (no Trainium, no nki
// backend in this daemon): what is shown is that they are listed, refused
// when they should be, and resolved by a campaign submission.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "tests/daemon/daemon_fixture.hpp"

using namespace accelopt;
using namespace accelopt::testing;
namespace fs = std::filesystem;

namespace {

std::string NkiBenchFixture() { return SourceDir() + "/tests/evaluators/nkibench"; }

// Uploads are refused unless the daemon's config allows them.
json UploadsAllowed() { return {{"suite_uploads", true}}; }

// Every file under `dir` with its contents (relative path -> bytes).
std::map<std::string, std::string> TreeOf(const std::string& dir) {
  std::map<std::string, std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = ReadAll(e.path().string());
  return out;
}

json SuiteNamed(const DaemonFixture& f, const std::string& name) {
  CtlResult r = f.Ctl({"suites", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json all = r.Json();  // (not r.Json()["suites"] in the loop: that temporary would dangle)
  for (const auto& s : all["suites"])
    if (s["name"] == name) return s;
  BOOST_TEST_MESSAGE("no suite " + name + " in " + r.out);
  return json();
}

std::pair<long, json> Put(const DaemonFixture& f, const std::string& suite, const std::string& name, const json& body) {
  auto [status, text] = f.Http("PUT", "/v1/suites/" + suite + "/problems/" + name, body.dump());
  json j = json::parse(text, nullptr, false);
  return {status, j};
}

std::string ErrorMessage(const json& reply) {
  return reply.contains("error") ? reply["error"].value("message", "") : reply.dump();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(suite_import)

// By default the daemon takes no uploads (an uploaded reference.py runs as
// its user): 403 naming the setting, acceloptctl exits 1, nothing written.
BOOST_AUTO_TEST_CASE(uploads_are_refused_unless_the_config_allows_them) {
  DaemonFixture f(StandardScript(5));
  f.StartDaemon();
  CtlResult imp = f.Ctl({"import", "nkibench", NkiBenchFixture()});
  BOOST_TEST(imp.exit_code == 1, imp.err);
  BOOST_TEST(imp.err.find("uploads_disabled") != std::string::npos, imp.err);
  BOOST_TEST(imp.err.find("\"suite_uploads\": true") != std::string::npos, imp.err);
  BOOST_TEST(imp.err.find("HTTP 403") != std::string::npos, imp.err);
  BOOST_TEST(!fs::exists(f.dir + "/state/suites/nki"));
  BOOST_TEST(SuiteNamed(f, "nki").is_null());
}

BOOST_AUTO_TEST_CASE(imports_lists_and_refuses_a_second_import_without_force) {
  DaemonFixture f(StandardScript(5), UploadsAllowed());
  f.StartDaemon();
  const std::string root = f.dir + "/state/suites";

  // A dry run checks everything and writes nothing (here or on the daemon).
  CtlResult dry = f.Ctl({"import", "nkibench", NkiBenchFixture(), "--dry-run"});
  BOOST_TEST(dry.exit_code == 0, dry.err);
  BOOST_TEST(dry.out.find("suites/nki/silu") != std::string::npos, dry.out);
  BOOST_TEST(dry.out.find("would import") != std::string::npos, dry.out);
  BOOST_TEST(dry.err.find("nothing sent to acceloptd") != std::string::npos, dry.err);
  BOOST_TEST(!fs::exists(root));
  BOOST_TEST(SuiteNamed(f, "nki").is_null());

  // The import: progress per problem on stderr, the files under the state dir.
  CtlResult imp = f.Ctl({"import", "nkibench", NkiBenchFixture()});
  BOOST_REQUIRE_MESSAGE(imp.exit_code == 0, imp.err);
  BOOST_TEST(imp.err.find("[1/4] ") != std::string::npos, imp.err);
  BOOST_TEST(imp.err.find("[4/4] ") != std::string::npos, imp.err);
  BOOST_TEST(imp.out.find("imported") != std::string::npos, imp.out);
  BOOST_TEST(ReadAll(root + "/nki/silu/reference.py") == ReadAll(NkiBenchFixture() + "/reference/silu_small_numpy.py"));
  BOOST_TEST(ReadAll(root + "/nki/silu/baseline.py") == ReadAll(NkiBenchFixture() + "/kernels/silu_small.py"));
  BOOST_TEST(!fs::exists(root + "/nki/.staging"));

  // Listed as an imported suite with its four nki problems.
  json suite = SuiteNamed(f, "nki");
  BOOST_REQUIRE(!suite.is_null());
  BOOST_TEST(suite["imported"] == true);
  BOOST_TEST(suite["dir"] == root + "/nki");
  std::set<std::string> names;
  for (const auto& p : suite["problems"]) {
    names.insert(p["name"].get<std::string>());
    BOOST_TEST(p.value("backend", "") == "nki", p.dump());
    BOOST_TEST(!p.contains("error"), p.dump());
  }
  BOOST_TEST((names == std::set<std::string>{"add_rmsnorm_matmul", "mamba", "rope_single_freq_apply", "silu"}));
  BOOST_TEST(SuiteNamed(f, "cpu")["imported"] == false);

  // A second import without --force fails before sending anything and leaves the files.
  const auto before = TreeOf(root);
  CtlResult again = f.Ctl({"import", "nkibench", NkiBenchFixture()});
  BOOST_TEST(again.exit_code == 1, again.err);
  BOOST_TEST(again.err.find("suite 'nki' already has add_rmsnorm_matmul, mamba, rope_single_freq_apply, silu; "
                            "nothing was imported (pass --force to replace them)") != std::string::npos,
             again.err);
  BOOST_TEST((TreeOf(root) == before));
  // The daemon refuses it too (a client that skipped the check).
  json body = {{"files",
                {{"problem.json", ReadAll(root + "/nki/silu/problem.json")},
                 {"reference.py", "# another reference\n"},
                 {"baseline.py", ReadAll(root + "/nki/silu/baseline.py")}}}};
  auto [status, reply] = Put(f, "nki", "silu", body);
  BOOST_TEST(status == 409);
  BOOST_TEST(reply["error"]["code"] == "already_exists", reply.dump());
  BOOST_TEST(ErrorMessage(reply).find("suites/nki/silu: exists") != std::string::npos, reply.dump());
  BOOST_TEST((TreeOf(root) == before));

  // --force replaces them.
  CtlResult forced = f.Ctl({"import", "nkibench", NkiBenchFixture(), "--force", "-o", "json"});
  BOOST_TEST(forced.exit_code == 0, forced.err);
  const json forced_out = forced.Json();
  BOOST_TEST(forced_out["problems"].size() == 4u);
  for (const auto& p : forced_out["problems"]) BOOST_TEST(p["status"] == "replaced", p.dump());
  BOOST_TEST((TreeOf(root) == before));  // the same files again
  BOOST_TEST(!fs::exists(root + "/.staging/silu"));

  // The daemon resolves suites/nki/<name> where it resolves problems: a
  // campaign on an imported problem is accepted (this daemon has no nki
  // backend to evaluate it; nki_campaign_test runs one on the stand-in).
  json spec = SmallSpec({"silu"}, 1, 1, 1, 1);
  spec["suite"] = "suites/nki";
  auto [cs, created] = f.Http("POST", "/v1/campaigns", json{{"spec", spec}}.dump());
  BOOST_TEST(cs == 201, created);
  BOOST_TEST(created.find("\"created\":true") != std::string::npos, created);
  json missing_spec = spec;
  missing_spec["problems"] = {"no_such_problem"};
  auto [ms, missing] = f.Http("POST", "/v1/campaigns", json{{"spec", missing_spec}}.dump());
  BOOST_TEST(ms == 404, missing);
  BOOST_TEST(missing.find("unknown problem 'suites/nki/no_such_problem'") != std::string::npos, missing);
  // The baseline table reaches every imported problem (this daemon has no nki backend to run them).
  CtlResult base = f.Ctl({"baseline", "nki", "-o", "json"});
  BOOST_TEST(base.exit_code == 0, base.err);
  const json rows = base.Json()["problems"];
  BOOST_TEST(rows.size() == 4u, base.out);
  for (const auto& r : rows) BOOST_TEST(r.value("reason", "") == "no evaluation backend 'nki'", r.dump());
  BOOST_TEST_MESSAGE("submission: " + created + "\nbaseline: " + rows.dump());
}

BOOST_AUTO_TEST_CASE(the_api_refuses_bad_names_files_and_problem_json) {
  // A configured suite whose folder is the imported root's: nothing may be
  // imported into it (the overlap rule), nor under a configured name.
  DaemonFixture f(StandardScript(5), UploadsAllowed());
  fs::create_directories(f.dir + "/state/suites/inner");
  json cfg = json::parse(ReadAll(f.config_path));
  cfg["suites"]["wrap"] = f.dir + "/state/suites/inner";
  std::ofstream(f.config_path) << cfg.dump(1);
  f.StartDaemon();
  const std::string root = f.dir + "/state/suites";
  CtlResult good = f.Ctl({"import", "nkibench", NkiBenchFixture(), "--suite", "good"});
  BOOST_REQUIRE_MESSAGE(good.exit_code == 0, good.err);
  const json files = {{"problem.json", ReadAll(root + "/good/silu/problem.json")},
                      {"reference.py", ReadAll(root + "/good/silu/reference.py")},
                      {"baseline.py", ReadAll(root + "/good/silu/baseline.py")}};
  const auto before = TreeOf(root);

  auto refused = [&](const std::string& suite, const std::string& name, const json& body, long want,
                     const std::string& why) {
    auto [status, reply] = Put(f, suite, name, body);
    BOOST_TEST_CONTEXT(suite + "/" + name + " " + body.dump().substr(0, 200)) {
      BOOST_TEST(status == want);
      BOOST_TEST(ErrorMessage(reply).find(why) != std::string::npos, reply.dump());
    }
  };
  const json ok_body = {{"files", files}};
  // Names: plain folder names only.
  refused("good", ".hidden", ok_body, 400, "problem '.hidden': not a plain folder name");
  refused("good", "%2E%2E", ok_body, 400, "problem '..': not a plain folder name");
  refused("good", "a%2Fb", ok_body, 400, "problem 'a/b': not a plain folder name");
  refused(".staging", "silu", ok_body, 400, "suite '.staging': not a plain folder name");
  refused("-x", "silu", ok_body, 400, "suite '-x': not a plain folder name");
  // Configured suites are read-only: by name, and by folder.
  refused("cpu", "silu2", ok_body, 409, "suite 'cpu' is a configured suite");
  refused("inner", "silu2", ok_body, 409, "overlaps the configured suite 'wrap'");
  // Files: exactly the three, strings, not too large.
  json extra = ok_body;
  extra["files"]["run.sh"] = "#!/bin/sh\n";
  refused("good", "silu2", extra, 400, "files.run.sh: not an allowed file");
  json missing = ok_body;
  missing["files"].erase("baseline.py");
  refused("good", "silu2", missing, 400, "files.baseline.py: missing");
  json not_string = ok_body;
  not_string["files"]["reference.py"] = 42;
  refused("good", "silu2", not_string, 400, "body.files.reference.py: must be a string");
  json big = ok_body;
  big["files"]["reference.py"] = std::string((1 << 20) + 1, '#');
  refused("good", "silu2", big, 400, "files.reference.py: 1048577 bytes, more than the 1048576 allowed");
  refused("good", "silu2", {{"files", files}, {"overwrite", true}}, 400, "body.overwrite: unknown key");
  // problem.json: JSON, accepted by the one parser, backend nki.
  json not_json = ok_body;
  not_json["files"]["problem.json"] = "{not json";
  refused("good", "silu2", not_json, 400, "suites/good/silu2/problem.json: not JSON");
  json pj = json::parse(files["problem.json"].get<std::string>());
  json bad_field = ok_body;
  pj["tolerance"] = "small";
  bad_field["files"]["problem.json"] = pj.dump();
  refused("good", "silu2", bad_field, 400, "suites/good/silu2/problem.json");
  pj = json::parse(files["problem.json"].get<std::string>());
  pj["backend"] = "cpu";
  json cpu_backend = ok_body;
  cpu_backend["files"]["problem.json"] = pj.dump();
  refused("good", "silu2", cpu_backend, 400, "backend is 'cpu'; only nki problems are imported");
  // Nothing of the above was written.
  BOOST_TEST((TreeOf(root) == before));
  BOOST_TEST(!fs::exists(root + "/good/silu2"));
  // The same body under a good name is accepted (201), and then listed.
  auto [status, reply] = Put(f, "good", "silu2", ok_body);
  BOOST_TEST(status == 201, reply.dump());
  BOOST_TEST(reply["id"] == "suites/good/silu2");
  BOOST_TEST(SuiteNamed(f, "good")["problems"].size() == 5u);
  // The configured suite 'wrap' stays as it was (still empty).
  BOOST_TEST(TreeOf(f.dir + "/state/suites/inner").empty());
}

BOOST_AUTO_TEST_CASE(a_bad_checkout_is_refused_here_naming_the_file_and_nothing_is_sent) {
  DaemonFixture f(StandardScript(5), UploadsAllowed());
  f.StartDaemon();
  const std::string copy = f.dir + "/NKIBench";
  fs::copy(NkiBenchFixture(), copy, fs::copy_options::recursive);
  // A kernel file that summary.json names is missing: exit 4, the file named.
  fs::remove(copy + "/kernels/mamba_small.py");
  CtlResult missing = f.Ctl({"import", "nkibench", copy});
  BOOST_TEST(missing.exit_code == 4, missing.err);
  BOOST_TEST(missing.err.find(copy + "/kernels/mamba_small.py: no such file (named by " + copy +
                              "/summary.json: mamba.cases.0)") != std::string::npos,
             missing.err);
  // A malformed entry: exit 2, naming summary.json and the entry.
  fs::copy_file(NkiBenchFixture() + "/kernels/mamba_small.py", copy + "/kernels/mamba_small.py");
  json summary = json::parse(ReadAll(copy + "/summary.json"));
  summary["silu"]["cases"]["0"]["values"]["M"] = -1;
  std::ofstream(copy + "/summary.json") << summary.dump(1);
  CtlResult bad = f.Ctl({"import", "nkibench", copy, "--dry-run"});
  BOOST_TEST(bad.exit_code == 2, bad.err);
  BOOST_TEST(
      bad.err.find(copy + "/summary.json: silu.cases.0.values.M: must be a positive integer") != std::string::npos,
      bad.err);
  // Not an NKIBench folder at all.
  CtlResult none = f.Ctl({"import", "nkibench", f.dir + "/nowhere"});
  BOOST_TEST(none.exit_code == 4, none.err);
  BOOST_TEST(none.err.find(f.dir + "/nowhere: not a directory") != std::string::npos, none.err);
  // A bad suite name and a bad command line are usage errors.
  BOOST_TEST(f.Ctl({"import", "nkibench", NkiBenchFixture(), "--suite", "../x"}).exit_code == 2);
  BOOST_TEST(f.Ctl({"import", "cudabench", NkiBenchFixture()}).exit_code == 2);
  // Nothing reached the daemon.
  BOOST_TEST(!fs::exists(f.dir + "/state/suites"));
  BOOST_TEST(SuiteNamed(f, "nki").is_null());
}

BOOST_AUTO_TEST_SUITE_END()
