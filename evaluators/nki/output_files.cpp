#include "evaluators/nki/output_files.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace accelopt::eval::nki {

Result<OutputFile> OutputFileOf(const json& h, const std::string& dir, size_t width, Env* env) {
  const std::string what = "output " + std::to_string(h.value("index", -1)) + " of case " +
                           std::to_string(h.value("case", -1)) +
                           (h.contains("run") && h["run"].is_string() ? " (" + h["run"].get<std::string>() + ")" : "");
  if (!h.contains("file") || !h["file"].is_string()) return InvalidArgument(what + ": the record names no file");
  const std::string name = h["file"].get<std::string>();
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return InvalidArgument(what + ": '" + name + "' is not a plain file name in the output folder");
  }
  auto count = [&](const char* k) { return h.contains(k) && h[k].is_number_integer() && h[k].get<int64_t>() >= 0; };
  if (!count("elements") || !count("nbytes")) {
    return InvalidArgument(what + ": elements and nbytes must be non-negative integers");
  }
  OutputFile f;
  f.path = dir + "/" + name;
  f.width = width;
  const uint64_t elements = h["elements"].get<uint64_t>();
  const uint64_t nbytes = h["nbytes"].get<uint64_t>();
  if (elements > (uint64_t{1} << 40) || nbytes != elements * width) {
    return InvalidArgument(what + ": " + std::to_string(nbytes) + " bytes for " + std::to_string(elements) +
                           " elements of " + std::to_string(width) + " bytes");
  }
  auto size = env->FileSize(f.path);
  if (!size.ok()) return InvalidArgument(what + ": " + size.status().message());
  if (*size != nbytes) {
    return InvalidArgument(what + ": the file holds " + std::to_string(*size) + " bytes, the record says " +
                           std::to_string(nbytes));
  }
  f.elements = static_cast<int64_t>(elements);
  return f;
}

Result<compare::Compare> CompareOutputFiles(const OutputFile& got, const OutputFile& want, Env* env, int64_t chunk) {
  if (got.width != 4 || want.width != 8) return InvalidArgument("compare: float32 against float64 only");
  if (got.elements != want.elements) return InvalidArgument("compare: element counts differ");
  if (chunk <= 0) chunk = kChunkElements;
  compare::Compare c;
  double num = 0, den = 0;
  std::vector<float> g;
  std::vector<double> w;
  for (int64_t first = 0; first < got.elements; first += chunk) {
    const int64_t n = std::min(chunk, got.elements - first);
    auto gb = env->ReadFileRange(got.path, static_cast<uint64_t>(first) * 4, static_cast<size_t>(n) * 4);
    if (!gb.ok()) return gb.status();
    auto wb = env->ReadFileRange(want.path, static_cast<uint64_t>(first) * 8, static_cast<size_t>(n) * 8);
    if (!wb.ok()) return wb.status();
    if (gb->size() != static_cast<size_t>(n) * 4 || wb->size() != static_cast<size_t>(n) * 8) {
      return IOError("compare: " + got.path + " or " + want.path + " became shorter while read");
    }
    g.resize(static_cast<size_t>(n));
    w.resize(static_cast<size_t>(n));
    std::memcpy(g.data(), gb->data(), gb->size());
    std::memcpy(w.data(), wb->data(), wb->size());
    for (int64_t e = 0; e < n; ++e) {
      uint32_t bits;
      std::memcpy(&bits, &g[static_cast<size_t>(e)], sizeof bits);
      const bool bad = (bits & 0x7f800000u) == 0x7f800000u;  // NaN or Inf
      const double want_e = w[static_cast<size_t>(e)];
      den += want_e * want_e;
      if (bad) {
        if (c.first_nonfinite < 0) c.first_nonfinite = first + e;
        ++c.nonfinite;
        continue;
      }
      const double d = static_cast<double>(g[static_cast<size_t>(e)]) - want_e;
      num += d * d;
      if (std::fabs(d) > c.max_abs) {
        c.max_abs = std::fabs(d);
        c.max_idx = first + e;
        c.got = g[static_cast<size_t>(e)];
        c.want = want_e;
      }
    }
  }
  if (c.nonfinite) return c;
  c.rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

}  // namespace accelopt::eval::nki
