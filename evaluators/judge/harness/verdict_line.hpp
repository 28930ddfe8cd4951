// The judge's one answer: the final stdout line "ACCELOPT-JUDGE {json}" that
// the evaluator parses (judge_verdict.cpp). This header writes the failure
// form and the pieces of the pass form (judge_main.cpp Decide); every string
// in it is escaped here, so nothing a runner wrote can end the line or the
// JSON early. Included once, by judge_main.cpp.
//
// Thread safety: plain functions; ReportFailure writes stdout and exits.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "evaluators/output_compare.hpp"

namespace judge {

// `s` as the inside of a JSON string: quotes, backslashes and newlines
// escaped, any other control or non-ASCII byte as \u00XX.
inline std::string JsonEscape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c == '\n') {
      o += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}

// Numbers as a JSON array's inside: "1.5,2,3" (Num with `digits`).
inline std::string NumList(const std::vector<double>& v, int digits) {
  std::string o;
  for (size_t i = 0; i < v.size(); ++i) o += (i ? "," : "") + Num(v[i], digits);
  return o;
}

// The failure verdict, then exit 0 (the line is the answer; exit 2 is for
// the judge's own errors). kind: wrong_result, load_error, exited, crashed,
// memory, sandbox, protocol, cores, device_time. phase: "handshake", "load",
// "case", "timing round N".
[[noreturn]] inline void ReportFailure(const std::string& kind, int case_index, const std::string& phase,
                                       const std::string& msg) {
  std::printf(
      "ACCELOPT-JUDGE {\"ok\": false, \"failure\": \"%s\", \"case\": %d, \"phase\": \"%s\", "
      "\"message\": \"%s\"}\n",
      kind.c_str(), case_index, JsonEscape(phase).c_str(), JsonEscape(msg).c_str());
  std::fflush(stdout);
  _exit(0);
}

}  // namespace judge
