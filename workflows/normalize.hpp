// Code identity for de-duplication ("default" mode): two kernels that differ
// only in comments and whitespace are the same kernel and are evaluated once.
//
// NormalizeCode removes // and /* */ comments (not inside string or
// character literals), and collapses every run of whitespace: to nothing
// between two tokens unless both sides are word characters ([A-Za-z0-9_]),
// which keep one space; a run holding a newline that ends a preprocessor
// line keeps one '\n'. Leading and trailing whitespace go.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace accelopt::workflows {

std::string NormalizeCode(std::string_view code);

// sha256 hex of NormalizeCode(code).
std::string NormalizedCodeSha256(std::string_view code);

}  // namespace accelopt::workflows
