#include "evaluators/judge/cpp_rules.hpp"

#include <array>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

namespace accelopt::eval::judge {
namespace {

std::string Strip(const std::string& src, bool strings) {
  std::string out = src;
  enum { kCode, kLine, kBlock, kStr, kChr } st = kCode;
  for (size_t i = 0; i < src.size(); ++i) {
    char c = src[i], n = i + 1 < src.size() ? src[i + 1] : '\0';
    switch (st) {
      case kCode:
        if (c == '/' && n == '/') {
          st = kLine;
          out[i] = ' ';
        } else if (c == '/' && n == '*') {
          st = kBlock;
          out[i] = ' ';
          out[i + 1] = ' ';
          ++i;
        } else if (strings && c == '"')
          st = kStr;
        else if (strings && c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(src[i - 1]))))
          st = kChr;
        break;
      case kLine:
        if (c == '\n')
          st = kCode;
        else
          out[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && n == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          st = kCode;
        } else if (c != '\n')
          out[i] = ' ';
        break;
      case kStr:
      case kChr:
        if (c == '\\' && n != '\0') {
          out[i] = ' ';
          if (n != '\n') out[i + 1] = ' ';
          ++i;
        } else if ((st == kStr && c == '"') || (st == kChr && c == '\''))
          st = kCode;
        else if (c != '\n')
          out[i] = ' ';
        break;
    }
  }
  return out;
}

Status Refuse(const std::string& m) { return PermissionDenied(m); }

}  // namespace

std::string StripCommentsAndStrings(const std::string& source) { return Strip(source, true); }

namespace {

// The identifier rules, on code without comments and literals; line_of maps
// a line index of `code` (0-based) to the line number shown.
Status CheckIdentifiers(const std::string& code, const std::function<int(int)>& line_of, bool preprocessed) {
  static const std::regex kIdent(R"([A-Za-z_][A-Za-z0-9_]*)");
  static const std::set<std::string> kLowPrecision = {"_Float16",  "__fp16",    "__bf16",   "bfloat16",  "bfloat16_t",
                                                      "float16_t", "_Float16x", "__m128bh", "__m256bh",  "__m512bh",
                                                      "__m128h",   "__m256h",   "__m512h",  "half_float"};
  static const std::set<std::string> kAsm = {"asm", "__asm", "__asm__"};
  // Data placed in an executable section is machine code no compiler wrote.
  static const std::set<std::string> kSection = {"section", "__section__"};
  static const std::set<std::string> kClock = {
      "__rdtsc", "__rdtscp", "_rdtsc", "__builtin_ia32_rdtsc", "__builtin_ia32_rdtscp", "__builtin_readcyclecounter"};
  // Reduced precision by name: F16C, AVX512-BF16/FP16, VNNI (and AVX-VNNI,
  // -INT8, -INT16), AVX-NE-CONVERT intrinsics; AMX tiles (`_tile_*`, macros
  // over inline assembly in GCC's own header); and the compiler builtins
  // behind all of them. The object check refuses their instructions too.
  static const std::regex kLowIntrinsic(
      R"(^_mm\d*_\w*(cvtps_ph|cvtph_ps|cvtneps_pbh|cvtne2ps_pbh|cvtneps_avx_pbh|bcstnebf16|bcstnesh|cvtneebf16|)"
      R"(cvtneeph|cvtneobf16|cvtneoph|dpbf16|dpbusd|dpwssd|dpbssd|dpbsud|dpbuud|dpwsud|dpwusd|dpwuud|_ph|_sh|_pch|_sch)\w*$)"
      R"(|^_tile_\w+$|^__tile\w*$|^__builtin_ia32_\w*(tile|tdp|tcmm|bf16|fp16|ph2|2ph|phs|_ph|_sh|vpdp|dpbf|cvtne)\w*$)");
  const std::string after = preprocessed ? " (after preprocessing)" : "";
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kIdent); it != std::sregex_iterator(); ++it) {
    const std::string id = it->str();
    size_t pos = static_cast<size_t>(it->position());
    const int index = static_cast<int>(std::count(code.begin(), code.begin() + pos, '\n'));
    std::string where = "line " + std::to_string(line_of(index)) + after + ": ";
    if (kLowPrecision.count(id)) {
      return Refuse(where + "reduced-precision type '" + id + "' is not allowed: the kernel must compute in fp32");
    }
    if (std::regex_match(id, kLowIntrinsic)) {
      return Refuse(where + "reduced-precision intrinsic '" + id + "' is not allowed: the kernel must compute in fp32");
    }
    if (kAsm.count(id)) return Refuse(where + "inline assembly is not allowed (use intrinsics)");
    if (kSection.count(id)) {
      return Refuse(where + "placing code or data in a named section is not allowed (attribute 'section')");
    }
    if (kClock.count(id)) return Refuse(where + "'" + id + "' reads a clock; kernels may not read clocks");
  }
  return Status::Ok();
}

}  // namespace

