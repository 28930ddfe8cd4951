// Problems uploaded into an imported suite: PUT /v1/suites/{suite}/problems/{name}
// (docs/api.md, "Importing problems"). `acceloptctl import nkibench` runs the
// NKIBench importer on the user's machine (the service cannot read the
// user's checkout: ProtectHome=yes, and it may be remote) and sends each
// problem's files here; the daemon checks them again and writes them to
// <state_dir>/suites/<suite>/<name>/ (daemon/suite_dirs.hpp).
//
// Checked before anything is written (CheckUploadedProblem): suite and name
// are plain folder names (IsPlainFolderName); the files are exactly
// problem.json, reference.py and baseline.py (the nki backend's names: nki is
// the only backend imported this way), each a string of at most
// kMaxUploadedFileBytes; problem.json is JSON that the one parser
// (workflows/problem_json.hpp) accepts and its backend is "nki". Then
// (SuiteImporter::Put): the suite is not a configured one and its folder does
// not overlap a configured suite's folder (kConflict, 409: imports never
// write into a read-only suite); an existing problem is kAlreadyExists (409)
// unless `force`; with `force`, a problem that a campaign which has not ended
// uses is kFailedPrecondition (409): the judge reads the reference from the
// folder while the campaign runs.
//
// Written atomically through the Env: the files into a fresh folder under
// <state_dir>/suites/.staging/, which is then renamed into place; with force
// the old folder is first renamed into .staging and removed after, so a reader
// sees the old problem, the new one, or for an instant none, never a mix.
// Leftovers of a crash in .staging are removed by the first Put after a start.
//
// Trust: the nki judge runs reference.py as trusted code (a plain Python
// process as the daemon's user, not sandboxed; docs/evaluation.md). So
// whoever may call this endpoint (the socket's group, or the TCP token) can
// install code that the daemon's user runs: grant API access only to those
// you would let write a configured suite folder.
//
// Thread safety: Put is thread-safe (one upload at a time); the checks are pure.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "base/mutex.hpp"
#include "base/env.hpp"
#include "base/status.hpp"
#include "daemon/config.hpp"

namespace accelopt::daemon {

inline constexpr size_t kMaxUploadedFileBytes = 1 << 20;

struct UploadedProblem {
  std::string suite;
  std::string name;
  std::map<std::string, std::string> files;  // file name -> contents
  bool force = false;
};

// The checks that need no files: names, the file set and sizes, problem.json
// (kInvalidArgument naming the field or file).
Status CheckUploadedProblem(const UploadedProblem& p);

struct PutProblemResult {
  std::string id;         // "suites/<suite>/<name>"
  std::string dir;        // the folder written
  bool replaced = false;  // an existing problem was overwritten (force)
};

class SuiteImporter {
 public:
  // Returns the id of a campaign that has not ended and uses `problem_id`,
  // or "" (consulted only with force, for an existing problem).
  using InUse = std::function<std::string(const std::string& problem_id)>;

  // `config` and `env` are borrowed and must outlive the importer.
  SuiteImporter(const DaemonConfig* config, Env* env, InUse in_use);

  Result<PutProblemResult> Put(const UploadedProblem& p);

 private:
  Status CheckNotConfigured(const std::string& suite) const;

  const DaemonConfig* config_;
  Env* env_;
  InUse in_use_;
  Mutex mu_;
  bool staging_cleaned_ ACCELOPT_GUARDED_BY(mu_) = false;
};

}  // namespace accelopt::daemon
