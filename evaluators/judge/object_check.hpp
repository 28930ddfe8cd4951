// The judge's checks on a compiled candidate's object, shared by the
// backends whose kernels are native shared objects (cpu: the C++ kernel;
// cuda: the .cu kernel's host object): read from the file through the Env,
// before anything loads it.
//
// CheckObjectFile: the object's size (before it is read), the function the
//   problem calls defined, no data symbol in an executable section.
// UndefinedSymbols: the shared object's undefined dynamic symbols, for a
//   backend's own allow-list (cpu: cpp_rules.hpp CheckSymbols; cuda:
//   cuda/static_check.hpp).
// CheckInstructions: the machine code, disassembled, without system calls,
//   time stamp counters or reduced-precision arithmetic.
//
// Thread safety: pure functions (file reads and objdump through the Env).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::eval::judge {

// Largest kernel object the evaluator reads.
constexpr uint64_t kMaxObjectBytes = uint64_t{64} << 20;

// Ok, or kPermissionDenied: larger than kMaxObjectBytes (checked before it is
// read), `function` not defined as a function in .dynsym, or a data symbol
// in an executable section. kInvalidArgument when it is not an ELF object.
Status CheckObjectFile(const std::string& so_path, const std::string& function, Env* env);

// Undefined symbols of the ELF shared object's .dynsym (libelf, on the file
// read through `env`).
Result<std::vector<std::string>> UndefinedSymbols(const std::string& so_path, Env* env);

// Disassembles the object (objdump -d, with a time limit) and refuses
// instructions that a macro or inline assembly could smuggle past the source
// scan: system calls (syscall, sysenter, int 0x80), time stamp counters
// (rdtsc, rdtscp, rdpid), and reduced-precision arithmetic or conversions
// (vcvtps2ph, vcvtph2ps, BF16, AVX512-FP16 "...ph"/"...sh" ops, VNNI int8 dot
// products). kUnavailable when objdump cannot run (env->RunProcess).
Status CheckInstructions(const std::string& so_path, Env* env);

}  // namespace accelopt::eval::judge
