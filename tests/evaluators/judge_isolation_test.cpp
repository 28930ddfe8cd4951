// The judge's isolation from the host and between evaluations (issue 40):
// a candidate cannot read the daemon's files at compile time by any
// spelling, a runner's own output never reaches the agent's text, and the
// reference cache keeps apart problems that share a name (two suites) and
// heals from deleted and damaged entries without blaming a kernel.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "evaluators/judge/case_stock.hpp"
#include "evaluators/judge/harness_builder.hpp"
#include "evaluators/judge/stock_keeper.hpp"

#include "tests/evaluators/cpu_test_util.hpp"

using namespace accelopt;
using namespace accelopt::eval;
using namespace accelopt::eval::cpu;
using namespace accelopt::eval::cpu::testutil;
namespace fs = std::filesystem;

namespace {

std::string Shown(const EvalResult& r) {
  return std::string(EvalStatusName(r.status)) + ": " + r.reason + "\n" + r.error_text.substr(0, 1500);
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// A fresh folder of this test's own under the build tree.
std::string FreshDir(const std::string& name) {
  const std::string dir = std::string(ACCELOPT_BINARY_DIR) + "/judge-isolation-" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

CpuBackend BackendWithCache(const std::string& cache) {
  CpuBackendOptions o;
  o.env = Env::Default();
  o.root = Src();
  o.cache_dir = cache;
  o.calibration = GenerousCalibration();
  return CpuBackend(o);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(judge_isolation)

// Class A: `.incbin` of the judge's secret through `__asm__` made by token
// pasting. With the static checks the preprocessed source is refused; without
// them the compiler's own sandbox cannot open the file. Either way the
// secret's content appears nowhere in the result.
BOOST_AUTO_TEST_CASE(the_compiler_cannot_read_the_judge_secret_by_any_spelling) {
  const std::string cache = FreshDir("secret");
  CpuBackend backend = BackendWithCache(cache);
  // The secret exists once an evaluation has run.
  EvalResult warm =
      backend.Evaluate(Request("tests/evaluators/problems/silu",
                               ReadText(Src() + "/tests/evaluators/problems/silu/baseline.cpp"), QuickSettings()),
                       nullptr);
  BOOST_REQUIRE_MESSAGE(warm.status == EvalStatus::kOk, Shown(warm));
  const std::string secret_path = cache + "/judge-secret";
  const std::string secret = ReadText(secret_path).substr(0, 64);
  BOOST_REQUIRE_EQUAL(secret.size(), 64u);
  const std::string attack = ReplaceAll(ReadText(Src() + "/tests/evaluators/attacks_host/incbin_judge_secret.cpp"),
                                        "@TARGET_PATH@", secret_path);
  for (bool checks : {true, false}) {
    BOOST_TEST_CONTEXT("static checks " << (checks ? "on" : "off")) {
      EvalSettings s = QuickSettings();
      s.static_checks = checks;
      EvalResult r = backend.Evaluate(Request("tests/evaluators/problems/silu", attack, s), nullptr);
      BOOST_TEST(r.reason.find(secret) == std::string::npos, Shown(r));
      BOOST_TEST(r.error_text.find(secret) == std::string::npos, Shown(r));
      BOOST_TEST(r.runner_diagnostics.find(secret) == std::string::npos, r.runner_diagnostics);
      BOOST_TEST(r.ToJson().dump().find(secret) == std::string::npos);
      BOOST_TEST(!r.correct);
      if (checks) {
        BOOST_TEST((r.status == EvalStatus::kStaticCheckFailed), Shown(r));
        BOOST_TEST(r.reason.find("inline assembly") != std::string::npos, Shown(r));
      } else {
        BOOST_TEST((r.status == EvalStatus::kCompileError), Shown(r));
      }
    }
  }
}

// Class G: a problem of the same name in two suites (same reference source
// and output size, another K) shares nothing in one cache, in both orders.
BOOST_AUTO_TEST_CASE(same_named_problems_of_two_suites_share_no_reference) {
  const std::string root = FreshDir("twins");
  for (const char* suite : {"a", "b"}) {
    fs::create_directories(root + "/" + suite);
    fs::copy(Src() + "/tests/evaluators/problems/matmul", root + "/" + suite + "/matmul");
  }
  {
    std::string pj = ReadText(root + "/b/matmul/problem.json");
    pj = ReplaceAll(pj, "\"K\": 256", "\"K\": 128");
    std::ofstream(root + "/b/matmul/problem.json") << pj;
  }
  const std::string baseline = ReadText(Src() + "/tests/evaluators/problems/matmul/baseline.cpp");
  for (const auto& order : std::vector<std::vector<std::string>>{{"a", "b", "a"}, {"b", "a", "b"}}) {
    const std::string cache = FreshDir("twins-cache-" + order[0]);
    CpuBackend backend = BackendWithCache(cache);
    for (const auto& suite : order) {
      BOOST_TEST_CONTEXT("order " << order[0] << order[1] << order[2] << ", suite " << suite) {
        EvalResult r = backend.Evaluate(Request(root + "/" + suite + "/matmul", baseline, QuickSettings()), nullptr);
        BOOST_TEST((r.status == EvalStatus::kOk), Shown(r));
      }
    }
  }
}

// Class G: a warm cache whose entries are deleted, truncated or damaged in
// place (same size) heals: every honest baseline stays ok.
BOOST_AUTO_TEST_CASE(a_damaged_reference_cache_heals_and_never_blames_the_kernel) {
  const std::string cache = FreshDir("damage");
  CpuBackend backend = BackendWithCache(cache);
  const std::string baseline = ReadText(Src() + "/tests/evaluators/problems/matmul/baseline.cpp");
  auto run = [&] {
    return backend.Evaluate(Request("tests/evaluators/problems/matmul", baseline, QuickSettings()), nullptr);
  };
  EvalResult first = run();
  BOOST_REQUIRE_MESSAGE(first.status == EvalStatus::kOk, Shown(first));
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(cache + "/harness"))
    if (e.is_regular_file() && e.path().parent_path().filename() == "refs") files.push_back(e.path());
  BOOST_REQUIRE_GE(files.size(), 3u);
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i < files.size(); ++i) {
    const fs::path& f = files[i];
    switch (i % 3) {
      case 0:
        fs::remove(f);
        break;
      case 1:
        fs::resize_file(f, fs::file_size(f) / 2);
        break;
      case 2: {  // same size, other bytes
        std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
        io.seekp(static_cast<std::streamoff>(fs::file_size(f) / 2));
        const char junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        io.write(junk, sizeof junk);
        break;
      }
    }
  }
  for (int k = 0; k < 2; ++k) {
    EvalResult r = run();
    BOOST_TEST((r.status == EvalStatus::kOk), Shown(r));
  }
}

// Class B/F: every timing case is used in one evaluation at most, ever.
// Each evaluation's timing cases (its work folder's pool/, kept here) are
// its own: no file name and no input shared with another evaluation's; with
// the stock kept filled between evaluations, they come from the stock and
// leave it.
BOOST_AUTO_TEST_CASE(every_timing_case_is_used_in_one_evaluation_at_most) {
  const std::string cache = FreshDir("once");
  CpuBackendOptions o;
  o.env = Env::Default();
  o.root = Src();
  o.cache_dir = cache;
  o.calibration = GenerousCalibration();
  o.keep_work_dirs = true;
  o.refill_stock = true;
  CpuBackend backend(o);
  const std::string baseline = ReadText(Src() + "/tests/evaluators/problems/silu/baseline.cpp");
  // name -> the first 64 bytes of the case file (inputs come first)
  std::vector<std::map<std::string, std::string>> seen;
  std::set<std::string> work_before;
  std::vector<double> from_stock;
  for (int k = 0; k < 3; ++k) {
    EvalResult r = backend.Evaluate(Request("tests/evaluators/problems/silu", baseline, QuickSettings()), nullptr);
    BOOST_REQUIRE_MESSAGE(r.status == EvalStatus::kOk, Shown(r));
    from_stock.push_back(r.profile.at("timing_cases_from_stock"));
    std::map<std::string, std::string> mine;
    for (const auto& w : fs::directory_iterator(cache + "/work")) {
      if (work_before.count(w.path().string()) || !fs::exists(w.path() / "pool")) continue;
      work_before.insert(w.path().string());
      for (const auto& f : fs::directory_iterator(w.path() / "pool"))
        mine[f.path().filename().string()] = ReadText(f.path().string()).substr(0, 64);
    }
    BOOST_REQUIRE(!mine.empty());
    for (const auto& earlier : seen) {
      for (const auto& [name, head] : mine) {
        BOOST_TEST(!earlier.count(name), "case file " << name << " in two evaluations");
        for (const auto& [other, other_head] : earlier) BOOST_TEST(head != other_head, name << " == " << other);
      }
    }
    seen.push_back(mine);
    // Wait (bounded) for the keeper to fill the stock while nothing runs.
    std::string stock;
    for (const auto& h : fs::directory_iterator(cache + "/harness"))
      if (fs::exists(h.path() / "stock")) stock = (h.path() / "stock").string();
    for (int wait = 0; wait < 600 && (stock.empty() || judge::StockCount(Env::Default(), stock) < 8); ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (stock.empty())
        for (const auto& h : fs::directory_iterator(cache + "/harness"))
          if (fs::exists(h.path() / "stock")) stock = (h.path() / "stock").string();
    }
    BOOST_REQUIRE_MESSAGE(!stock.empty(), "no stock folder after 60 s");
    for (const auto& f : fs::directory_iterator(stock))
      for (const auto& earlier : seen) BOOST_TEST(!earlier.count(f.path().filename().string()));
  }
  BOOST_TEST(from_stock[0] == 0);
  BOOST_TEST(from_stock[1] > 0);
  BOOST_TEST(from_stock[2] > 0);
}

// Each case is timed once per evaluation, so a cheap call's rounds ran out
// of cases (test silu: 0.38 ms calls, 128 cases for 3 rounds, 5 samples a
// round). Once a call's time is known the pool holds max_rounds rounds of
// min_time_s, within 3 GiB and 512 cases; it never shrinks below the size by
// bytes, and an evaluation then claims that many cases (and the stock is
// filled to it).
BOOST_AUTO_TEST_CASE(a_cheap_problem_s_pool_holds_its_rounds_and_no_pool_shrinks) {
  auto silu = LoadProblem(Src() + "/tests/evaluators/problems/silu", Env::Default());
  BOOST_REQUIRE_MESSAGE(silu.ok(), silu.status().ToString());
  const EvalSettings d;  // 1 warm-up call, min_time_s 0.1, max_rounds 5
  const int by_bytes = judge::TimingPoolSize(*silu, d);
  BOOST_TEST(by_bytes == 128);                                 // 192 MiB / (4 + 8 bytes) x 131072 elements
  BOOST_TEST(judge::TimingPoolSize(*silu, d, 0.4e-3) == 512);  // wants 1.1 x 5 x 251; at most 512
  BOOST_TEST(judge::TimingPoolSize(*silu, d, 2e-3) == 281);    // 1.1 x 5 x (1 + 50) = 280.5, rounded up
  BOOST_TEST(judge::TimingPoolSize(*silu, d, 0.02) == by_bytes);
  BOOST_TEST(judge::TimingPoolSize(*silu, QuickSettings(), 0.4e-3) == by_bytes);  // 1 round of 0.02 s: 59
  // A large problem (suite silu, 84 MiB a case: 16 by bytes): 22 ms calls
  // fill 5 rounds of 1 warm-up and 5 samples, 1.1 x 5 x 6 = 33 cases (3 GiB
  // hold 36); rope (256 MiB a case: 3 GiB hold 12) still gets what the 3
  // rounds that always run take, 1.1 x 3 x 6 = 19.8 cases.
  auto big = LoadProblem(Src() + "/suites/cpu/silu", Env::Default());
  BOOST_REQUIRE_MESSAGE(big.ok(), big.status().ToString());
  BOOST_TEST(judge::TimingPoolSize(*big, d) == 16);
  BOOST_TEST(judge::TimingPoolSize(*big, d, 0.022) == 33);
  auto rope = LoadProblem(Src() + "/suites/cpu/rope_single_freq_apply", Env::Default());
  BOOST_REQUIRE_MESSAGE(rope.ok(), rope.status().ToString());
  BOOST_TEST(judge::TimingPoolSize(*rope, d) == 16);
  BOOST_TEST(judge::TimingPoolSize(*rope, d, 0.05) == 20);
  const auto cases = judge::MakeCases(
      *silu, d, "a secret", [] { return uint64_t{7}; }, 0.4e-3);
  BOOST_TEST(std::count_if(cases.begin(), cases.end(), [](const judge::CaseSpec& c) { return c.role == 'p'; }) == 512);
}

// The test silu problem with its judge built in a fresh cache folder.
struct SiluHarness {
  explicit SiluHarness(const std::string& name)
      : silu(LoadProblem(Src() + "/tests/evaluators/problems/silu", env)), harnesses(FreshDir(name), "g++", env) {
    BOOST_REQUIRE_MESSAGE(silu.ok(), silu.status().ToString());
    built = harnesses.Get(*silu, nullptr);
    BOOST_REQUIRE_MESSAGE(built.ok(), built.status().ToString());
  }
  Env* env = Env::Default();
  Result<Problem> silu;
  judge::HarnessCache harnesses;
  Result<judge::HarnessCache::Built> built = NotFound("not built");
};

// An evaluation draws each correctness case's seed from kSeedPool secret
// seeds; a reference not cached yet was computed on its critical path
// (suite silu: 2.5 s of an evaluation's checks). The stock keeper's idle
// work computes them all (HarnessCache::WarmReferences), a chunk at a time.
BOOST_AUTO_TEST_CASE(idle_time_computes_every_correctness_reference_an_evaluation_may_draw) {
  SiluHarness h("warm-refs");
  auto& silu = h.silu;
  auto& harnesses = h.harnesses;
  auto& built = h.built;
  auto secret = harnesses.Secret();
  BOOST_REQUIRE(secret.ok());
  const EvalSettings d;
  // What evaluations may draw: every correctness case under each seed index.
  std::set<std::string> drawable;
  for (uint64_t k = 0; k < static_cast<uint64_t>(judge::kSeedPool); ++k)
    for (const auto& c : judge::MakeCases(*silu, d, *secret, [k] { return k; }))
      if (c.role == 'c' && !c.fresh) drawable.insert(std::to_string(c.seed) + (c.perturb ? "p" : "") + c.label);
  BOOST_REQUIRE(drawable.size() >= 2u * judge::kSeedPool);
  auto refs = [&] {
    size_t n = 0;
    if (fs::exists(built->dir + "/refs"))
      for (const auto& f : fs::directory_iterator(built->dir + "/refs")) n += f.path().extension() == ".bin" ? 1 : 0;
    return n;
  };
  const size_t before = refs();
  auto left = harnesses.WarmReferences(*silu, *built, d, 4, nullptr);  // one chunk of 4
  BOOST_REQUIRE_MESSAGE(left.ok(), left.status().ToString());
  BOOST_TEST(refs() == before + 4);
  BOOST_TEST(*left == drawable.size() - refs());
  for (int k = 0; k < 100 && *left > 0; ++k) {
    left = harnesses.WarmReferences(*silu, *built, d, 4, nullptr);
    BOOST_REQUIRE_MESSAGE(left.ok(), left.status().ToString());
  }
  BOOST_TEST(*left == 0u);
  BOOST_TEST(refs() == drawable.size());
  // Warm: nothing left to compute.
  auto again = harnesses.WarmReferences(*silu, *built, d, 4, nullptr);
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(*again == 0u);
  BOOST_TEST(refs() == drawable.size());
}

// Evaluations of one problem under two settings (eval_bench's 1-round and
// default timing; 16 and 20 cases for suite silu) wanted stocks of two sizes:
// a stock refilled to the last one wanted left the larger evaluation short,
// and it made the missing cases on its own clock (suite silu: +1.5 s a
// evaluation, rounds with a cold cache between samples). The stock is
// refilled to the largest size wanted.
BOOST_AUTO_TEST_CASE(the_stock_is_refilled_to_the_largest_pool_any_evaluation_wanted) {
  SiluHarness h("most-wanted");
  Env* env = h.env;
  auto& silu = h.silu;
  auto& harnesses = h.harnesses;
  auto& built = h.built;
  const std::string stock = built->dir + "/stock";
  judge::StockKeeper keeper(&harnesses, 8, 0.0);
  auto settle = [&] {
    for (int k = 0; k < 1200 && !keeper.Idle(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    BOOST_REQUIRE_MESSAGE(keeper.Idle(), "the keeper did not finish in 120 s");
  };
  keeper.Want(*silu, *built, 12);
  settle();
  BOOST_TEST(judge::StockCount(env, stock) == 12u);
  auto claimed = judge::ClaimStock(env, stock, 10, built->dir + "/claimed");  // an evaluation of 10 cases
  BOOST_REQUIRE(claimed.ok());
  BOOST_TEST(judge::StockCount(env, stock) == 2u);
  keeper.Want(*silu, *built, 4);  // then one that wanted 4
  settle();
  BOOST_TEST(judge::StockCount(env, stock) == 12u);
}

// A problem's first evaluation sizes its pool by bytes (its calls are not
// measured yet); the stock it leaves behind is the size the next
// evaluation takes once they are (here 128 by bytes, 512 by time), not the
// first one's: the second evaluation made the difference on its own clock
// (suite silu: 17 cases, +9 s).
BOOST_AUTO_TEST_CASE(the_stock_after_a_first_evaluation_is_the_size_the_next_one_takes) {
  const std::string cache = FreshDir("next-size");
  CpuBackendOptions o;
  o.env = Env::Default();
  o.root = Src();
  o.cache_dir = cache;
  o.calibration = GenerousCalibration();
  o.refill_stock = true;
  CpuBackend backend(o);
  auto silu = LoadProblem(Src() + "/tests/evaluators/problems/silu", Env::Default());
  BOOST_REQUIRE_MESSAGE(silu.ok(), silu.status().ToString());
  EvalSettings s = QuickSettings();
  s.min_rounds = 1;
  s.max_rounds = 3;
  // By time: 1.1 x 3 x (1 + max(50, 0.01 / call)) >= 169 > 128 however slow
  // the call (a floor of min_samples, not of min_time_s: a test that needed
  // calls under 3 ms failed beside ctest -j3 with a call of 6.5 ms).
  s.min_samples = 50;
  s.min_time_s = 0.01;
  BOOST_REQUIRE(judge::TimingPoolSize(*silu, s) == 128);
  const std::string baseline = ReadText(Src() + "/tests/evaluators/problems/silu/baseline.cpp");
  EvalResult r = backend.Evaluate(Request("tests/evaluators/problems/silu", baseline, s), nullptr);
  BOOST_REQUIRE_MESSAGE(r.status == EvalStatus::kOk, Shown(r));
  const double call_s = r.profile.at("single_call_us") * 1e-6;
  const size_t next = static_cast<size_t>(judge::TimingPoolSize(*silu, s, call_s));
  BOOST_TEST_MESSAGE("call " << call_s * 1e6 << " us, next pool " << next);
  BOOST_REQUIRE_MESSAGE(next > 128u, "a call of " << call_s * 1e3 << " ms: the pool by time is not above 128");
  for (int k = 0; k < 1800 && !backend.StockFilled(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  BOOST_REQUIRE_MESSAGE(backend.StockFilled(), "the stock was not filled in 180 s");
  std::string stock;
  for (const auto& h : fs::directory_iterator(cache + "/harness"))
    if (fs::exists(h.path() / "stock")) stock = (h.path() / "stock").string();
  BOOST_REQUIRE(!stock.empty());
  BOOST_TEST(judge::StockCount(Env::Default(), stock) == next);
}

// The cache's size limit: old judge versions go first, then the least
// recently used problem folder; the folder in use and the current judge's
// objects stay.
BOOST_AUTO_TEST_CASE(the_reference_cache_evicts_old_versions_then_the_least_recently_used) {
  Env* env = Env::Default();
  const std::string root = FreshDir("evict") + "/harness";
  auto make = [&](const std::string& name, const std::string& version, int64_t used, size_t bytes) {
    BOOST_REQUIRE(env->CreateDirs(root + "/" + name + "/refs").ok());
    if (!version.empty()) BOOST_REQUIRE(env->WriteFileAtomic(root + "/" + name + "/judge_version", version).ok());
    BOOST_REQUIRE(env->WriteFileAtomic(root + "/" + name + "/last_used", std::to_string(used)).ok());
    BOOST_REQUIRE(env->WriteFileAtomic(root + "/" + name + "/refs/a.bin", std::string(bytes, 'x')).ok());
  };
  BOOST_REQUIRE(env->CreateDirs(root + "/main-new").ok());
  BOOST_REQUIRE(env->WriteFileAtomic(root + "/main-new/judge_main.o", std::string(1000, 'o')).ok());
  make("old-version", "main-old", 300, 10000);
  make("lru", "main-new", 100, 10000);
  make("recent", "main-new", 200, 10000);
  make("in-use", "main-new", 50, 10000);
  auto usage = judge::EvictReferenceCache(env, root, "main-new", 25000, {root + "/in-use"});
  BOOST_REQUIRE(usage.ok());
  BOOST_TEST(!env->Exists(root + "/old-version"));
  BOOST_TEST(!env->Exists(root + "/lru"));
  BOOST_TEST(env->Exists(root + "/recent"));
  BOOST_TEST(env->Exists(root + "/in-use"));
  BOOST_TEST(env->Exists(root + "/main-new"));
  BOOST_TEST(usage->bytes <= 25000u);
  BOOST_TEST(usage->evicted.size() == 2u);
  // Under the limit: nothing goes.
  auto again = judge::EvictReferenceCache(env, root, "main-new", 25000, {});
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(again->evicted.empty());
}

BOOST_AUTO_TEST_SUITE_END()
