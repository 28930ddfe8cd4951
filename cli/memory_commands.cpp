// acceloptctl memory: list | show | export | import | retire | rebuild | redistill.
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"

namespace accelopt::cli {
namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string GenerationQuery(const Options& o) {
  return o.generation > 0 ? "?generation=" + std::to_string(o.generation) : "";
}

int List(ApiClient& api, const Options& o) {
  auto r = Ask(api, "GET", "/v1/memory");
  if (!r.ok()) return r.exit_code;
  if (o.json_output) {
    std::cout << Dump(r.body, 2) << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : r.body.value("banks", json::array())) {
    rows.push_back({b.value("bank", "?"), std::to_string(b.value("generation", 1)), std::to_string(b.value("items", 0)),
                    std::to_string(b.value("retired", 0)), std::to_string(b.value("tainted", 0)),
                    std::to_string(b.value("campaigns", 0)), b.value("redistilling", 0) > 0 ? "re-distilling" : "",
                    std::to_string(b.value("version", 0))});
  }
  if (rows.empty()) {
    std::cerr << "no memory banks yet (a campaign with memory.scope \"bank\" or an import creates one)\n";
  } else {
    PrintTable({"BANK", "GEN", "ITEMS", "RETIRED", "TAINTED", "CAMPAIGNS", "", "EVENTS"}, rows);
  }
  // Problem-scope memory lives in its campaign; say where it is.
  std::vector<std::vector<std::string>> own;
  for (const auto& c : r.body.value("problem_scope", json::array())) {
    own.push_back({c.value("campaign", "?"), c.value("problem", "?"), std::to_string(c.value("items", 0)),
                   std::to_string(c.value("credit", 0))});
  }
  if (!own.empty()) {
    std::cout << (rows.empty() ? "" : "\n")
              << "memory of problem-scope campaigns (items: acceloptctl report CAMPAIGN --html F, "
              << "or GET /v1/campaigns/CAMPAIGN/report)\n";
    PrintTable({"CAMPAIGN", "PROBLEM", "ITEMS", "CREDIT"}, own);
  }
  return kExitOk;
}

int Show(ApiClient& api, const Options& o, const std::string& bank) {
  auto r = Ask(api, "GET", "/v1/memory/" + bank + GenerationQuery(o));
  if (!r.ok()) return r.exit_code;
  if (o.json_output) {
    std::cout << Dump(r.body, 2) << "\n";
    return kExitOk;
  }
  const json& b = r.body;
  std::cout << "bank " << b.value("bank", bank) << ": generation " << b.value("shown_generation", 1) << " (current "
            << b.value("generation", 1) << "), " << b.value("version", 0) << " events\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& it : b.value("items", json::array())) {
    std::string state;
    if (it.value("retired", false))
      state = "retired";
    else if (!it.value("tainted_by", json::array()).empty())
      state = "tainted";
    std::string title = it.value("title", "");
    if (title.size() > 60) title = title.substr(0, 57) + "...";
    rows.push_back({it.value("id", "?"), it.value("kind", ""), it.value("problem", ""), title,
                    Fixed(it.value("speedup", 1.0), 2) + "x", std::to_string(it.value("credit", 0)), state});
  }
  PrintTable({"ID", "KIND", "PROBLEM", "TITLE", "SPEEDUP", "CREDIT", "STATE"}, rows);
  for (const auto& d : b.value("redistills", json::array())) {
    std::cout << "re-distillation " << d.value("redistill_id", "?") << " (" << d.value("provider", "") << "/"
              << d.value("model", "") << " -> generation " << d.value("generation", 0)
              << "): " << d.value("status", "?") << ", " << d.value("done", 0) << "/" << d.value("pairs", 0)
              << " pairs, " << d.value("added", 0) << " items, $" << Fixed(d.value("cost_usd", 0.0), 4) << "\n";
  }
  return kExitOk;
}

