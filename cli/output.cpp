#include "cli/output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

namespace accelopt::cli {

const char* kExitCodesHelp =
    "Exit codes: 0 ok, 1 daemon error, 2 usage, 3 daemon unreachable, 4 not found,\n"
    "  5 campaign failed, 6 campaign cancelled, 7 timeout, 8 budget exhausted,\n"
    "  9 campaign partial (some problems failed).";

void PrintTable(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(headers.size());
  for (size_t i = 0; i < headers.size(); ++i) width[i] = headers[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < width.size(); ++i) {
      std::string c = i < cells.size() ? cells[i] : "";
      out += c;
      if (i + 1 < width.size()) out += std::string(width[i] - c.size() + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    std::cout << out << "\n";
  };
  line(headers);
  for (const auto& r : rows) line(r);
}

std::string FormatDouble(double v, int precision) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(precision);
  os << v;
  return os.str();
}

std::string FormatMicros(double us) {
  if (us >= 1e6) return FormatDouble(us / 1e6, 3) + " s";
  if (us >= 1e3) return FormatDouble(us / 1e3, 3) + " ms";
  return FormatDouble(us, 1) + " us";
}

std::string JsonToCell(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return FormatDouble(v.get<double>());
  return Dump(v);
}

std::string FormatUtc(int64_t unix_us) {
  if (unix_us <= 0) return "-";
  const time_t t = static_cast<time_t>(unix_us / 1000000);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

int WriteOutputFile(const std::string& file, const std::string& text, const std::string& who) {
  if (file == "-") {
    std::cout << text;
    return kExitOk;
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::cerr << who << ": cannot write " << file << " (" << std::strerror(errno) << ")\n";
    return kExitError;
  }
  std::cerr << "wrote " << file << "\n";
  return kExitOk;
}

}  // namespace accelopt::cli
