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

// Python (nki kernels): whitespace is syntax there and `//` is floor
// division, so NormalizeCode does not apply. NormalizePythonCode removes
// `#` comments (not inside string literals), trailing whitespace and lines
// left empty; indentation and everything inside literals stay as written.
std::string NormalizePythonCode(std::string_view code);

// The normalized hash of a kernel of `backend`: NormalizePythonCode for
// "nki", NormalizeCode for every other backend (C, C++, CUDA C++).
std::string NormalizedKernelSha256(std::string_view code, const std::string& backend);

}  // namespace accelopt::workflows
