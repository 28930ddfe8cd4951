// Static checks on an untrusted cpu kernel, before it runs.
//
// CheckSource (on the text, comments and string literals removed):
//   - no reduced-precision types or conversions (_Float16, __bf16, bfloat16,
//     __m512bh, F16C / AVX512-FP16 / BF16 / VNNI intrinsics);
//   - no inline assembly (it would bypass the symbol check), no named
//     sections (data in .text is code no compiler wrote) and no rdtsc;
//   - #include only <header> names without "/.." or a leading "/", and no
//     #include "..." (the compiler must not read arbitrary files into its
//     error messages).
// CheckPreprocessed: the identifier rules again on what the compiler saw
//   (its -save-temps preprocessed output, the candidate's own lines), so a
//   token-pasting macro that makes `__asm__` is refused like `asm` itself.
// CheckObjectFile: the object's size (before it is read), the function the
//   problem calls defined, no data symbol in an executable section.
// CheckSymbols (the shared object's undefined dynamic symbols) against an
// allow-list: libm math (and libmvec variants), memory allocation and
// mem* functions, pthread / std::thread / OpenMP (GOMP_*, omp_* except the
// omp_get_wtime clock), C++ runtime support (operator new/delete, __cxa_*,
// exceptions, typeinfo), libgcc arithmetic helpers. Anything else is refused
// with its category when known (files, sockets, processes, dynamic loading,
// clocks, output) — e.g. "symbol 'fopen' is not allowed (file access)".
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::eval::cpu {

// Ok, or kPermissionDenied with a one-line reason.
Status CheckSource(const std::string& source);

// The identifier rules on the compiler's preprocessed output, on the lines
// whose line markers name `source_path` (as given to the compiler).
Status CheckPreprocessed(const std::string& preprocessed, const std::string& source_path);

// Largest kernel object the evaluator reads.
constexpr uint64_t kMaxObjectBytes = uint64_t{64} << 20;

// Ok, or kPermissionDenied: larger than kMaxObjectBytes (checked before it is
// read), `function` not defined as a function in .dynsym, or a data symbol
// in an executable section. kInvalidArgument when it is not an ELF object.
Status CheckObjectFile(const std::string& so_path, const std::string& function, Env* env);

// Undefined symbols of the ELF shared object's .dynsym (libelf, on the file
// read through `env`).
Result<std::vector<std::string>> UndefinedSymbols(const std::string& so_path, Env* env);

// Ok, or kPermissionDenied naming the first refused symbol(s).
Status CheckSymbols(const std::vector<std::string>& undefined);

// Disassembles the object (objdump -d, with a time limit) and refuses
// instructions that a macro or inline assembly could smuggle past the source
// scan: system calls (syscall, sysenter, int 0x80), time stamp counters
// (rdtsc, rdtscp, rdpid), and reduced-precision arithmetic or conversions
// (vcvtps2ph, vcvtph2ps, BF16, AVX512-FP16 "...ph"/"...sh" ops, VNNI int8 dot
// products). kUnavailable when objdump cannot run (env->RunProcess).
Status CheckInstructions(const std::string& so_path, Env* env);

// The source with comments and string/char literals blanked (same length,
// newlines kept). Exposed for tests.
std::string StripCommentsAndStrings(const std::string& source);

}  // namespace accelopt::eval::cpu
