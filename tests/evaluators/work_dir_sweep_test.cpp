// The work folders of evaluations whose process was killed are removed when
// a backend is next made on the cache (SweepOrphanWorkDirs): a daemon killed
// during evaluations left one per evaluation, each with its timing cases
// (38 folders, 1.2 GB, in a test cache after one ctest run).
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>

#include "base/env.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/eval_frame.hpp"

using namespace accelopt;
using namespace accelopt::eval;
namespace fs = std::filesystem;

namespace {

// Above PID_MAX_LIMIT (2^22 on 64-bit Linux): no process ever has it.
constexpr int64_t kNeverAlive = 4194304 + 1234;

std::string FreshCache(const std::string& name) {
  const std::string dir = std::string(ACCELOPT_BINARY_DIR) + "/work-dir-sweep-" + name;
  fs::remove_all(dir);
  fs::create_directories(dir + "/work");
  return dir;
}

// A work folder as an evaluation makes it: the kernel and a timing case.
void MakeWorkDir(const std::string& cache, const std::string& name) {
  Env* env = Env::Default();
  BOOST_REQUIRE(env->CreateDirs(cache + "/work/" + name + "/pool").ok());
  BOOST_REQUIRE(env->WriteFileAtomic(cache + "/work/" + name + "/pool/case.bin", std::string(4096, 'c')).ok());
}

bool Has(const std::string& cache, const std::string& name) { return fs::exists(cache + "/work/" + name); }

}  // namespace

BOOST_AUTO_TEST_SUITE(work_dir_sweep)

BOOST_AUTO_TEST_CASE(only_the_folders_of_dead_processes_go) {
  Env* env = Env::Default();
  const std::string cache = FreshCache("function");
  const std::string dead = std::to_string(kNeverAlive);
  const std::string self = std::to_string(env->ProcessId());
  BOOST_REQUIRE(!env->ProcessAlive(kNeverAlive));
  BOOST_REQUIRE(env->ProcessAlive(env->ProcessId()));
  BOOST_REQUIRE(env->ProcessAlive(1));
  for (const char* n : {"-123", "-456"}) MakeWorkDir(cache, dead + n);
  MakeWorkDir(cache, "triton-" + dead + "-7");
  MakeWorkDir(cache, self + "-9");        // this process: an evaluation in flight
  MakeWorkDir(cache, "1-5");              // pid 1 is alive
  MakeWorkDir(cache, "notes");            // not a work folder's name
  MakeWorkDir(cache, "x" + dead + "-3");  // a prefix must end with '-'
  MakeWorkDir(cache, dead + "-abc");      // the random part is digits
  BOOST_TEST(SweepOrphanWorkDirs(env, cache) == 3);
  BOOST_TEST(!Has(cache, dead + "-123"));
  BOOST_TEST(!Has(cache, dead + "-456"));
  BOOST_TEST(!Has(cache, "triton-" + dead + "-7"));
  for (const std::string& kept :
       {self + "-9", std::string("1-5"), std::string("notes"), "x" + dead + "-3", dead + "-abc"})
    BOOST_TEST(Has(cache, kept), kept << " was removed");
  // Nothing left to sweep; a cache without a work folder is no error.
  BOOST_TEST(SweepOrphanWorkDirs(env, cache) == 0);
  BOOST_TEST(SweepOrphanWorkDirs(env, FreshCache("no-work") + "/absent") == 0);
}

BOOST_AUTO_TEST_CASE(a_cpu_backend_made_on_the_cache_sweeps_it) {
  const std::string cache = FreshCache("cpu-backend");
  const std::string orphan = std::to_string(kNeverAlive) + "-42";
  const std::string live = std::to_string(Env::Default()->ProcessId()) + "-43";
  MakeWorkDir(cache, orphan);
  MakeWorkDir(cache, live);
  cpu::CpuBackendOptions o;
  o.env = Env::Default();
  o.cache_dir = cache;
  cpu::CpuBackend backend(o);
  BOOST_TEST(!Has(cache, orphan));
  BOOST_TEST(Has(cache, live));
}

BOOST_AUTO_TEST_SUITE_END()
