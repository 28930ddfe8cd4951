// Landlock file-access rules for a child process (Linux >= 5.13 with
// "landlock" in the LSM list): the child may open only what the rules name,
// whatever its uid can otherwise read. Used to run untrusted work that needs
// the file system, such as compiling LLM-written source, so that it cannot
// read the daemon's files (state directory, judge secret, key files, home).
//
// The ruleset is made in the parent (MakeLandlockRuleset: allocates, may
// fail with a message) and applied in the child after fork
// (ApplyLandlockRuleset: async-signal-safe, no allocation).
//
// What Landlock does not cover (it never did): stat, readlink and path
// traversal of any path (names and sizes are visible, contents are not);
// already-open descriptors. Thread safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"

namespace accelopt {

struct FileAccessRules {
  // Beneath each: read files, list folders, execute. A path that does not
  // exist is skipped (a toolchain prefix that this host lacks).
  std::vector<std::string> read_exec;
  // Beneath each: everything read_exec allows, plus create, write, truncate,
  // remove and rename. Must exist.
  std::vector<std::string> read_write;
  // Single files to read and write (e.g. /dev/null).
  std::vector<std::string> read_write_files;
};

// The Landlock ABI version of the running kernel; 0 when it has none (or it
// is not enabled).
int LandlockAbi();

// A ruleset descriptor (close-on-exec) that handles every file right of the
// running ABI and grants only `rules`. kUnavailable when the kernel has no
// Landlock; kIOError naming the path a rule could not be made for.
Result<int> MakeLandlockRuleset(const FileAccessRules& rules);

// Child side, after fork: no_new_privs, then restricts the calling process
// to `ruleset_fd`. Returns false (errno set) on failure.
bool ApplyLandlockRuleset(int ruleset_fd);

// Whether `path` lies beneath (or is) one of `roots` after resolving
// symbolic links: a file the rules would make readable.
bool BeneathAny(const std::string& path, const std::vector<std::string>& roots);

}  // namespace accelopt
