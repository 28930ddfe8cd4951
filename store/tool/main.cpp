// accelopt-store: offline inspection of a state directory.
//
//   accelopt-store dump   <state-dir> [--stream S] [--from N]   JSON lines on stdout
//   accelopt-store verify <state-dir> [-o json]                 checks every event
//   accelopt-store stats  <state-dir> [-o json]                 counts events and bytes
//
// <state-dir> is the daemon's state directory (the event log is its events/
// folder) or the event log folder itself. Opens the store read-only (it may
// be used while the daemon is stopped; a running daemon holds the lock).
// Messages go to stderr; --help prints the usage on stdout.
// Exit codes: 0 ok; 1 problems found / undecodable data; 2 usage; 3 cannot open.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "store/inspect.hpp"
#include "store/store_db.hpp"
#include "base/version.hpp"

using namespace accelopt;
using namespace accelopt::store;

namespace {

const char kUsage[] =
    "usage: accelopt-store dump <state-dir> [--stream S] [--from N]\n"
    "       accelopt-store verify <state-dir> [-o json]\n"
    "       accelopt-store stats <state-dir> [-o json]\n"
    "<state-dir>: the daemon's state directory or its events/ folder\n";

int Usage() {
  std::cerr << kUsage;
  return 2;
}

// The event log folder: `dir` itself when it holds a RocksDB database,
// else its events/ folder when that does.
std::string EventsDir(const std::string& dir) {
  Env* env = Env::Default();
  if (env->Exists(dir + "/CURRENT")) return dir;
  if (env->Exists(dir + "/events/CURRENT")) return dir + "/events";
  return dir;
}

struct Args {
  std::string command, dir, stream;
  uint64_t from = 1;
  bool json = false;
};

bool Parse(int argc, char** argv, Args* a) {
  if (argc < 3) return false;
  a->command = argv[1];
  a->dir = argv[2];
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--stream") {
      const char* v = next();
      if (!v) return false;
      a->stream = v;
    } else if (arg == "--from") {
      const char* v = next();
      if (!v) return false;
      try {
        a->from = std::stoull(v);
      } catch (const std::exception&) {
        return false;
      }
    } else if (arg == "-o") {
      const char* v = next();
      if (!v || std::strcmp(v, "json") != 0) return false;
      a->json = true;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::cout << kUsage;
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::cout << "accelopt-store " << accelopt::kVersion << "\n";
    return 0;
  }
  Args a;
  if (!Parse(argc, argv, &a)) return Usage();
  a.dir = EventsDir(a.dir);
  if (a.command != "dump" && a.command != "verify" && a.command != "stats") return Usage();

  StoreDbOptions options;
  options.read_only = true;
  auto db = StoreDb::Open(a.dir, options);
  if (!db.ok()) {
    std::cerr << "accelopt-store: " << db.status() << "\n";
    return 3;
  }
  if (a.command == "dump") {
    DumpOptions d;
    d.stream = a.stream;
    d.from_global = a.from;
    Status s = DumpEvents(**db, d, std::cout);
    if (!s.ok()) {
      std::cerr << "accelopt-store: " << s << "\n";
      return 1;
    }
    return 0;
  }
  if (a.command == "verify") {
    VerifyReport r = Verify(**db);
    if (a.json) {
      std::cout << Dump(ToJson(r)) << "\n";
    } else {
      for (const auto& p : r.problems) std::cout << "problem: " << p << "\n";
      if (r.more_problems) std::cout << "... and " << r.more_problems << " more problems\n";
      std::cout << (r.ok() ? "ok: " : "FAILED: ") << r.events << " events, " << r.streams << " streams, " << r.blobs
                << " blobs\n";
    }
    return r.ok() ? 0 : 1;
  }
  auto stats = ComputeStats(**db);
  if (!stats.ok()) {
    std::cerr << "accelopt-store: " << stats.status() << "\n";
    return 1;
  }
  const StoreStats& s = *stats;
  if (a.json) {
    std::cout << Dump(ToJson(s)) << "\n";
  } else {
    std::cout << "schema version " << s.schema_version << "\n"
              << "events         " << s.events << " (last global position " << s.last_global << ")\n"
              << "streams        " << s.streams << "\n"
              << "blobs          " << s.blobs << " (" << s.blob_bytes << " bytes)\n"
              << "event bytes    " << s.event_bytes << " (+ " << s.index_bytes << " index)\n"
              << "on disk        " << s.disk_bytes << " bytes\n";
    for (const auto& [type, n] : s.events_by_type) std::cout << "  type " << type << ": " << n << "\n";
    for (const auto& [name, cp] : s.projection_checkpoints) {
      std::cout << "  projection " << name << ": checkpoint " << cp << "\n";
    }
    if (s.undecodable) std::cout << "undecodable records: " << s.undecodable << "\n";
  }
  return s.undecodable ? 1 : 0;
}
