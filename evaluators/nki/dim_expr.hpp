// Integer arithmetic over dim names, as NKIBench writes shapes and as our
// FLOP and byte formulas are written: "B*H*N", "D // 2", "2*M*N*K + 5*M*N".
// Grammar: integers, identifiers (looked up in `dims`), + - * // and
// parentheses; unary minus. '/' (true division) and anything else is
// refused, as is an unknown name, a division by zero or an int64 overflow.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/status.hpp"

namespace accelopt::eval::nki {

// kInvalidArgument with a message naming the expression and what is wrong.
Result<int64_t> EvalDimExpr(const std::string& expr, const std::map<std::string, int64_t>& dims);

// True when `expr` is exactly one identifier (after trimming spaces).
bool IsPlainName(const std::string& expr);

}  // namespace accelopt::eval::nki
