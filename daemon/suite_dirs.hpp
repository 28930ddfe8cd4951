// Where the daemon's suites live (docs/api.md, "Suites"):
//   configured  DaemonConfig::suites (name -> folder): read-only to the
//               daemon, which never writes into them;
//   imported    folders under <state_dir>/suites/ (ImportedSuitesRoot),
//               written only by PUT /v1/suites/{suite}/problems/{name}
//               (daemon/suite_import.hpp), e.g. by `acceloptctl import nkibench`.
// Both are used the same way afterwards: GET /v1/suites lists them and a
// campaign names a problem "suites/<suite>/<name>".
//
// The rule between them: a configured suite wins. A configured name is never
// imported into (refused by the importer), and an imported folder whose name
// the configuration also gives (say, added to the config after the import) is
// not listed and not used: the configured folder is. Names starting with '.'
// under the root (the importer's staging area) are not suites.
//
// Every file access through the Env given. Thread safety: reentrant when the
// Env is (the imported suites are listed afresh on every call).
#pragma once

#include <map>
#include <string>

#include "base/env.hpp"
#include "base/text.hpp"  // IsPlainFolderName: the names of suites and problems
#include "daemon/config.hpp"

namespace accelopt::daemon {

// <state_dir>/suites
std::string ImportedSuitesRoot(const DaemonConfig& config);

struct SuiteLocation {
  std::string dir;
  bool imported = false;  // under ImportedSuitesRoot (else configured)
};

// Every suite by name: the configured ones, then the imported ones whose
// names are plain and not configured.
std::map<std::string, SuiteLocation> AllSuites(const DaemonConfig& config, Env* env);

// The same as name -> folder (for eval::ProblemDirOf).
std::map<std::string, std::string> SuiteFolders(const DaemonConfig& config, Env* env);

}  // namespace accelopt::daemon
