// acceloptctl import nkibench PATH [--suite NAME] [--force] [--dry-run]
//
// NKIBench from the user's AccelOpt checkout into an imported suite of the
// daemon (docs/api.md, "Importing problems"). The daemon cannot read the
// checkout (ProtectHome=yes; it may be remote), so this runs the importer
// here (evaluators/nki/nkibench_import.hpp, the same one as `accelopt-eval
// import nkibench`) into a private temporary folder, which checks everything
// before anything is sent; --dry-run stops there and prints what would be
// imported, without contacting the daemon. Then, unless --force, it asks the
// daemon's suite list whether any of these problems exist (refusing before
// anything is sent), and uploads each problem's files with
// PUT /v1/suites/<suite>/problems/<name>, which checks them again.
//
// Progress on stderr, one line per problem. Exit codes (cli/output.hpp): 0;
// 2 a bad command line or a bad checkout (the message names the file); 4 a
// file or folder of the checkout that does not exist; 1 the daemon refused
// (a problem exists without --force, a configured suite's name, a bad file),
// 3 unreachable. A failure in the middle says which problems were imported.
//
// For the importer accelopt_cli links accelopt_nki (docs/architecture.md).
#include <iostream>
#include <set>

#include "base/text.hpp"
#include "cli/commands.hpp"
#include "evaluators/nki/nkibench_import.hpp"

namespace accelopt::cli {
namespace {

// A private folder for the importer's output, removed on destruction.
class ImportScratchDir {
 public:
  explicit ImportScratchDir(Env* env) : env_(env) {}
  ~ImportScratchDir() {
    if (!path_.empty()) (void)env_->RemoveAll(path_);
  }
  Status Create() {
    const std::string tmp = env_->GetEnvVar("TMPDIR").value_or("/tmp");
    char rnd[17];
    snprintf(rnd, sizeof rnd, "%016llx", static_cast<unsigned long long>(env_->RandomU64()));
    path_ = (tmp.empty() ? std::string("/tmp") : tmp) + "/acceloptctl-import-" + std::to_string(env_->ProcessId()) +
            "-" + rnd;
    ACCELOPT_RETURN_IF_ERROR(env_->CreateDirs(path_));
    return env_->SetPermissions(path_, 0700);
  }
  const std::string& path() const { return path_; }

