#include "base/line_diff.hpp"

#include <algorithm>
#include <cstdint>

namespace accelopt {

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::vector<DiffLine> LineDiff(std::string_view old_text, std::string_view new_text, size_t max_lines) {
  const std::vector<std::string> a = SplitLines(old_text), b = SplitLines(new_text);
  std::vector<DiffLine> out;
  if (a.size() > max_lines || b.size() > max_lines) {
    for (const auto& l : a) out.push_back({'-', l});
    for (const auto& l : b) out.push_back({'+', l});
    return out;
  }
  const size_t n = a.size(), m = b.size();
  // lcs[i][j]: length of the LCS of a[i..] and b[j..].
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] == b[j]) {
      out.push_back({' ', a[i]});
      ++i;
      ++j;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      out.push_back({'-', a[i++]});
    } else {
      out.push_back({'+', b[j++]});
    }
  }
  while (i < n) out.push_back({'-', a[i++]});
  while (j < m) out.push_back({'+', b[j++]});
  return out;
}

}  // namespace accelopt