Status CheckSource(const std::string& source) {
  // Includes: on the text without comments (strings kept, "..." includes are refused).
  std::istringstream lines(Strip(source, false));
  std::string line;
  static const std::regex kInclude(R"(^\s*#\s*(include|include_next|import|embed)\b\s*(.*)$)");
  static const std::regex kAngle(R"(^<([A-Za-z0-9_][A-Za-z0-9_./+-]*)>\s*$)");
  int lineno = 0;
  while (std::getline(lines, line)) {
    ++lineno;
    std::smatch m;
    if (!std::regex_search(line, m, kInclude)) continue;
    std::string what = m[2];
    std::smatch h;
    std::string where = "line " + std::to_string(lineno) + ": ";
    if (m[1] != "include") return Refuse(where + "#" + std::string(m[1]) + " is not allowed");
    if (!std::regex_match(what, h, kAngle)) {
      return Refuse(where + "#include " + what +
                    " is not allowed: the kernel is one file; include system headers as <name>");
    }
    if (h[1].str().find("..") != std::string::npos) return Refuse(where + "#include with '..' is not allowed");
  }
  // Identifiers: on the text without comments and literals.
  return CheckIdentifiers(
      Strip(source, true), [](int i) { return i + 1; }, false);
}

Status CheckPreprocessed(const std::string& preprocessed, const std::string& source_path) {
  // Line markers: `# <line> "<file>" <flags>`. Only the candidate's own
  // lines are checked: the system headers' (which use asm themselves) are
  // not the candidate's, while every macro the candidate wrote is expanded
  // on its own lines.
  static const std::regex kMarker(R"re(^# (\d+) "((?:[^"\\]|\\.)*)"(.*)$)re");
  std::string mine;
  std::vector<int> lines;
  bool in_source = false;
  int line = 0;
  std::istringstream in(preprocessed);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!l.empty() && l[0] == '#' && std::regex_match(l, m, kMarker)) {
      line = std::stoi(m[1]);
      in_source = m[2] == source_path;
      continue;
    }
    if (in_source) {
      mine += l + "\n";
      lines.push_back(line);
    }
    ++line;
  }
  if (lines.empty() && !preprocessed.empty()) {
    return Refuse("the preprocessed source has no line of the kernel's own file: cannot check it");
  }
  return CheckIdentifiers(
      Strip(mine, true), [&](int i) { return i < static_cast<int>(lines.size()) ? lines[i] : 0; }, true);
}

namespace {

bool Allowed(const std::string& s) {
  static const std::set<std::string> kExact = {
      // memory
      "malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign", "memalign", "memcpy", "memmove",
      "memset", "memcmp", "__memcpy_chk", "__memmove_chk", "__memset_chk",
      // threads
      "pthread_create", "pthread_join", "pthread_detach", "pthread_self", "pthread_equal", "pthread_once",
      "pthread_getspecific", "pthread_setspecific", "pthread_key_create", "pthread_key_delete", "sched_yield",
      "get_nprocs", "sysconf", "__once_proxy", "__tls_get_addr",
      // C/C++ runtime
      "abort", "__assert_fail", "__errno_location", "__stack_chk_fail", "__cxa_atexit", "__cxa_finalize",
      "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_pure_virtual", "__cxa_begin_catch",
      "__cxa_end_catch", "__cxa_rethrow", "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw",
      "__cxa_call_unexpected", "__gxx_personality_v0", "_Unwind_Resume", "__gmon_start__", "_ITM_registerTMCloneTable",
      "_ITM_deregisterTMCloneTable", "__cpu_indicator_init", "__cpu_model", "__cpu_features2", "_ZSt9terminatev",
      "_ZSt15__once_callable", "_ZSt11__once_call", "_ZNSt6thread20hardware_concurrencyEv"};
  if (kExact.count(s)) return true;
  static const std::regex kPatterns(
      // libm (and libmvec's _ZGV... vector variants of the same names)
      R"(^(_ZGV[A-Za-z0-9]+_)?(sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|)"
      R"(exp|exp2|exp10|expm1|log|log2|log10|log1p|pow|sqrt|cbrt|hypot|fabs|floor|ceil|round|lround|)"
      R"(llround|trunc|fmod|remainder|remquo|fmin|fmax|fdim|fma|erf|erfc|tgamma|lgamma|ldexp|frexp|modf|)"
      R"(copysign|nearbyint|rint|lrint|llrint|sincos|scalbn|scalbln|ilogb|logb|nextafter|nexttoward)[fl]?$)"
      R"(|^__(sin|cos|exp|log|pow|sqrt)[a-z0-9_]*_finite$)"
      // pthread sync objects
      R"(|^pthread_(mutex|mutexattr|cond|condattr|barrier|barrierattr|spin|rwlock|rwlockattr|attr)_\w+$)"
      // OpenMP
      R"(|^GOMP_\w+$|^omp_\w+$)"
      // operator new/delete, typeinfo, vtables, std exceptions
      R"(|^_Z(nw|na|dl|da)\w*$|^_ZT[IVS]\w+$|^_ZSt\d+__throw_\w+$|^_ZNSt6thread\w+$)"
      R"(|^_ZNSt18condition_variable\w+$|^_ZNSt\d+(bad_alloc|bad_array_new_length|exception)\w*$)"
      // libgcc integer helpers
      R"(|^__(div|mod|udiv|umod|mul|popcount|clz|ctz|ffs|parity|bswap|ashl|ashr|lshr)[a-z]*[0-9]$)");
  static const std::set<std::string> kDeniedOmp = {"omp_get_wtime", "omp_get_wtick"};
  if (kDeniedOmp.count(s)) return false;
  return std::regex_search(s, kPatterns);
}

std::string Category(const std::string& s) {
  static const std::regex kFile(
      R"(^(f?open|open64|openat\w*|creat\w*|fopen64|freopen\w*|fdopen|read|write|pread\w*|pwrite\w*|fread|fwrite|fgets|fputs|fgetc|fputc|getc|putc|fscanf|fseek\w*|ftell\w*|fstat\w*|stat\w*|lstat\w*|__x?stat\w*|__fx?stat\w*|access|unlink\w*|rename\w*|mkdir\w*|opendir|readdir\w*|mmap\w*|readlink\w*|getline|getdelim|__isoc99_fscanf|fclose|close|_ZNSt\d*basic_[io]?fstream\w*|_ZNSt\d*basic_filebuf\w*|ioctl|fcntl\w*|dup\d?)$)");
  static const std::regex kNet(
      R"(^(socket|socketpair|connect|bind|listen|accept\d?|send\w*|recv\w*|getaddrinfo|gethostbyname\w*|inet_\w+|curl_\w+)$)");
  static const std::regex kProc(
      R"(^(fork|vfork|_Fork|clone\d?|exec\w*|system|popen|pclose|posix_spawn\w*|kill|raise|waitpid|wait\d?|ptrace|syscall|prctl|signal|sigaction|setrlimit\w*|getrlimit\w*|getpid|getppid)$)");
  static const std::regex kDl(R"(^(dlopen|dlsym|dlvsym|dlclose|dlerror|dladdr\w*|dlinfo|dl_iterate_phdr)$)");
  static const std::regex kClock(
      R"(^(clock|clock_gettime|clock_getres|gettimeofday|time|times|ftime|nanosleep|clock_nanosleep|usleep|sleep|getrusage|omp_get_wtime|omp_get_wtick|_ZNSt6chrono\w+|_ZNSt11this_thread\w*)$)");
  static const std::regex kOut(
      R"(^(printf|puts|putchar|vprintf|fprintf|vfprintf|__printf_chk|__fprintf_chk|perror|_ZSt4cout|_ZSt4cerr|_ZSt4clog|_ZNSo\w+|_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc|getenv|secure_getenv|setenv|putenv)$)");
  static const std::regex kLow(R"(^__(trunc|extend)\w*(hf|bf)\w*$)");
  if (std::regex_match(s, kLow)) return "reduced-precision conversion; the kernel must compute in fp32";
  if (std::regex_match(s, kFile)) return "file access";
  if (std::regex_match(s, kNet)) return "network access";
  if (std::regex_match(s, kProc)) return "process control";
  if (std::regex_match(s, kDl)) return "dynamic loading";
  if (std::regex_match(s, kClock)) return "clocks and sleeping";
  if (std::regex_match(s, kOut)) return "output or environment";
  return "not on the allow-list: kernels may call math, memory, thread and OpenMP functions only";
}

}  // namespace

Status CheckSymbols(const std::vector<std::string>& undefined) {
  std::vector<std::string> bad;
  for (const auto& s : undefined) {
    std::string base = s.substr(0, s.find('@'));
    if (!Allowed(base)) bad.push_back(base);
  }
  if (bad.empty()) return Status::Ok();
  std::string msg = "symbol '" + bad[0] + "' is not allowed (" + Category(bad[0]) + ")";
  if (bad.size() > 1) {
    msg += "; also:";
    for (size_t i = 1; i < bad.size() && i < 6; ++i) msg += " " + bad[i];
    if (bad.size() > 6) msg += " ...";
  }
  return Refuse(msg);
}

}  // namespace accelopt::eval::judge
