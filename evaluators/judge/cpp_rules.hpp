// The judge's rules for an untrusted C/C++ kernel, before it is compiled
// and after (the symbols it needs): the cpu backend's kernels, and the host
// side of the cuda backend's (cuda/static_check.hpp adds the CUDA rules and
// the CUDA runtime's symbols). The checks on the compiled object itself are
// object_check.hpp.
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
// The checks on the compiled object (its size, the function defined, no data
// in code, the undefined symbols, the machine code) are the judge's, shared
// with cuda: evaluators/judge/object_check.hpp.
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

#include "base/status.hpp"

namespace accelopt::eval::judge {

// Ok, or kPermissionDenied with a one-line reason.
Status CheckSource(const std::string& source);

// The identifier rules on the compiler's preprocessed output, on the lines
// whose line markers name `source_path` (as given to the compiler).
Status CheckPreprocessed(const std::string& preprocessed, const std::string& source_path);

// Ok, or kPermissionDenied naming the first refused symbol(s).
Status CheckSymbols(const std::vector<std::string>& undefined);

// The source with comments and string/char literals blanked (same length,
// newlines kept). Exposed for tests.
std::string StripCommentsAndStrings(const std::string& source);

}  // namespace accelopt::eval::judge
