#include <boost/test/unit_test.hpp>

#include "evaluators/cpu/static_check.hpp"
#include "evaluators/cpu/toolchain.hpp"
#include "workflows/prompts_cpu.hpp"

using namespace accelopt;
using namespace accelopt::eval::cpu;

namespace {
std::string Refusal(const std::string& src) {
  Status s = CheckSource(src);
  BOOST_REQUIRE_MESSAGE(!s.ok(), "accepted: " + src);
  return s.message();
}
}  // namespace

BOOST_AUTO_TEST_SUITE(static_check)

BOOST_AUTO_TEST_CASE(accepts_ordinary_kernels) {
  BOOST_TEST(CheckSource("#include <immintrin.h>\n#include <cmath>\n#include <omp.h>\n"
                         "// _Float16 in a comment is fine\n"
                         "extern \"C\" void f(const float* x, float* y, long n) {\n"
                         "  const char* s = \"asm __bf16\"; (void)s; int half = 2;\n"
                         "  for (long i = 0; i < n; ++i) y[i] = x[i] * half; }\n")
                 .ok());
}

BOOST_AUTO_TEST_CASE(refuses_low_precision_asm_clocks_and_includes) {
  BOOST_TEST(Refusal("void f() { _Float16 h = 1; }").find("reduced-precision type '_Float16'") != std::string::npos);
  BOOST_TEST(Refusal("void f() { __m512bh v; }").find("reduced-precision") != std::string::npos);
  BOOST_TEST(Refusal("void f() { auto v = _mm512_cvtps_ph(x, 0); }").find("intrinsic") != std::string::npos);
  BOOST_TEST(Refusal("void f() { asm volatile(\"syscall\"); }").find("inline assembly") != std::string::npos);
  BOOST_TEST(Refusal("void f() { long t = __rdtsc(); }").find("clock") != std::string::npos);
  BOOST_TEST(Refusal("#include \"/etc/passwd\"\n").find("line 1") != std::string::npos);
  BOOST_TEST(Refusal("#include </proc/self/environ>\n").find("#include") != std::string::npos);
  BOOST_TEST(Refusal("#include <../../etc/passwd>\n").find("..") != std::string::npos);
  BOOST_TEST(Refusal("int a;\n  #  include_next <x.h>\n").find("line 2") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(symbol_allow_list) {
  BOOST_TEST(CheckSymbols({"expf", "memcpy", "GOMP_parallel", "omp_get_thread_num", "_Znwm", "_ZdlPvm",
                           "pthread_create", "__cxa_finalize", "_ZGVeN16v_expf", "tanhf", "sqrt",
                           "__stack_chk_fail", "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE"})
                 .ok());
  auto refused = [](const std::string& sym) {
    Status s = CheckSymbols({"expf", sym});
    BOOST_REQUIRE_MESSAGE(!s.ok(), "allowed: " + sym);
    return s.message();
  };
  BOOST_TEST(refused("fopen").find("file access") != std::string::npos);
  BOOST_TEST(refused("socket").find("network") != std::string::npos);
  BOOST_TEST(refused("fork").find("process") != std::string::npos);
  BOOST_TEST(refused("system").find("process") != std::string::npos);
  BOOST_TEST(refused("dlopen").find("dynamic loading") != std::string::npos);
  BOOST_TEST(refused("clock_gettime").find("clock") != std::string::npos);
  BOOST_TEST(refused("omp_get_wtime").find("clock") != std::string::npos);
  BOOST_TEST(refused("__truncsfhf2").find("reduced-precision") != std::string::npos);
  BOOST_TEST(refused("printf").find("output") != std::string::npos);
  BOOST_TEST(refused("frobnicate").find("allow-list") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(strips_comments_and_literals_keeping_lines) {
  std::string s = StripCommentsAndStrings("a /* b\n c */ d // e\n\"f\\\"g\" 'h' 0x1'000");
  BOOST_TEST(s.find('b') == std::string::npos);
  BOOST_TEST(s.find('e') == std::string::npos);
  BOOST_TEST(s.find('g') == std::string::npos);
  BOOST_TEST(s.find('d') != std::string::npos);
  BOOST_TEST(std::count(s.begin(), s.end(), '\n') == 2);
}

BOOST_AUTO_TEST_SUITE_END()

// The cpu prompts state the compile command (workflows/prompts_cpu.hpp): it
// must be the one the backend really uses.
BOOST_AUTO_TEST_CASE(the_prompts_state_the_real_compile_command) {
  std::string expected = "g++";
  for (const std::string& f : accelopt::eval::cpu::KernelFlags()) expected += " " + f;
  expected += " -fPIC -shared";
  BOOST_TEST(accelopt::workflows::CpuCompileCommand() == expected);
  BOOST_TEST(accelopt::workflows::CpuPrompts().intro.find(expected) != std::string::npos);
}
