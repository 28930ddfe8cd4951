// The replay side of `acceloptctl report` (commands.hpp, ReplaySideBySide):
// a campaign submitted with --replay-from is shown beside the campaign it
// replayed, problem by problem, with how many of its LLM calls took a
// recorded reply and how many went to the live model.
#include <iostream>

#include "cli/commands.hpp"

namespace accelopt::cli {
namespace replay_report_impl {

// A candidate id without its campaign ("p0/it1/cand/b0/n0/k1"): the same
// path in the original and the replay is the same decision.
json Path(const json& id) {
  if (!id.is_string()) return id;
  const std::string s = id.get<std::string>();
  const size_t slash = s.find('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

json Side(const json& p) {
  const json best = p.value("best", json());
  return {{"speedup", p.value("speedup", json())},
          {"speedup_low", p.value("speedup_low", json())},
          {"speedup_high", p.value("speedup_high", json())},
          {"best_percent_of_peak", best.is_object() ? best.value("percent_of_peak", json()) : json()},
          {"best_candidate", best.is_object() ? Path(best.value("candidate_id", json())) : json()},
          {"status", p.value("status", json())}};
}

std::string Speedup(const json& s) {
  if (!s["speedup"].is_number()) return "-";
  std::string cell = FormatDouble(s["speedup"].get<double>()) + "x";
  if (s["speedup_low"].is_number() && s["speedup_high"].is_number()) {
    cell +=
        " [" + FormatDouble(s["speedup_low"].get<double>()) + "-" + FormatDouble(s["speedup_high"].get<double>()) + "]";
  }
  return cell;
}

std::string Pct(const json& v) { return v.is_number() ? FormatDouble(v.get<double>(), 2) + "%" : "-"; }

}  // namespace replay_report_impl

std::optional<json> ReplaySideBySide(ApiClient& api, const std::string& id, const json& report, int* exit_code) {
  namespace impl = replay_report_impl;
  auto c = Ask(api, "GET", "/v1/campaigns/" + id);
  if (!c.ok()) {
    *exit_code = c.exit_code;
    return std::nullopt;
  }
  const json replay = c.body.value("spec", json::object()).value("replay", json());
  if (!replay.is_object() || replay.value("from", "").empty()) return json();
  const std::string from = replay["from"];
  auto o = Ask(api, "GET", "/v1/campaigns/" + from + "/report");
  if (!o.ok()) {
    *exit_code = o.exit_code;
    return std::nullopt;
  }
  json problems = json::array();
  for (const json& p : report.value("problems", json::array())) {
    json original;
    for (const json& q : o.body.value("problems", json::array())) {
      if (q.value("name", "") == p.value("name", "")) original = impl::Side(q);
    }
    problems.push_back({{"name", p.value("name", "")}, {"original", original}, {"replay", impl::Side(p)}});
  }
  // Which calls took a recorded reply (replayed_from) and which the model.
  int replayed = 0, live = 0;
  auto ev = Ask(api, "GET", "/v1/campaigns/" + id + "/events?after=0&limit=100000");
  if (!ev.ok()) {
    *exit_code = ev.exit_code;
    return std::nullopt;
  }
  for (const json& e : ev.body.value("events", json::array())) {
    if (e.value("type", "") != "LlmCallCompleted") continue;
    (e.value("data", json::object()).contains("replayed_from") ? replayed : live) += 1;
  }
  return json{{"original", from},
              {"on_miss", replay.value("on_miss", "stop")},
              {"problems", problems},
              {"llm_calls", {{"replayed", replayed}, {"live", live}}}};
}

void PrintReplaySideBySide(const json& side) {
  namespace impl = replay_report_impl;
  std::cout << "\nreplay of " << side["original"].get<std::string>()
            << ", side by side (the recorded LLM replies, this host's judge): "
            << side["llm_calls"]["replayed"].get<int>() << " calls replayed, " << side["llm_calls"]["live"].get<int>()
            << " live\n";
  std::vector<std::vector<std::string>> rows;
  for (const json& p : side["problems"]) {
    const json& a = p["original"];
    const json& b = p["replay"];
    const bool has = a.is_object();
    rows.push_back({p["name"], has ? impl::Speedup(a) : "(not in the original)", impl::Speedup(b),
                    has ? impl::Pct(a["best_percent_of_peak"]) : "-", impl::Pct(b["best_percent_of_peak"]),
                    has && a["best_candidate"] == b["best_candidate"] ? "same" : "differs"});
    // The judge here measured differently: the same decisions, other numbers.
  }
  PrintTable(
      {"PROBLEM", "ORIGINAL SPEEDUP", "REPLAY SPEEDUP", "ORIGINAL BEST %PEAK", "REPLAY BEST %PEAK", "BEST (PATH)"},
      rows);
}

}  // namespace accelopt::cli
