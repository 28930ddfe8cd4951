// Static checks on an untrusted cpu kernel, before it runs.
//
// CheckSource (on the text, comments and string literals removed):
//   - no reduced-precision types or conversions (_Float16, __bf16, bfloat16,
//     __m512bh, F16C / AVX512-FP16 / BF16 / VNNI intrinsics);
//   - no inline assembly (it would bypass the symbol check) and no rdtsc;
//   - #include only <header> names without "/.." or a leading "/", and no
//     #include "..." (the compiler must not read arbitrary files into its
//     error messages).
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
