// Store benchmark: prints ratios measured side by side in one run, on the
// same disk. Not a test.
//
//   store_bench [work-dir]     (default: a fresh directory under $TMPDIR or /tmp)
//
// 1. Durable append throughput with 1, 8 and 64 concurrent appenders (one
//    event per Append, each acknowledged only when durable) divided by a plain
//    loop of single sync=true RocksDB puts of the same size. Group commit
//    should make 64 appenders >= 5x the plain loop.
// 2. Replay: rebuilding a projection (decode + upcast + fold) over N events
//    divided by a raw RocksDB iteration over the same keys. Target >= 0.25.
//
// Environment: ACCELOPT_BENCH_EVENTS (replay events, default 1000000),
// ACCELOPT_BENCH_SECONDS (per append measurement, default 2).
#include <rocksdb/db.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "store/event_log.hpp"
#include "store/store_db.hpp"
#include "bench/bench_help.hpp"

using namespace accelopt;
using namespace accelopt::store;
using Clock = std::chrono::steady_clock;

namespace {

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

uint64_t EnvU64(const char* name, uint64_t def) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : def;
}

json SampleData(uint64_t i) {
  return {{"iteration", i % 97},
          {"candidate", "c-" + std::to_string(i)},
          {"score", 0.5 * static_cast<double>(i % 1000)},
          {"ok", i % 3 != 0},
          {"note", "proposal evaluated on cpu backend"}};
}

EventTypeRegistry MakeRegistry() {
  EventTypeRegistry r;
  (void)r.Register("CandidateEvaluated", 2, {{1, [](json d) {
                                                d["ok"] = true;
                                                return d;
                                              }}});
  return r;
}

