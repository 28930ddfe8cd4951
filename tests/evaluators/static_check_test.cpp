#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/env.hpp"
#include "evaluators/judge/cpp_rules.hpp"
#include "evaluators/judge/object_check.hpp"
#include "evaluators/judge/toolchain.hpp"
#include "workflows/prompts_cpu.hpp"

using namespace accelopt;
using namespace accelopt::eval::judge;

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

BOOST_AUTO_TEST_CASE(refuses_amx_vnni_bf16_and_fp16_by_name) {
  for (const char* src :
       {"void f() { _tile_dpbf16ps(0, 1, 2); }", "void f() { _tile_loadconfig(p); }",
        "void f() { __builtin_ia32_tdpbf16ps(0, 1, 2); }", "void f() { __builtin_ia32_ldtilecfg(p); }",
        "void f() { auto v = _mm256_dpbusd_avx_epi32(a, b, c); }", "void f() { auto v = _mm512_dpbf16_ps(a, b, c); }",
        "void f() { auto v = __builtin_ia32_cvtneps2bf16_512(a); }", "void f() { auto v = _mm256_cvtneebf16_ps(p); }",
        "void f() { auto v = _mm512_add_ph(a, b); }"}) {
    BOOST_TEST_CONTEXT(src) { BOOST_TEST(Refusal(src).find("reduced-precision") != std::string::npos); }
  }
  BOOST_TEST(CheckSource("#include <immintrin.h>\nvoid f(float* y) { _mm512_storeu_ps(y, _mm512_fmadd_ps("
                         "_mm512_set1_ps(1), _mm512_set1_ps(2), _mm512_set1_ps(3))); }\n")
                 .ok());
}

// The object check reads the instructions themselves: code that names no
// forbidden intrinsic (compiled here with a target attribute and called by
// builtin, as a kernel hiding behind another name would) is refused by what
// the compiler emitted; honest AVX2/AVX-512F code is not.
BOOST_AUTO_TEST_CASE(the_object_check_refuses_amx_vnni_and_bf16_instructions) {
  const std::string dir = std::string(ACCELOPT_BINARY_DIR) + "/static-check-objects";
  std::filesystem::create_directories(dir);
  auto object = [&](const std::string& name, const std::string& src) {
    const std::string cpp = dir + "/" + name + ".cpp", so = dir + "/" + name + ".so";
    std::ofstream(cpp) << "#include <immintrin.h>\n" << src;
    const std::string cmd = "g++ -O2 -fPIC -shared -o " + so + " " + cpp + " 2>&1";
    BOOST_REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "compiling " << name);
    return eval::judge::CheckInstructions(so, Env::Default());
  };
  struct Case {
    const char* name;
    const char* src;
    const char* mnemonic;
  };
  for (const Case& c : {Case{"amx",
                             "extern \"C\" __attribute__((target(\"amx-tile,amx-bf16\"))) void f(const void* cfg) {"
                             " _tile_loadconfig(cfg); _tile_zero(0); _tile_dpbf16ps(0, 1, 2); _tile_release(); }",
                             "tileloadd|ldtilecfg|tilezero|tdpbf16ps"},
                        Case{"avx_vnni",
                             "extern \"C\" __attribute__((target(\"avxvnni\"))) void f(__m256i* a) {"
                             " a[0] = _mm256_dpbusd_avx_epi32(a[0], a[1], a[2]); }",
                             "vpdpbusd"},
                        Case{"bf16",
                             "extern \"C\" __attribute__((target(\"avx512bf16,avx512f\"))) void f(__m512* a) {"
                             " a[0] = _mm512_dpbf16_ps(a[0], (__m512bh)a[1], (__m512bh)a[2]); }",
                             "vdpbf16ps"}}) {
    BOOST_TEST_CONTEXT(c.name) {
      Status st = object(c.name, c.src);
      BOOST_REQUIRE(!st.ok());
      BOOST_TEST(st.message().find("reduced-precision arithmetic") != std::string::npos, st.message());
      BOOST_TEST(std::regex_search(st.message(), std::regex(std::string("instruction '(") + c.mnemonic + ")'")),
                 st.message());
    }
  }
  for (const char* kernel : {"avx2_softmax.cpp", "avx512_matmul.cpp", "fast_matmul.cpp"}) {
    std::ifstream in(std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/kernels/" + kernel);
    std::stringstream text;
    text << in.rdbuf();
    BOOST_TEST_CONTEXT(kernel) {
      Status st = object(std::string("honest_") + kernel, text.str());
      BOOST_TEST(st.ok(), st.message());
    }
  }
}

BOOST_AUTO_TEST_CASE(symbol_allow_list) {
  BOOST_TEST(CheckSymbols({"expf", "memcpy", "GOMP_parallel", "omp_get_thread_num", "_Znwm", "_ZdlPvm",
                           "pthread_create", "__cxa_finalize", "_ZGVeN16v_expf", "tanhf", "sqrt", "__stack_chk_fail",
                           "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE"})
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
  for (const std::string& f : accelopt::eval::judge::KernelFlags()) expected += " " + f;
  expected += " -fPIC -shared";
  BOOST_TEST(accelopt::workflows::CpuCompileCommand() == expected);
  BOOST_TEST(accelopt::workflows::CpuPrompts().intro.find(expected) != std::string::npos);
}