// Polls the bank until re-distillation `id` completes; progress on stderr.
int WaitRedistill(ApiClient& api, const std::string& bank, const std::string& id) {
  size_t last_done = static_cast<size_t>(-1);
  for (;;) {
    auto r = Ask(api, "GET", "/v1/memory/" + bank);
    if (!r.ok()) return r.exit_code;
    for (const auto& d : r.body.value("redistills", json::array())) {
      if (d.value("redistill_id", "") != id) continue;
      const size_t done = d.value("done", size_t{0});
      if (done != last_done) {
        std::cerr << "re-distillation " << id << ": " << done << "/" << d.value("pairs", 0) << " pairs, "
                  << d.value("added", 0) << " items\n";
        last_done = done;
      }
      if (d.value("status", "") == "completed") return kExitOk;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace

int CmdMemory(ApiClient& api, const Options& o) {
  static const char kUsage[] =
      "acceloptctl memory: one of list, show BANK, export BANK, import BANK --file F, "
      "retire BANK ITEM..., rebuild BANK, redistill BANK\n";
  if (o.args.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const std::string& sub = o.args[0];
  if (sub == "list") return List(api, o);
  if (sub != "show" && sub != "export" && sub != "import" && sub != "retire" && sub != "rebuild" &&
      sub != "redistill") {
    std::cerr << "acceloptctl memory: unknown subcommand '" << sub << "'\n" << kUsage;
    return kExitUsage;
  }
  if (o.args.size() < 2) {
    std::cerr << "acceloptctl memory " << sub << ": bank name required\n";
    return kExitUsage;
  }
  const std::string& bank = o.args[1];
  if (sub == "show") return Show(api, o, bank);
  if (sub == "export") {
    auto r = Ask(api, "GET", "/v1/memory/" + bank + "/export" + GenerationQuery(o));
    if (!r.ok()) return r.exit_code;
    if (o.file.empty()) {
      std::cout << Dump(r.body, 2) << "\n";
      return kExitOk;
    }
    std::ofstream out(o.file);
    out << Dump(r.body, 2) << "\n";
    if (!out) {
      std::cerr << "acceloptctl: cannot write " << o.file << "\n";
      return kExitError;
    }
    std::cerr << "wrote " << r.body.value("items", json::array()).size() << " items to " << o.file << "\n";
    return kExitOk;
  }
  if (sub == "import") {
    if (o.file.empty()) {
      std::cerr << "acceloptctl memory import: --file FILE required\n";
      return kExitUsage;
    }
    auto j = ReadJsonFile(o.file);
    if (!j.ok()) {
      std::cerr << "acceloptctl: " << j.status().message() << "\n";
      return kExitUsage;
    }
    json body = {{"data", *j}, {"format", o.format.empty() ? "auto" : o.format}};
    return Simple(api, o, "POST", "/v1/memory/" + bank + "/import", &body);
  }
  if (sub == "retire") {
    if (o.args.size() < 3) {
      std::cerr << "acceloptctl memory retire: name the items to retire (ids from 'memory show')\n";
      return kExitUsage;
    }
    json body = {{"items", std::vector<std::string>(o.args.begin() + 2, o.args.end())}, {"reason", o.reason}};
    return Simple(api, o, "POST", "/v1/memory/" + bank + "/retire", &body);
  }
  if (sub == "rebuild")
    return Simple(api, o, "POST", "/v1/memory/" + bank + "/rebuild", nullptr, std::chrono::minutes(10));
  // redistill
  json body = json::object();
  json summarizer = json::object();
  if (!o.provider.empty()) summarizer["provider"] = o.provider;
  if (!o.model.empty()) summarizer["model"] = o.model;
  if (!summarizer.empty()) body["summarizer"] = summarizer;
  if (!o.campaigns.empty()) body["campaigns"] = o.campaigns;
  if (o.max_pairs > 0) body["max_pairs"] = o.max_pairs;
  auto r = Ask(api, "POST", "/v1/memory/" + bank + "/redistill", &body);
  if (!r.ok()) return r.exit_code;
  if (o.json_output)
    std::cout << Dump(r.body, 2) << "\n";
  else
    std::cerr << "re-distilling " << r.body.value("pairs", 0) << " pairs of bank " << bank << " into generation "
              << r.body.value("generation", 0) << " (" << r.body.value("redistill_id", "?") << ")\n";
  if (!o.wait) return kExitOk;
  return WaitRedistill(api, bank, r.body.value("redistill_id", ""));
}

}  // namespace accelopt::cli
