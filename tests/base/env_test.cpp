// Env (base/env.hpp): the real implementation of the file operations, the
// lock and the variables, and the fault-injecting wrapper tests use.
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>

#include "base/env.hpp"

using namespace accelopt;

namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/accelopt-env-test-XXXXXX";
  return mkdtemp(tmpl);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(env)

BOOST_AUTO_TEST_CASE(large_files_in_chunks_appended_sized_and_read_by_range) {
  Env* env = Env::Default();
  const std::string dir = TempDir();
  const std::string f = dir + "/big";
  BOOST_REQUIRE(env->AppendFile(f, "0123456789").ok());
  BOOST_REQUIRE(env->AppendFile(f, "abcdef").ok());
  BOOST_TEST(*env->FileSize(f) == 16u);
  struct stat st;
  BOOST_REQUIRE(stat(f.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0600u);
  BOOST_TEST(*env->ReadFileRange(f, 0, 4) == "0123");
  BOOST_TEST(*env->ReadFileRange(f, 8, 4) == "89ab");
  BOOST_TEST(*env->ReadFileRange(f, 12, 100) == "cdef");  // short at the end
  BOOST_TEST(env->ReadFileRange(f, 16, 4)->empty());      // past it: nothing
  BOOST_TEST(env->ReadFileRange(f, 1000, 4)->empty());
  BOOST_TEST(env->ReadFileRange(dir + "/missing", 0, 4).status().code() == Code::kNotFound);
  BOOST_TEST(env->FileSize(dir + "/missing").status().code() == Code::kNotFound);
  BOOST_TEST(!env->FileSize(dir).ok());  // a directory has no file size
  BOOST_TEST(!env->AppendFile(dir + "/no/such/dir/f", "x").ok());
  BOOST_REQUIRE(env->RemoveAll(dir).ok());
}

BOOST_AUTO_TEST_CASE(files_directories_renames_and_permissions) {
  Env* env = Env::Default();
  const std::string dir = TempDir();
  BOOST_TEST(env->IsDirectory(dir));
  BOOST_TEST(!env->IsFile(dir));
  BOOST_REQUIRE(env->WriteFileAtomic(dir + "/a", "text").ok());
  BOOST_TEST(env->IsFile(dir + "/a"));
  BOOST_REQUIRE(env->RenameFile(dir + "/a", dir + "/b").ok());
  BOOST_TEST(!env->Exists(dir + "/a"));
  BOOST_TEST(*env->ReadFile(dir + "/b") == "text");
  BOOST_REQUIRE(env->SetPermissions(dir + "/b", 0600).ok());
  struct stat st;
  BOOST_REQUIRE(stat((dir + "/b").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0600u);
  auto renamed = env->RenameFile(dir + "/missing", dir + "/c");
  BOOST_TEST(renamed.code() == Code::kIOError);
  BOOST_TEST(renamed.message().find(dir + "/missing") != std::string::npos);
  BOOST_TEST(!env->SetPermissions(dir + "/missing", 0600).ok());
  BOOST_TEST(env->CurrentDir().front() == '/');
  BOOST_REQUIRE(env->RemoveAll(dir).ok());
}

BOOST_AUTO_TEST_CASE(a_file_lock_is_exclusive_until_released) {
  Env* env = Env::Default();
  const std::string dir = TempDir();
  {
    auto first = env->LockFile(dir + "/lock", "holder 1\n");
    BOOST_REQUIRE_MESSAGE(first.ok(), first.status().ToString());
    BOOST_TEST(*env->ReadFile(dir + "/lock") == "holder 1\n");
    auto second = env->LockFile(dir + "/lock", "holder 2\n");  // same process, another descriptor
    BOOST_REQUIRE(!second.ok());
    BOOST_TEST(second.status().code() == Code::kFailedPrecondition);
    BOOST_TEST(*env->ReadFile(dir + "/lock") == "holder 1\n");  // the refused one wrote nothing
  }
  auto again = env->LockFile(dir + "/lock", "holder 3\n");
  BOOST_REQUIRE_MESSAGE(again.ok(), again.status().ToString());
  BOOST_TEST(*env->ReadFile(dir + "/lock") == "holder 3\n");
  BOOST_TEST(env->LockFile(dir + "/no/such/dir/lock", "").status().code() == Code::kIOError);
  (void)env->RemoveAll(dir);
}

BOOST_AUTO_TEST_CASE(environment_variables) {
  Env* env = Env::Default();
  setenv("ACCELOPT_ENV_TEST_VAR", "value", 1);
  BOOST_TEST(env->GetEnvVar("ACCELOPT_ENV_TEST_VAR").value_or("") == "value");
  setenv("ACCELOPT_ENV_TEST_VAR", "", 1);
  BOOST_TEST(env->GetEnvVar("ACCELOPT_ENV_TEST_VAR").has_value());  // empty is a value
  unsetenv("ACCELOPT_ENV_TEST_VAR");
  BOOST_TEST(!env->GetEnvVar("ACCELOPT_ENV_TEST_VAR").has_value());
}

// The wrapper fails exactly the operation asked for, reports which, and
// leaves the file system alone for it.
BOOST_AUTO_TEST_CASE(process_facts_come_from_the_os_and_a_wrapper_can_replace_them) {
  Env* env = Env::Default();
  BOOST_TEST(env->ProcessId() == static_cast<int64_t>(getpid()));
  const std::string exe = env->ExecutablePath();
  BOOST_TEST(exe.size() > 9);
  BOOST_TEST(exe.substr(exe.size() - 9) == "base_test", exe);
  utsname u{};
  BOOST_REQUIRE(uname(&u) == 0);
  BOOST_TEST(env->KernelRelease() == std::string(u.release));
  BOOST_TEST(env->ClockTicksPerSecond() == sysconf(_SC_CLK_TCK));
  struct Other : EnvWrapper {
    using EnvWrapper::EnvWrapper;
    int64_t ProcessId() override { return 4242; }
    std::string KernelRelease() override { return "6.1.0-test"; }
  } other(env);
  BOOST_TEST(other.ProcessId() == 4242);
  BOOST_TEST(other.KernelRelease() == "6.1.0-test");
  BOOST_TEST(other.ExecutablePath() == exe);  // the rest forwards
}

BOOST_AUTO_TEST_CASE(a_faulty_env_fails_the_nth_file_operation) {
  const std::string dir = TempDir();
  FaultyFileEnv env(Env::Default());
  env.FailAt(2);
  BOOST_TEST(env.WriteFileAtomic(dir + "/a", "1").ok());
  Status st = env.WriteFileAtomic(dir + "/b", "2");
  BOOST_TEST(st.code() == Code::kIOError);
  BOOST_TEST(st.message() == "injected fault: write " + dir + "/b");
  BOOST_TEST(!env.Exists(dir + "/b"));  // queries are not counted
  BOOST_TEST(env.ReadFile(dir + "/a").ok());
  BOOST_TEST(env.operations() == 3);

  env.ResetCount();
  env.FailFrom(2);
  BOOST_TEST(env.CreateDirs(dir + "/d").ok());
  BOOST_TEST(!env.ListDir(dir).ok());
  BOOST_TEST(!env.RenameFile(dir + "/a", dir + "/c").ok());
  BOOST_TEST(!env.SetPermissions(dir + "/a", 0600).ok());
  BOOST_TEST(!env.LockFile(dir + "/lock", "").ok());
  BOOST_TEST(!env.RemoveAll(dir + "/d").ok());
  BOOST_TEST(env.IsDirectory(dir + "/d"));
  env.FailAt(0);
  BOOST_TEST(env.RemoveAll(dir).ok());
}

BOOST_AUTO_TEST_CASE(a_fake_clock_moves_only_when_told) {
  FakeClockEnv env(Env::Default(), 1000);
  BOOST_TEST(env.NowMicros() == 1000);
  BOOST_TEST(env.MonotonicNanos() == 0);
  env.SleepFor(std::chrono::milliseconds(2));
  BOOST_TEST(env.NowMicros() == 3000);
  BOOST_TEST(env.MonotonicNanos() == 2'000'000);
}

BOOST_AUTO_TEST_SUITE_END()
