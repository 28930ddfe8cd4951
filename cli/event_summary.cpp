#include "cli/event_summary.hpp"

#include <time.h>

#include "cli/output.hpp"
#include "workflows/activity_id.hpp"

namespace accelopt::cli {

namespace {

// Ids are shown within their campaign: "p0/it2/eval/b0/n1/k0".
using workflows::activity_id::WithinCampaign;

std::string S(const json& d, const char* k) {
  if (!d.contains(k)) return "";
  return d[k].is_string() ? d[k].get<std::string>() : Dump(d[k]);
}
std::string Cut(std::string s, size_t n = 100) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s.size() > n ? s.substr(0, n) + "..." : s;
}
std::string Where(const json& d) {
  std::string s;
  if (d.contains("problem") && d["problem"].is_number()) s += "p" + std::to_string(d["problem"].get<int>());
  if (d.contains("iteration") && d["iteration"].is_number()) s += " it" + std::to_string(d["iteration"].get<int>());
  return s;
}
std::string Num(const json& d, const char* k, int precision) {
  return d.contains(k) && d[k].is_number() ? FormatDouble(d[k].get<double>(), precision) : "-";
}
std::string Size(const json& d, const char* k) {
  return d.contains(k) && d[k].is_array() ? std::to_string(d[k].size()) : "0";
}

std::string Evaluation(const json& r) {
  std::string s = S(r, "status");
  const json lat = r.value("latency", json());
  if (lat.is_object()) s += " " + FormatMicros(lat.value("median_us", lat.value("mean_us", 0.0)));
  if (lat.is_object() && lat.contains("spread")) s += " ±" + FormatDouble(100 * lat.value("spread", 0.0), 1) + "%";
  if (r.contains("percent_of_peak") && r["percent_of_peak"].is_number())
    s += ", " + FormatDouble(r["percent_of_peak"].get<double>(), 2) + "% of peak";
  const json cmp = r.value("comparison", json());
  if (cmp.is_object()) s += ", " + FormatDouble(cmp.value("speedup", 0.0)) + "x over the baseline";
  if (S(r, "status") != "ok" && !S(r, "reason").empty()) s += ": " + Cut(S(r, "reason"), 90);
  if (r.value("hardware", json::object()).value("test_stand_in", false)) s += " [TEST STAND-IN, NOT a measurement]";
  return s;
}

std::string Summary(const std::string& type, const json& d) {
  if (type == "CampaignStarted") {
    std::string names;
    for (const auto& p : d.value("problems", json::array())) names += (names.empty() ? "" : ", ") + S(p, "name");
    const json q = d.value("spec", json::object()).value("search", json::object());
    return S(d, "campaign_id") + ": " + names + " (T=" + Num(q, "T", 0) + " B=" + Num(q, "B", 0) +
           " N=" + Num(q, "N", 0) + " K=" + Num(q, "K", 0) + ", mode " +
           d.value("spec", json::object()).value("mode", "?") + ")";
  }
  if (type == "CampaignCompleted") return S(d, "status") + (S(d, "reason").empty() ? "" : ": " + Cut(S(d, "reason")));
  if (type == "CampaignFailed" || type == "CampaignCancelled" || type == "CampaignInterrupted")
    return Cut(S(d, "reason"));
  if (type == "StandInFiguresNoted") return S(d, "notice") + "; memory " + S(d, "memory") + "; " + S(d, "ranking");
  if (type == "BudgetExhausted") return S(d, "resource") + " budget exhausted";
  if (type == "IterationStarted") return Where(d);
  if (type == "BeamSelected") {
    std::string s = Where(d) + ":";
    for (const auto& m : d.value("members", json::array()))
      s += " " + WithinCampaign(S(m, "origin")) +
           (m.value("latency_us", 0.0) > 0 ? " " + FormatMicros(m.value("latency_us", 0.0)) : "") +
           (m.value("standin", false) ? " (stand-in)" : "") + ";";
    return Cut(s, 160);
  }
  if (type == "ExperiencesCredited") return Where(d) + ": " + Size(d, "credits") + " credits";
  if (type == "MemoryPairsSelected") return Where(d) + ": " + Size(d, "pairs") + " pairs to summarize";
  if (type == "MemoryUpdated")
    return Where(d) + ": " + Size(d, "added") + " added, " + Size(d, "retained") + " retained, " + Size(d, "failed") +
           " failed" + (d.contains("bank") ? " (bank " + S(d, "bank") + ")" : "");
  if (type == "MemorySnapshotTaken")
    return WithinCampaign(S(d, "activity_id")) + ": bank " + S(d, "bank") + " v" + S(d, "bank_version") + ", " +
           Size(d, "items") + " items";
  if (type == "PlanProposed")
    return Where(d) + " b" + S(d, "beam") + "/n" + S(d, "plan") + ": " +
           (d.value("ok", false) ? "\"" + Cut(S(d, "title"), 90) + "\"" : "failed: " + Cut(S(d, "error")));
  if (type == "CandidateProposed" || type == "FixProposed")
    return WithinCampaign(S(d, "candidate_id")) + (type == "FixProposed" ? " fix " + S(d, "attempt") : "") + ": " +
           (d.value("ok", false) ? "code" : "no usable code (" + S(d, "failure") + ")");
  if (type == "EvaluationReused")
    return WithinCampaign(S(d, "candidate_id")) + ": same code as " + WithinCampaign(S(d, "reused_activity"));
  if (type == "BestSelected")
    return Where(d) + ": " + WithinCampaign(S(d, "origin")) + " " + FormatMicros(d.value("latency_us", 0.0));
  if (type == "ProblemCompleted")
    return Where(d) + ": " + S(d, "status") + (S(d, "reason").empty() ? "" : " (" + Cut(S(d, "reason")) + ")");
  if (type == "ActivityScheduled")
    return WithinCampaign(S(d, "activity_id")) + ": " + S(d, "kind") + " " + S(d, "role") + "/" + S(d, "purpose");
  if (type == "LlmCallCompleted") {
    const json u = d.value("usage", json::object());
    return WithinCampaign(S(d, "activity_id")) + ": " + S(d, "provider") + "/" + S(d, "model") + ", " +
           Num(u, "input_tokens", 0) + " in / " + Num(u, "output_tokens", 0) + " out tokens, $" +
           Num(d, "cost_usd", 6) + ", " + Num(d, "latency_s", 2) + " s";
  }
  if (type == "LlmCallFailed") return WithinCampaign(S(d, "activity_id")) + ": failed: " + Cut(S(d, "error"));
  if (type == "EvaluationCompleted")
    return WithinCampaign(S(d, "activity_id")) + ": " + Evaluation(d.value("result", json::object()));
  if (type == "EvaluationPlaced") {
    const json p = d.value("placement", json::object());
    return WithinCampaign(S(d, "activity_id")) + ": " + S(p, "executor") + " job " + S(p, "job_id") + " (attempt " +
           Num(p, "attempt", 0) + ")";
  }
  if (type == "EvaluationFailed") return WithinCampaign(S(d, "activity_id")) + ": failed: " + Cut(S(d, "error"));
  if (d.empty()) return "";
  return Cut(Dump(d), 120);
}

}  // namespace

std::string EventLine(const json& e) {
  std::string when = "--:--:--";
  const int64_t us = e.value("recorded_at_us", int64_t{0});
  if (us > 0) {
    const time_t t = static_cast<time_t>(us / 1000000);
    struct tm tm {};
    gmtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
    when = buf;
  }
  const std::string type = e.value("type", "?");
  return std::to_string(e.value("version", 0)) + "  " + when + "  " + type + "  " +
         Summary(type, e.value("data", json::object()));
}

}  // namespace accelopt::cli