 private:
  Env* env_;
  std::string path_;
};

int ImportLocalError(const Status& st) {
  std::cerr << "acceloptctl import: " << st.message() << "\n";
  return st.code() == Code::kNotFound ? kExitNotFound : kExitUsage;
}

// The names the daemon already has in `suite`; whether the suite is one of
// its configured (read-only) suites.
struct DaemonSuiteView {
  bool exists = false, configured = false;
  std::set<std::string> problems;
};

DaemonSuiteView ViewOfSuite(const json& reply, const std::string& suite) {
  DaemonSuiteView v;
  for (const auto& s : reply.value("suites", json::array())) {
    if (s.value("name", "") != suite) continue;
    v.exists = true;
    v.configured = !s.value("imported", false);
    for (const auto& p : s.value("problems", json::array())) v.problems.insert(p.value("name", ""));
  }
  return v;
}

}  // namespace

int CmdImport(ApiClient& api, const Options& o) {
  Env* env = o.env;
  if (o.args.size() != 2 || o.args[0] != "nkibench") {
    std::cerr << "acceloptctl import: usage: acceloptctl import nkibench PATH/TO/AccelOpt/NKIBench [--suite NAME] "
                 "[--force] [--dry-run]\n";
    return kExitUsage;
  }
  const std::string suite = o.suite.empty() ? "nki" : o.suite;
  if (!IsPlainFolderName(suite)) {
    std::cerr << "acceloptctl import: --suite '" << suite
              << "': not a plain folder name (1-64 of A-Z a-z 0-9 . _ -, not starting with '.' or '-')\n";
    return kExitUsage;
  }
  // A dry run writes nothing, not even the scratch folder.
  ImportScratchDir scratch(env);
  if (!o.dry_run)
    if (Status st = scratch.Create(); !st.ok()) return ImportLocalError(st);
  eval::nki::ImportOptions io;
  io.nkibench_dir = o.args[1];
  io.out_dir = o.dry_run ? "dry-run" : scratch.path();
  io.dry_run = o.dry_run;
  auto imported = eval::nki::ImportNkiBench(io, env);
  if (!imported.ok()) return ImportLocalError(imported.status());

  json rows = json::array();
  auto row = [&](const eval::nki::ImportedProblem& p, const std::string& status) {
    rows.push_back({{"name", p.name},
                    {"id", "suites/" + suite + "/" + p.name},
                    {"status", status},
                    {"shape", p.problem.value("paper_shape", "")},
                    {"bound", p.problem.value("bound", "")}});
  };
  auto finish = [&](int code) {
    if (o.json_output) {
      std::cout << Dump(json{{"suite", suite}, {"dry_run", o.dry_run}, {"problems", rows}}, 2) << "\n";
    } else {
      std::vector<std::vector<std::string>> table;
      for (const auto& r : rows)
        table.push_back({r["id"].get<std::string>(), r["status"].get<std::string>(), r["shape"].get<std::string>(),
                         r["bound"].get<std::string>()});
      if (!table.empty()) PrintTable({"PROBLEM", "STATUS", "SHAPE", "BOUND"}, table);
    }
    return code;
  };
  const size_t n = imported->size();
  if (o.dry_run) {
    for (size_t i = 0; i < n; ++i) {
      std::cerr << "[" << i + 1 << "/" << n << "] " << (*imported)[i].name << ": checked\n";
      row((*imported)[i], "would import");
    }
    std::cerr << "dry run: " << n << " problems checked, nothing sent to acceloptd\n";
    return finish(kExitOk);
  }

  // Refuse before sending anything what the daemon would refuse anyway.
  const Answer listed = Ask(api, "GET", "/v1/suites");
  if (!listed.ok()) return listed.exit_code;
  const DaemonSuiteView view = ViewOfSuite(listed.body, suite);
  if (view.configured) {
    std::cerr << "acceloptctl import: suite '" << suite
              << "' is one of the daemon's configured suites (read-only); choose another --suite\n";
    return kExitError;
  }
  if (!o.force) {
    std::string existing;
    for (const auto& p : *imported)
      if (view.problems.count(p.name)) existing += (existing.empty() ? "" : ", ") + p.name;
    if (!existing.empty()) {
      std::cerr << "acceloptctl import: suite '" << suite << "' already has " << existing
                << "; nothing was imported (pass --force to replace them)\n";
      return kExitError;
    }
  }

  for (size_t i = 0; i < n; ++i) {
    const auto& p = (*imported)[i];
    json files = json::object();
    for (const char* f : {"problem.json", "reference.py", "baseline.py"}) {
      auto text = env->ReadFile(p.dir + "/" + f);
      if (!text.ok()) return ImportLocalError(text.status());
      files[f] = *text;
    }
    json body = {{"files", files}, {"force", o.force}};
    std::cerr << "[" << i + 1 << "/" << n << "] " << p.name << ": uploading to suites/" << suite << "/" << p.name
              << "...\n";
    const Answer r = Ask(api, "PUT", "/v1/suites/" + suite + "/problems/" + p.name, &body, std::chrono::minutes(2));
    if (!r.ok()) {
      std::cerr << "acceloptctl import: stopped at " << p.name << "; " << i << " of " << n
                << " problems were imported before it\n";
      return finish(r.exit_code);
    }
    row(p, r.body.value("replaced", false) ? "replaced" : "imported");
  }
  std::cerr << "imported " << n << " problems into suite '" << suite << "' (use them as suites/" << suite
            << "/<name>)\n";
  return finish(kExitOk);
}

}  // namespace accelopt::cli
