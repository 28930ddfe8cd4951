// Suites, baseline profiling, calibration, health; and the
// shared error printing.
#include <time.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "base/baseline_table.hpp"
#include "cli/commands.hpp"

namespace accelopt::cli {

int ReplyError(const ApiReply& reply) {
  std::string code = "error", message;
  if (reply.body.contains("error") && reply.body["error"].is_object()) {
    code = reply.body["error"].value("code", "error");
    message = reply.body["error"].value("message", "");
  } else {
    message = Dump(reply.body);
  }
  std::cerr << "acceloptctl: " << code << ": " << message << " (HTTP " << reply.http_status << ")\n";
  if (reply.http_status == 404) return kExitNotFound;
  return kExitError;
}

int TransportError(const Status& status) {
  std::cerr << "acceloptctl: " << status.message() << "\n";
  if (status.code() == Code::kTimeout) return kExitTimeout;
  return kExitUnreachable;
}

Answer Ask(ApiClient& api, const std::string& method, const std::string& path, const json* body,
           std::chrono::milliseconds timeout) {
  Answer a;
  auto r = api.Call(method, path, body, timeout);
  if (!r.ok()) {
    a.exit_code = TransportError(r.status());
    return a;
  }
  a.http_status = r->http_status;
  a.body = std::move(r->body);
  if (a.http_status >= 300) a.exit_code = ReplyError(a);
  return a;
}

int Simple(ApiClient& api, const Options& o, const std::string& method, const std::string& path, const json* body,
           std::chrono::milliseconds timeout) {
  auto r = Ask(api, method, path, body, timeout);
  if (!r.ok()) return r.exit_code;
  std::cout << Dump(r.body, 2) << "\n";
  return kExitOk;
}

int CmdSuites(ApiClient& api, const Options& o) {
  auto r = Ask(api, "GET", "/v1/suites");
  if (!r.ok()) return r.exit_code;
  if (o.json_output) {
    std::cout << Dump(r.body, 2) << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : r.body.value("suites", json::array()))
    for (const auto& p : s.value("problems", json::array()))
      rows.push_back(
          {s.value("name", "?"), p.value("name", "?"), p.value("bound", ""), p.value("workload", "").substr(0, 60)});
  PrintTable({"SUITE", "PROBLEM", "BOUND", "WORKLOAD"}, rows);
  return kExitOk;
}

int CmdBaseline(ApiClient& api, const Options& o) {
  json body = {{"suite", o.args.empty() ? "cpu" : o.args[0]}};
  if (!o.json_output) std::cerr << "profiling baselines of suite " << body["suite"].get<std::string>() << "...\n";
  auto r = Ask(api, "POST", "/v1/baseline", &body, std::chrono::minutes(30));
  if (!r.ok()) return r.exit_code;
  if (o.json_output) {
    std::cout << Dump(r.body, 2) << "\n";
    return kExitOk;
  }
  // The columns of `accelopt-eval baseline` (base/baseline_table.hpp).
  auto num = [](const json& p, const char* k) {
    return p.contains(k) && p[k].is_number() ? std::optional<double>(p[k].get<double>()) : std::nullopt;
  };
  std::vector<double> percents;
  std::cout << baseline_table::HeaderLine();
  for (const auto& p : r.body.value("problems", json::array())) {
    const bool ok = p.value("status", "") == "ok";
    std::cout << baseline_table::RowLine({p.value("problem", "?"), p.value("status", "?"), num(p, "latency_us"),
                                          num(p, "spread"), num(p, "percent_of_peak"), p.value("bound", ""),
                                          ok ? "" : p.value("reason", "").substr(0, 100)});
    if (auto pct = num(p, "percent_of_peak")) percents.push_back(*pct);
  }
  std::cout << baseline_table::GeomeanLine(percents);
  return kExitOk;
}

int CmdCalibrate(ApiClient& api, const Options& o) {
  json body = {{"backend", o.args.empty() ? "cpu" : o.args[0]}, {"force", o.force}, {"force_busy", o.force_busy}};
  if (o.force && !o.json_output)
    std::cerr << "re-measuring peak FLOP/s and bandwidth (a few seconds; keep the machine quiet)...\n";
  if (o.json_output) return Simple(api, o, "POST", "/v1/calibrate", &body, std::chrono::minutes(5));
  auto r = Ask(api, "POST", "/v1/calibrate", &body, std::chrono::minutes(5));
  if (!r.ok()) return r.exit_code;
  const json c = r.body.value("calibration", json::object());
  const json hw = c.value("hardware", json::object());
  auto num = [](const json& j, const char* k, int precision) {
    return j.contains(k) && j[k].is_number() ? FormatDouble(j[k].get<double>(), precision) : std::string("-");
  };
  std::string when = "-";
  if (c.contains("measured_at_unix") && c["measured_at_unix"].is_number()) {
    when = FormatUtc(c["measured_at_unix"].get<int64_t>() * 1000000);
  }
  PrintTable({"FIELD", "VALUE"}, {{"backend", r.body.value("backend", "?")},
                                  {"re-measured now", r.body.value("remeasured", false) ? "yes" : "no"},
                                  {"cpu", hw.value("cpu_model", "?")},
                                  {"simd", hw.value("simd", "?")},
                                  {"cores", num(c, "cores", 0)},
                                  {"peak GFLOP/s (all cores)", num(c, "peak_gflops", 1)},
                                  {"peak GFLOP/s (one core)", num(c, "peak_gflops_one_core", 1)},
                                  {"measured at", when},
                                  {"load average then", num(c, "load_average", 2)},
                                  {"measuring took (s)", num(c, "seconds", 1)}});
  const json all = c.value("bandwidth", json::array()), one = c.value("bandwidth_one_core", json::array());
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < all.size(); ++i) {
    const double bytes = all[i].value("bytes", 0.0);
    rows.push_back(
        {bytes >= 1 << 20 ? FormatDouble(bytes / (1 << 20), 1) + " MiB" : FormatDouble(bytes / 1024, 0) + " KiB",
         num(all[i], "gbps", 1), i < one.size() ? num(one[i], "gbps", 1) : "-"});
  }
  if (!rows.empty()) {
    std::cout << "\nroofline bandwidth per working set\n";
    PrintTable({"WORKING SET", "GB/S (ALL CORES)", "GB/S (ONE CORE)"}, rows);
  }
  return kExitOk;
}

