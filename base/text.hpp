// Small string helpers used across the tree (one copy instead of one per file).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace accelopt {

// Without leading and trailing white space (" \t\n\v\f\r", isspace in the C
// locale). TrimView returns a view into `s`; it must not outlive it.
std::string Trim(std::string_view s);
std::string_view TrimView(std::string_view s);

// ASCII lower case; other bytes unchanged.
std::string Lower(std::string_view s);

// A number for people: printf's "%.*g" with `significant` digits
// (0.000123, 1.5e+09, 42).
std::string FormatSignificant(double v, int significant = 4);

// A plain folder name: 1..64 of [A-Za-z0-9._-], not starting with '.' or
// '-' (so no '/', no "..", nothing hidden). The names of imported suites and
// their problems (daemon/suite_dirs.hpp, acceloptctl import).
bool IsPlainFolderName(std::string_view name);

// Levenshtein distance (insertions, deletions, substitutions; bytes).
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a typo (at
// most 2 edits, and fewer than half of the word's length; ties: the first),
// else "". For "did you mean 'list'?" after `lst`.
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

// URL percent-decoding of a query or path part: "%41+b" -> "A b";
// malformed escapes are kept as they are.
std::string PercentDecode(std::string_view s);

}  // namespace accelopt