double PlainSyncPuts(const std::string& dir, double seconds, size_t value_size) {
  rocksdb::Options o;
  o.create_if_missing = true;
  rocksdb::DB* db = nullptr;
  auto s = rocksdb::DB::Open(o, dir, &db);
  if (!s.ok()) {
    std::fprintf(stderr, "open %s: %s\n", dir.c_str(), s.ToString().c_str());
    std::exit(1);
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  std::string value(value_size, 'x');
  uint64_t n = 0;
  auto t0 = Clock::now();
  while (Seconds(Clock::now() - t0) < seconds) {
    std::string key = "k" + std::to_string(n++);
    if (!db->Put(wo, key, value).ok()) std::exit(1);
  }
  double rate = static_cast<double>(n) / Seconds(Clock::now() - t0);
  delete db;
  return rate;
}

double Appenders(const std::string& dir, int threads, double seconds, const EventTypeRegistry* reg) {
  EventLog::Options o;
  o.create_if_missing = true;
  o.registry = reg;
  auto log = EventLog::Open(dir, o);
  if (!log.ok()) {
    std::fprintf(stderr, "open: %s\n", log.status().ToString().c_str());
    std::exit(1);
  }
  std::atomic<uint64_t> done{0};
  std::atomic<bool> failed{false};
  auto t0 = Clock::now();
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      uint64_t i = 0;
      while (Clock::now() < deadline) {
        StreamAppend a{"bench-" + std::to_string(t),
                       kAnyVersion,
                       {NewEvent{"CandidateEvaluated", 0, SampleData(i++), {}, {}}},
                       {}};
        auto r = (*log)->Append({std::move(a)});
        if (!r.ok()) {
          failed = true;
          return;
        }
        done.fetch_add(1);
      }
    });
  }
  for (auto& t : ts) t.join();
  double rate = static_cast<double>(done.load()) / Seconds(Clock::now() - t0);
  if (failed) {
    std::fprintf(stderr, "an append failed\n");
    std::exit(1);
  }
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  if (accelopt::bench::PrintedHelp(
          argc, argv, "usage: store_bench [work-dir]   (default: a fresh directory under $TMPDIR or /tmp)\n"))
    return 0;
  namespace fs = std::filesystem;
  std::string base;
  if (argc > 1) {
    base = argv[1];
  } else {
    const char* tmp = std::getenv("TMPDIR");
    base = std::string(tmp && *tmp ? tmp : "/tmp") + "/accelopt-store-bench-" + std::to_string(getpid());
  }
  fs::remove_all(base);
  fs::create_directories(base);
  const double seconds = static_cast<double>(EnvU64("ACCELOPT_BENCH_SECONDS", 2));
  const uint64_t events = EnvU64("ACCELOPT_BENCH_EVENTS", 1'000'000);
  EventTypeRegistry reg = MakeRegistry();

  // Size of one encoded event, so the plain puts write as much per op.
  size_t value_size = Dump(SampleData(12345)).size() + 60;
  std::printf("store_bench: dir %s, %.0f s per append measurement, %zu-byte values\n", base.c_str(), seconds,
              value_size);

  double plain = PlainSyncPuts(base + "/plain", seconds, value_size);
  std::printf("plain loop of sync=true puts:       %10.0f ops/s\n", plain);
  double min64 = 0;
  for (int threads : {1, 8, 64}) {
    double rate = Appenders(base + "/append-" + std::to_string(threads), threads, seconds, &reg);
    std::printf("durable appends, %2d appenders:      %10.0f events/s   ratio %.2fx\n", threads, rate, rate / plain);
    if (threads == 64) min64 = rate / plain;
  }
  double plain_after = PlainSyncPuts(base + "/plain2", seconds, value_size);
  std::printf("plain loop again (disk drift check): %10.0f ops/s\n", plain_after);

  // Replay.
  auto fold = [](json& state, const EventRecord& e) -> Status {
    state["count"] = state.value("count", 0) + 1;
    state["score"] = state.value("score", 0.0) + e.data.value("score", 0.0);
    if (e.data.value("ok", false)) state["ok"] = state.value("ok", 0) + 1;
    return Status::Ok();
  };
  EventLog::Options o;
  o.create_if_missing = true;
  o.registry = &reg;
  o.projections = {MakeProjection("bench", 1, json::object(), fold)};
  std::string rdir = base + "/replay";
  {
    auto log = EventLog::Open(rdir, o);
    if (!log.ok()) return 1;
    auto t0 = Clock::now();
    const uint64_t per_append = 1000;
    for (uint64_t i = 0; i < events; i += per_append) {
      StreamAppend a{"replay-" + std::to_string((i / per_append) % 100), kAnyVersion, {}, {}};
      for (uint64_t k = i; k < std::min(events, i + per_append); ++k) {
        a.events.push_back(NewEvent{"CandidateEvaluated", 0, SampleData(k), {}, {}});
      }
      if (!(*log)->Append({std::move(a)}).ok()) return 1;
    }
    std::printf("wrote %llu events for replay in %.1f s\n", static_cast<unsigned long long>(events),
                Seconds(Clock::now() - t0));
  }
  auto log = EventLog::Open(rdir, o);
  if (!log.ok()) return 1;
  double best_raw = 1e9, best_fold = 1e9;
  uint64_t raw_bytes = 0;
  for (int round = 0; round < 2; ++round) {
    auto t0 = Clock::now();
    StoreDb* db = (*log)->store_db();
    std::unique_ptr<rocksdb::Iterator> it(db->db()->NewIterator(rocksdb::ReadOptions(), db->global()));
    uint64_t n = 0;
    raw_bytes = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      raw_bytes += it->key().size() + it->value().size();
      ++n;
    }
    best_raw = std::min(best_raw, Seconds(Clock::now() - t0));
    if (n != events) {
      std::fprintf(stderr, "raw iteration saw %llu events\n", static_cast<unsigned long long>(n));
      return 1;
    }
    t0 = Clock::now();
    Status s = (*log)->RebuildProjection("bench");
    best_fold = std::min(best_fold, Seconds(Clock::now() - t0));
    if (!s.ok()) {
      std::fprintf(stderr, "rebuild: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  auto snap = (*log)->ReadProjection("bench");
  if (!snap.ok() || snap->state.value("count", 0ull) != events) {
    std::fprintf(stderr, "projection count is wrong\n");
    return 1;
  }
  double ratio = best_raw / best_fold;
  std::printf("raw iteration over %llu keys:       %8.3f s (%.0f MB)\n", static_cast<unsigned long long>(events),
              best_raw, raw_bytes / 1e6);
  std::printf("projection rebuild (decode+fold):    %8.3f s   ratio %.2f\n", best_fold, ratio);
  std::printf("summary: 64-appender/plain %.2fx (target >= 5), replay/raw %.2f (target >= 0.25)\n", min64, ratio);
  log->reset();
  fs::remove_all(base);
  return 0;
}
