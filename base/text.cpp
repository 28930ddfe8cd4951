#include "base/text.hpp"

#include <cstdio>

namespace accelopt {

std::string_view TrimView(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  auto begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  auto end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

std::string Trim(std::string_view s) { return std::string(TrimView(s)); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string FormatSignificant(double v, int significant) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", significant, v);
  return b;
}

bool IsPlainFolderName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] == '.' || name[0] == '-') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace accelopt
