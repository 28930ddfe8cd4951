// Helper of the crash test (crash_test.cpp); not a test by itself.
//
//   store_crash_child <state-dir> <seed> [threads]
//
// Opens the log and appends until killed, from several threads, with a mix
// of single- and two-stream appends and of expected versions. After each
// acknowledged append it writes one line per event to stdout with a single
// write(2) (atomic on a pipe below PIPE_BUF):
//   <stream> <version> <global position> <tag>
// where <tag> is also stored in the event's data. Also used by the read-only
// directory test: `store_crash_child --open <state-dir>` opens read-write and
// prints the status code name.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "store/event_log.hpp"
#include "tests/store/test_util.hpp"

using namespace accelopt;
using namespace accelopt::store;

namespace {

void WriteAll(const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(1, s.data() + off, s.size() - off);
    if (n <= 0) _exit(3);  // the parent is gone
    off += static_cast<size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--open") {
    auto log = EventLog::Open(argv[2], testing::DefaultOptions());
    std::printf("%s\n", log.ok() ? "ok" : CodeName(log.status().code()));
    if (!log.ok()) std::fprintf(stderr, "%s\n", log.status().ToString().c_str());
    return 0;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: store_crash_child <state-dir> <seed> [threads]\n");
    return 2;
  }
  std::string dir = argv[1];
  uint64_t seed = std::stoull(argv[2]);
  int threads = argc > 3 ? std::stoi(argv[3]) : 4;
  auto opened = EventLog::Open(dir, testing::DefaultOptions());
  if (!opened.ok()) {
    std::fprintf(stderr, "crash child: %s\n", opened.status().ToString().c_str());
    return 1;
  }
  EventLog* log = opened->get();
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([log, seed, t] {
      std::mt19937_64 rng(seed * 1000 + t);
      for (uint64_t i = 0;; ++i) {
        int nstreams = rng() % 4 == 0 ? 2 : 1;
        std::vector<StreamAppend> appends;
        int first = static_cast<int>(rng() % 8);
        for (int k = 0; k < nstreams; ++k) {
          StreamAppend a;
          a.stream = "crash-" + std::to_string((first + k) % 8);
          // Mostly "any"; sometimes the head we last saw (may conflict).
          a.expected_version = rng() % 3 == 0 ? static_cast<int64_t>(log->Head(a.stream)) : kAnyVersion;
          int nevents = 1 + static_cast<int>(rng() % 3);
          for (int e = 0; e < nevents; ++e) {
            std::string tag = std::to_string(seed) + "." + std::to_string(t) + "." + std::to_string(i) + "." +
                              std::to_string(k) + "." + std::to_string(e);
            a.events.push_back(testing::Ev("Tick", {{"tag", tag}, {"pad", std::string(rng() % 200, 'p')}}));
          }
          appends.push_back(std::move(a));
        }
        std::vector<std::vector<std::string>> tags;
        for (const auto& a : appends) {
          tags.emplace_back();
          for (const auto& e : a.events) tags.back().push_back(e.data["tag"]);
        }
        auto r = log->Append(std::move(appends));
        if (!r.ok()) {
          if (r.status().code() == Code::kConflict) continue;
          std::fprintf(stderr, "crash child: %s\n", r.status().ToString().c_str());
          _exit(1);
        }
        std::string lines;
        uint64_t global = r->first_global;
        for (size_t k = 0; k < r->streams.size(); ++k) {
          const auto& sr = r->streams[k];
          for (uint64_t v = sr.first_version; v <= sr.last_version; ++v) {
            lines += sr.stream + " " + std::to_string(v) + " " + std::to_string(global++) + " " +
                     tags[k][v - sr.first_version] + "\n";
          }
        }
        WriteAll(lines);
      }
    });
  }
  for (auto& t : ts) t.join();
  return 0;
}
