// Suites, baseline profiling, calibration, health; and the
// shared error printing.
#include <iostream>

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

int Simple(ApiClient& api, const Options& o, const std::string& method, const std::string& path,
           const json* body, std::chrono::milliseconds timeout) {
  auto r = api.Call(method, path, body, timeout);
  if (!r.ok()) return TransportError(r.status());
  if (r->http_status >= 300) return ReplyError(*r);
  std::cout << Dump(r->body, 2) << "\n";
  return kExitOk;
}

int CmdSuites(ApiClient& api, const Options& o) {
  auto r = api.Call("GET", "/v1/suites");
  if (!r.ok()) return TransportError(r.status());
  if (r->http_status >= 300) return ReplyError(*r);
  if (o.json_output) { std::cout << Dump(r->body, 2) << "\n"; return kExitOk; }
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : r->body.value("suites", json::array()))
    for (const auto& p : s.value("problems", json::array()))
      rows.push_back({s.value("name", "?"), p.value("name", "?"), p.value("bound", ""), p.value("workload", "").substr(0, 60)});
  PrintTable({"SUITE", "PROBLEM", "BOUND", "WORKLOAD"}, rows);
  return kExitOk;
}

int CmdBaseline(ApiClient& api, const Options& o) {
  json body = {{"suite", o.args.empty() ? "cpu" : o.args[0]}};
  if (!o.json_output) std::cerr << "profiling baselines of suite " << body["suite"].get<std::string>() << "...\n";
  auto r = api.Call("POST", "/v1/baseline", &body, std::chrono::minutes(30));
  if (!r.ok()) return TransportError(r.status());
  if (r->http_status >= 300) return ReplyError(*r);
  if (o.json_output) { std::cout << Dump(r->body, 2) << "\n"; return kExitOk; }
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : r->body.value("problems", json::array())) {
    rows.push_back({p.value("problem", "?"), p.value("status", "?"),
                    p.contains("latency_us") && p["latency_us"].is_number() ? FormatMicros(p["latency_us"].get<double>()) : "-",
                    p.contains("percent_of_peak") && p["percent_of_peak"].is_number() ? FormatDouble(p["percent_of_peak"].get<double>(), 1) + "%" : "-"});
  }
  PrintTable({"PROBLEM", "STATUS", "LATENCY", "%PEAK"}, rows);
  return kExitOk;
}

int CmdCalibrate(ApiClient& api, const Options& o) {
  json body = {{"backend", o.args.empty() ? "cpu" : o.args[0]}, {"force", o.force}, {"force_busy", o.force_busy}};
  if (o.force && !o.json_output) std::cerr << "re-measuring peak FLOP/s and bandwidth (a few seconds; keep the machine quiet)...\n";
  return Simple(api, o, "POST", "/v1/calibrate", &body, std::chrono::minutes(5));
}

int CmdHealth(ApiClient& api, const Options& o) {
  auto r = api.Call("GET", "/v1/health");
  if (!r.ok()) return TransportError(r.status());
  if (o.json_output) std::cout << Dump(r->body, 2) << "\n";
  else std::cout << r->body.value("status", "?") << "\n";
  return r->http_status == 200 ? kExitOk : kExitError;
}

}  // namespace accelopt::cli