int CmdHealth(ApiClient& api, const Options& o) {
  auto r = api.Call("GET", "/v1/health");
  if (!r.ok()) return TransportError(r.status());
  if (o.json_output)
    std::cout << Dump(r->body, 2) << "\n";
  else {
    // The daemon accepts the test-only Neuron SDK stand-in's figures: said first.
    if (const json t = r->body.value("test_stand_in", json()); t.is_object()) {
      std::cout << t.value("notice", "TEST STAND-IN FIGURES") << " (allowed for evaluators "
                << Dump(t.value("allowed_for", json::array())) << ")\n";
    }
    std::cout << r->body.value("status", "?") << "\n";
    if (const json c = r->body.value("calibration", json()); c.is_object()) {
      std::cout << "cpu calibration: " << c.value("state", "?") << " since "
                << FormatUtc(c.value("since_us", int64_t{0})) << ", " << c.value("attempts", 0) << " attempts"
                << (c.contains("next_attempt_us") ? ", next at " + FormatUtc(c.value("next_attempt_us", int64_t{0}))
                                                  : "")
                << ": " << c.value("reason", "") << "\n  " << c.value("fix", "") << "\n";
    }
    if (const json b = r->body.value("backends", json()); b.is_object()) {
      for (const auto& [name, h] : b.items()) {
        const json rc = h.value("reference_cache", json());
        if (!rc.is_object()) continue;
        auto gib = [](const json& v) {
          if (!v.is_number()) return std::string("not measured yet");
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.2f GiB", v.get<double>() / (1 << 30));
          return std::string(buf);
        };
        const double limit = rc.value("limit_bytes", 0.0);
        std::cout << name << " reference cache: " << gib(rc.value("bytes", json())) << " of "
                  << (limit > 0 ? gib(limit) : std::string("no limit")) << " (" << rc.value("folder", "") << ")\n";
      }
    }
  }
  return r->http_status == 200 ? kExitOk : kExitError;
}

}  // namespace accelopt::cli
