// A line diff (longest common subsequence) of two texts, for showing a
// kernel against its baseline.
//
// Quadratic in the number of lines; texts over `max_lines` lines each are
// not compared line by line: the result is then every old line removed and
// every new line added (still a correct, if unhelpful, diff).
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace accelopt {

struct DiffLine {
  char op = ' ';     // ' ' unchanged, '-' only in the old text, '+' only in the new
  std::string text;  // without the newline
};

std::vector<DiffLine> LineDiff(std::string_view old_text, std::string_view new_text, size_t max_lines = 3000);

// Splits at '\n'; a trailing newline does not make an empty last line.
std::vector<std::string> SplitLines(std::string_view text);

}  // namespace accelopt
