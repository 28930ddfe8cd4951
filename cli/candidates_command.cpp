// acceloptctl candidates ID [--problem P] [--iteration I]: every candidate
// of a campaign with its result (GET /v1/campaigns/{id}/candidates),
// filtered on this side.
#include <iostream>

#include "cli/commands.hpp"

namespace accelopt::cli {

int CmdCandidates(ApiClient& api, const Options& o) {
  if (o.args.empty()) {
    std::cerr << "acceloptctl candidates: campaign id required\n";
    return kExitUsage;
  }
  auto r = Ask(api, "GET", "/v1/campaigns/" + o.args[0] + "/candidates");
  if (!r.ok()) return r.exit_code;
  auto wanted = [&](const json& c) {
    if (o.iteration >= 0 && c.value("iteration", -1) != o.iteration) return false;
    if (o.problems.empty()) return true;
    for (const auto& p : o.problems)
      if (c.value("problem", "") == p) return true;
    return false;
  };
  json out = json::array();
  for (const auto& c : r.body.value("candidates", json::array()))
    if (wanted(c)) out.push_back(c);
  if (o.json_output) {
    std::cout << Dump({{"campaign", r.body.value("campaign", "")}, {"candidates", out}}, 2) << "\n";
    return kExitOk;
  }
  const std::string prefix = o.args[0] + "/";
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : out) {
    std::string id = c.value("id", "");
    if (id.rfind(prefix, 0) == 0) id = id.substr(prefix.size());
    std::string result = !c.value("ok", false)         ? c.value("failure", "failed")
                         : c.value("evaluated", false) ? c.value("status", "?")
                                                       : "not evaluated yet";
    const bool correct = c.value("correct", false);
    rows.push_back({c.value("problem", "?"), std::to_string(c.value("iteration", 0)), id, result,
                    correct && c["latency_us"].is_number() ? FormatMicros(c["latency_us"].get<double>()) : "-"});
  }
  PrintTable({"PROBLEM", "IT", "CANDIDATE", "RESULT", "LATENCY"}, rows);
  return kExitOk;
}

}  // namespace accelopt::cli
