// Campaign subcommands: submit, list, get, events, wait, cancel/pause/resume,
// best, report.
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "base/text.hpp"
#include "cli/event_summary.hpp"

namespace accelopt::cli {
namespace {

bool IsTerminal(const std::string& state) {
  return state == "completed" || state == "partial" || state == "failed" || state == "cancelled" ||
         state == "budget_exhausted";
}

std::string Path(const std::string& id, const std::string& rest = "") { return "/v1/campaigns/" + id + rest; }

// --set a.b=3 writes 3 (parsed as JSON if it parses, else a string) at a.b.
void ApplySet(json& spec, const std::string& kv) {
  auto eq = kv.find('=');
  std::string key = kv.substr(0, eq);
  std::string val = eq == std::string::npos ? "true" : kv.substr(eq + 1);
  auto parsed = ParseJson(val);
  json* node = &spec;
  size_t pos = 0;
  while (true) {
    auto dot = key.find('.', pos);
    std::string part = key.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    if (dot == std::string::npos) {
      (*node)[part] = parsed.ok() ? *parsed : json(val);
      break;
    }
    node = &(*node)[part];
    pos = dot + 1;
  }
}

// "waiting for provider 'local' since 2026-12-01 10:00:00 UTC (3 calls): ..."
// for each provider a campaign summary says it waits for; "" when none.
std::string WaitingLine(const json& summary) {
  std::string out;
  for (const auto& w : summary.value("waiting", json::array())) {
    if (!out.empty()) out += "; ";
    out += "waiting for provider '" + w.value("provider", "?") + "' since " +
           FormatUtc(w.value("since_us", int64_t{0})) + " (" + std::to_string(w.value("calls", 0)) +
           " calls): " + w.value("error", "");
  }
  if (const json c = summary.value("calibration", json()); c.is_object() && c.value("state", "") != "ready") {
    if (!out.empty()) out += "; ";
    out += "cpu evaluations waiting for a calibration since " + FormatUtc(c.value("since_us", int64_t{0})) + " (" +
           std::to_string(c.value("attempts", 0)) + " attempts, " +
           (c.contains("next_attempt_us") ? "next at " + FormatUtc(c.value("next_attempt_us", int64_t{0}))
                                          : std::string("measuring now")) +
           "): " + c.value("reason", "") + "; " + c.value("fix", "");
  }
  return out;
}

// A problem's speedup as the report means it: "none" when nothing beat the
// baseline, "1.03x (noise)" when the best is not faster beyond the noise.
std::string SpeedupCell(const json& p) {
  const std::string improvement = p.value("improvement", json()).is_string() ? p["improvement"].get<std::string>() : "";
  if (improvement == "none") return "none";
  if (!p.contains("speedup") || !p["speedup"].is_number()) return "-";
  std::string cell = FormatDouble(p["speedup"].get<double>()) + "x";
  // The headline (workflows/report.hpp): the final interleaved re-measurement
  // against the baseline, with its ~95% interval and noisy flag.
  if (p.value("speedup_low", json()).is_number() && p.value("speedup_high", json()).is_number()) {
    cell +=
        " [" + FormatDouble(p["speedup_low"].get<double>()) + "-" + FormatDouble(p["speedup_high"].get<double>()) + "]";
  }
  if (p.value("speedup_noisy", json()) == true) cell += " NOISY";
  // Not (yet) the final re-measurement: the best so far, from separate runs.
  if (p.value("speedup_source", json()) == "separate")
    cell += p.value("status", "") == "running" ? " (so far)" : " (separate runs)";
  if (improvement == "within_noise") cell += " (noise)";
  return cell;
}

void PrintSummary(const json& c) {
  if (c.value("test_stand_in", json()).is_string()) std::cout << c["test_stand_in"].get<std::string>() << "\n";
  std::cout << "campaign " << c.value("id", "?") << ": " << c.value("state", "?") << "\n";
  if (!c.value("reason", "").empty()) std::cout << "reason: " << c.value("reason", "") << "\n";
  if (std::string w = WaitingLine(c); !w.empty()) std::cout << w << "\n";
  if (c.contains("spend")) {
    const auto& s = c["spend"];
    std::cout << "spend: $" << FormatDouble(s.value("cost_usd", 0.0), 4) << ", " << s.value("tokens", 0) << " tokens, "
              << s.value("llm_calls", 0) << " LLM calls, " << s.value("evaluations", 0) << " evaluations\n";
  }
  if (c.contains("error") && !c["error"].is_null()) std::cout << "error: " << JsonToCell(c["error"]) << "\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : c.value("problems", json::array())) {
    rows.push_back(
        {p.value("name", "?"), std::to_string(p.value("iteration", 0)) + "/" + std::to_string(p.value("iterations", 0)),
         p.contains("baseline_us") && p["baseline_us"].is_number() ? FormatMicros(p["baseline_us"].get<double>()) : "-",
         p.contains("best_us") && p["best_us"].is_number() ? FormatMicros(p["best_us"].get<double>()) : "-",
         SpeedupCell(p),
         p.contains("percent_of_peak") && p["percent_of_peak"].is_number()
             ? FormatDouble(p["percent_of_peak"].get<double>(), 1) + "%"
             : "-",
         p.value("status", "")});
  }
  if (!rows.empty()) PrintTable({"PROBLEM", "ITER", "BASELINE", "BEST", "SPEEDUP", "%PEAK", "STATUS"}, rows);
}

std::string NumberOr(const json& j, const char* key, int precision, const std::string& suffix = "") {
  return j.contains(key) && j[key].is_number() ? FormatDouble(j[key].get<double>(), precision) + suffix : "-";
}

// Start, end and duration of a campaign (report_detail.hpp's fields).
void PrintTimes(const json& rep) {
  auto when = [](const json& v) -> std::string { return v.is_number() ? FormatUtc(v.get<int64_t>()) : "-"; };
  const json end = rep.value("ended_at_us", json());
  std::cout << "started " << when(rep.value("started_at_us", json())) << ", "
            << (end.is_number() ? "ended " + when(end) : std::string("still running")) << ", duration "
            << NumberOr(rep, "duration_s", 1, " s") << "\n";
}

// Per problem and iteration: the best kernel so far, its latency, % of
// peak, GFLOP/s and GB/s, and the problem's bound.
void PrintIterations(const json& rep) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : rep.value("problems", json::array())) {
    for (const auto& t : p.value("trace", json::array())) {
      const json best = t.value("best_latency_us", json());
      rows.push_back({p.value("name", "?"), p.value("bound", ""), std::to_string(t.value("iteration", 0)),
                      best.is_number() ? FormatMicros(best.get<double>()) : "-",
                      NumberOr(t, "best_percent_of_peak", 2, "%"), NumberOr(t, "gflops", 2), NumberOr(t, "gbs", 2)});
    }
  }
  if (rows.empty()) return;
  std::cout << "\nbest kernel so far after each iteration (that iteration's own measurement; the final best is "
               "re-measured at the end)\n";
  PrintTable({"PROBLEM", "BOUND", "IT", "LATENCY", "%PEAK", "GFLOP/S", "GB/S"}, rows);
}

// GET .../report.html into `file` ("-": stdout).
int WriteHtmlReport(ApiClient& api, const std::string& id, const std::string& file) {
  auto r = Ask(api, "GET", Path(id, "/report.html"), nullptr, std::chrono::seconds(120));
  if (!r.ok()) return r.exit_code;
  return WriteOutputFile(file, r.body.value("raw", ""), "acceloptctl report");
}

}  // namespace

int ExitCodeForState(const std::string& state) {
  if (state == "failed") return kExitFailed;
  if (state == "partial") return kExitPartial;
  if (state == "cancelled") return kExitCancelled;
  if (state == "budget_exhausted") return kExitBudget;
  return kExitOk;
}

int CmdSubmit(ApiClient& api, const Options& o) {
  json spec = json::object();
  if (!o.args.empty()) {
    auto j = ReadJsonFile(o.args[0]);
    if (!j.ok()) {
      std::cerr << "acceloptctl: " << j.status().message() << "\n";
      return kExitUsage;
    }
    spec = *j;
  }
  if (!o.replay_on_miss.empty() && o.replay_from.empty()) {
    std::cerr << "acceloptctl submit: --on-miss needs --replay-from CAMPAIGN\n";
    return kExitUsage;
  }
  if (!o.replay_from.empty()) {
    if (o.args.empty()) {  // the recorded campaign's own spec
      auto got = Ask(api, "GET", Path(o.replay_from, ""));
      if (!got.ok()) return got.exit_code;
      spec = got.body.value("spec", json::object());
    }
    spec["replay"] = {{"from", o.replay_from}, {"on_miss", o.replay_on_miss.empty() ? "stop" : o.replay_on_miss}};
  }
  if (!o.problems.empty()) spec["problems"] = o.problems;
  for (const auto& s : o.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq + 1 == s.size() || eq == 0) {
      std::cerr << "acceloptctl: --set " << s << ": " << (eq == 0 ? "no field given" : "no value given")
                << " (write --set FIELD=VALUE, e.g. --set "
                << (eq == 0 || s.empty() ? std::string("search.T") : s.substr(0, eq)) << "=4)\n";
      return kExitUsage;
    }
    ApplySet(spec, s);
  }
  json body = {{"spec", spec}};
  // A spec the daemon refuses is a usage error, like a file that is not JSON.
  auto refused = [](const Answer& a) {
    return a.http_status == 400 && a.body.contains("error") && a.body["error"].is_object() &&
           a.body["error"].value("code", "") == "invalid_argument";
  };
  if (o.dry_run) {
    auto r = Ask(api, "POST", "/v1/campaigns/check", &body);
    if (!r.ok()) return refused(r) ? kExitUsage : r.exit_code;
    if (o.json_output) {
      std::cout << Dump(r.body, 2) << "\n";
    } else {
      std::string problems;
      for (const auto& p : r.body.value("problems", json::array()))
        problems += (problems.empty() ? "" : ", ") + p.get<std::string>();
      std::cout << (o.args.empty() ? std::string("spec") : o.args[0]) << ": ok (would start " << problems
                << "); nothing was submitted\n";
    }
    return kExitOk;
  }
  if (!o.idempotency_key.empty()) body["idempotency_key"] = o.idempotency_key;
  auto r = Ask(api, "POST", "/v1/campaigns", &body);
  if (!r.ok()) return refused(r) ? kExitUsage : r.exit_code;
  std::string id = r.body.value("id", "");
  if (o.json_output && !o.wait && !o.follow) {
    std::cout << Dump(r.body, 2) << "\n";
  } else if (!o.json_output) {
    std::cerr << (r.body.value("created", true) ? "submitted campaign " : "already submitted: campaign ") << id << "\n";
    if (!o.wait && !o.follow) std::cout << id << "\n";
  }
  if (o.wait || o.follow) return FollowCampaign(api, id, o, o.follow);
  return kExitOk;
}

namespace {

// One listing of the campaigns (those in o.state when given); `*ended`:
// whether every campaign listed has ended (true for an empty listing).
int ListOnce(ApiClient& api, const Options& o, bool clear, bool* ended) {
  auto r = Ask(api, "GET", "/v1/campaigns");
  if (!r.ok()) return r.exit_code;
  json campaigns = json::array();
  for (const auto& c : r.body.value("campaigns", json::array()))
    if (o.state.empty() || c.value("state", "") == o.state) campaigns.push_back(c);
  *ended = true;
  for (const auto& c : campaigns) *ended = *ended && IsTerminal(c.value("state", ""));
  if (o.json_output) {
    std::cout << Dump({{"campaigns", campaigns}}, o.watch ? -1 : 2) << "\n" << std::flush;
    return kExitOk;
  }
  if (clear) std::cout << "\033[H\033[2J";
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : campaigns) {
    const auto spend = c.value("spend", json::object());
    std::string note = WaitingLine(c);
    if (note.empty()) note = c.value("reason", "");
    if (note.size() > 90) note = note.substr(0, 87) + "...";
    rows.push_back({c.value("id", "?"), c.value("state", "?"),
                    std::to_string(c.value("problems", json::array()).size()),
                    "$" + FormatDouble(spend.value("cost_usd", 0.0), 4), std::to_string(spend.value("llm_calls", 0)),
                    std::to_string(spend.value("evaluations", 0)), note});
  }
  PrintTable({"ID", "STATE", "PROBLEMS", "COST", "LLM CALLS", "EVALS", "NOTE"}, rows);
  std::cout << std::flush;
  return kExitOk;
}

}  // namespace

int CmdList(ApiClient& api, const Options& o) {
  bool ended = false;
  if (!o.watch) return ListOnce(api, o, false, &ended);
  // --watch: again every interval until interrupted (or the daemon goes
  // away), --count listings were printed, or (--until-ended) a listing shows
  // only campaigns that ended.
  const bool tty = isatty(1);
  for (int n = 1;; ++n) {
    const int rc = ListOnce(api, o, tty, &ended);
    if (rc != kExitOk) return rc;
    if ((o.count > 0 && n >= o.count) || (o.until_ended && ended)) return kExitOk;
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(o.interval_s * 1000)));
  }
}

int CmdGet(ApiClient& api, const Options& o) {
  if (o.args.empty()) {
    std::cerr << "acceloptctl get: campaign id required\n";
    return kExitUsage;
  }
  auto r = Ask(api, "GET", Path(o.args[0]));
  if (!r.ok()) return r.exit_code;
  if (o.json_output)
    std::cout << Dump(r.body, 2) << "\n";
  else
    PrintSummary(r.body);
  return kExitOk;
}

int FollowCampaign(ApiClient& api, const std::string& id, const Options& o, bool print_events) {
  using clock = std::chrono::steady_clock;
  auto deadline = o.timeout_s > 0 ? clock::now() + std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000))
                                  : clock::time_point::max();
  int64_t after = 0;
  bool tty = isatty(2);
  std::string last_waiting;
  while (true) {
    auto r = Ask(api, "GET", Path(id, "/events?after=" + std::to_string(after) + "&wait=10&limit=500"), nullptr,
                 std::chrono::seconds(40));
    if (!r.ok()) return r.exit_code;
    for (const auto& e : r.body.value("events", json::array())) {
      if (print_events) {
        if (o.json_output)
          std::cout << Dump(e) << "\n";
        else
          std::cout << EventLine(e) << "\n";
        std::cout.flush();
      }
    }
    after = r.body.value("next", after);
    auto s = Ask(api, "GET", Path(id));
    if (!s.ok()) return s.exit_code;
    std::string state = s.body.value("state", "");
    // An outage is said once when it starts and once when it ends, tty or not.
    if (std::string w = WaitingLine(s.body); w != last_waiting) {
      if (tty && !print_events) std::cerr << "\r\033[K";
      if (!w.empty())
        std::cerr << "campaign " << id << ": " << w << "\n";
      else
        std::cerr << "campaign " << id << ": the provider answers again\n";
      last_waiting = w;
    }
    if (!print_events && tty) {
      std::string line;
      for (const auto& p : s.body.value("problems", json::array())) {
        line += p.value("name", "?") + " " + std::to_string(p.value("iteration", 0)) + "/" +
                std::to_string(p.value("iterations", 0));
        if (p.contains("speedup") && p["speedup"].is_number()) line += " " + SpeedupCell(p);
        line += "  ";
      }
      std::cerr << "\r\033[K[" << state << "] " << line.substr(0, 150) << std::flush;
    }
    if (IsTerminal(state)) {
      if (!print_events && tty) std::cerr << "\n";
      if (o.json_output && !print_events)
        std::cout << Dump(s.body, 2) << "\n";
      else if (!print_events)
        PrintSummary(s.body);
      else
        std::cerr << "campaign " << id << " ended: " << state << "\n";
      return ExitCodeForState(state);
    }
    if (clock::now() >= deadline) {
      std::cerr << "\nacceloptctl: timed out waiting for campaign " << id << " (state " << state << ")\n";
      return kExitTimeout;
    }
  }
}

int CmdEvents(ApiClient& api, const Options& o) {
  if (o.args.empty()) {
    std::cerr << "acceloptctl events: campaign id required\n";
    return kExitUsage;
  }
  if (o.follow) return FollowCampaign(api, o.args[0], o, true);
  auto r = Ask(api, "GET", Path(o.args[0], "/events?after=0&limit=100000"));
  if (!r.ok()) return r.exit_code;
  for (const auto& e : r.body.value("events", json::array())) {
    if (o.json_output)
      std::cout << Dump(e) << "\n";
    else
      std::cout << EventLine(e) << "\n";
  }
  return kExitOk;
}

int CmdWait(ApiClient& api, const Options& o) {
  if (o.args.empty()) {
    std::cerr << "acceloptctl wait: campaign id required\n";
    return kExitUsage;
  }
  return FollowCampaign(api, o.args[0], o, false);
}

int CmdControl(ApiClient& api, const Options& o, const std::string& action) {
  if (o.args.empty()) {
    std::cerr << "acceloptctl " << action << ": campaign id required\n";
    return kExitUsage;
  }
  auto r = Ask(api, "POST", Path(o.args[0], "/" + action));
  if (!r.ok()) return r.exit_code;
  if (o.json_output)
    std::cout << Dump(r.body, 2) << "\n";
  else
    std::cerr << "campaign " << o.args[0] << ": " << r.body.value("state", "?") << "\n";
  return kExitOk;
}

int CmdBest(ApiClient& api, const Options& o) {
  if (o.args.empty()) {
    std::cerr << "acceloptctl best: campaign id required\n";
    return kExitUsage;
  }
  auto r = Ask(api, "GET", Path(o.args[0], "/best"));
  if (!r.ok()) return r.exit_code;
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) {
      std::cerr << "acceloptctl best: cannot create " << o.out_dir << ": " << ec.message() << "\n";
      return kExitError;
    }
    for (const auto& b : r.body.value("best", json::array())) {
      // The daemon names the file by the problem's backend (.cpp, .cu, .py).
      std::string file = b.value("file_name", b.value("problem", "kernel") + ".cpp");
      if (!IsPlainFolderName(file)) {
        std::cerr << "acceloptctl best: the daemon named an unusable file '" << file << "'\n";
        return kExitError;
      }
      std::string path = o.out_dir + "/" + file;
      std::ofstream(path) << b.value("source", "");
      std::cerr << "wrote " << path << "\n";
    }
  }
  if (o.json_output) {
    std::cout << Dump(r.body, 2) << "\n";
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto& b : r.body.value("best", json::array())) {
      rows.push_back(
          {b.value("problem", "?"), b.value("candidate", "-"),
           b.contains("latency_us") && b["latency_us"].is_number() ? FormatMicros(b["latency_us"].get<double>()) : "-",
           SpeedupCell(b),
           b.contains("percent_of_peak") && b["percent_of_peak"].is_number()
               ? FormatDouble(b["percent_of_peak"].get<double>(), 1) + "%"
               : "-"});
    }
    PrintTable({"PROBLEM", "CANDIDATE", "LATENCY", "SPEEDUP", "%PEAK"}, rows);
  }
  return kExitOk;
}

int CmdReport(ApiClient& api, const Options& o) {
  if (o.args.empty()) {
    std::cerr << "acceloptctl report: campaign id required\n";
    return kExitUsage;
  }
  if (!o.html_file.empty()) return WriteHtmlReport(api, o.args[0], o.html_file);
  auto r = Ask(api, "GET", Path(o.args[0], "/report"));
  if (!r.ok()) return r.exit_code;
  int code = kExitOk;
  const auto replay = ReplaySideBySide(api, o.args[0], r.body, &code);
  if (!replay) return code;
  if (o.json_output) {
    if (!replay->is_null()) r.body["replay_of"] = *replay;
    std::cout << Dump(r.body, 2) << "\n";
    return kExitOk;
  }
  const json& rep = r.body;
  auto pct = [](const json& v) { return v.is_number() ? FormatDouble(v.get<double>(), 2) + "%" : std::string("-"); };
  // Figures of a test-only stand-in (not measurements): said first.
  if (const json t = rep.value("test_stand_in", json()); t.is_object()) {
    std::cout << t.value("notice", "") << "; memory " << t.value("memory", "") << "; " << t.value("ranking", "")
              << "\n";
  }
  std::cout << "campaign " << rep.value("campaign_id", "?") << ": " << rep.value("status", "?");
  if (!rep.value("reason", "").empty()) std::cout << " (" << rep.value("reason", "") << ")";
  std::cout << "\n";
  PrintTimes(rep);
  std::cout << "\n% of peak per problem, best so far after each iteration (each iteration's own measurement); "
               "SPEEDUP: the final best re-measured side by side with the baseline [~95% interval]\n";
  size_t iters = 0;
  for (const auto& p : rep.value("problems", json::array()))
    iters = std::max(iters, p.value("percent_of_peak_by_iteration", json::array()).size());
  std::vector<std::string> headers = {"PROBLEM", "BASELINE"};
  for (size_t i = 0; i < iters; ++i) headers.push_back("it" + std::to_string(i));
  headers.insert(headers.end(), {"SPEEDUP", "STATUS"});
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : rep.value("problems", json::array())) {
    json base = p.value("baseline", json());
    std::vector<std::string> row = {p.value("name", "?"),
                                    base.is_object() ? pct(base.value("percent_of_peak", json())) : "-"};
    auto by = p.value("percent_of_peak_by_iteration", json::array());
    for (size_t i = 0; i < iters; ++i) row.push_back(i < by.size() ? pct(by[i]) : "");
    row.push_back(SpeedupCell(p));
    row.push_back(p.value("status", ""));
    rows.push_back(row);
  }
  PrintTable(headers, rows);
  // Say in words what the table's "none" and "(noise)" mean, and why a
  // problem failed.
  for (const auto& p : rep.value("problems", json::array())) {
    const std::string name = p.value("name", "?");
    const json base = p.value("baseline", json());
    const std::string improvement =
        p.value("improvement", json()).is_string() ? p["improvement"].get<std::string>() : "";
    if (improvement == "none" && base.is_object()) {
      std::cout << name << ": no improvement: no correct candidate beat the baseline ("
                << FormatMicros(base.value("latency_us", 0.0)) << ", spread "
                << FormatDouble(100 * base.value("spread", 0.0), 1) << "%)\n";
    } else if (improvement == "within_noise") {
      std::cout << name << ": no improvement beyond noise: the best is " << FormatDouble(p.value("speedup", 1.0))
                << "x, within the noise of the baseline (spread " << FormatDouble(100 * base.value("spread", 0.0), 1)
                << "%)\n";
    }
    const json f = p.value("final", json());
    if (f.is_object() && f.value("fallback", json()).is_object()) {
      std::cout << name << ": " << f["fallback"].value("reason", "")
                << "; reported instead: " << f["fallback"].value("origin", json("?")).dump() << "\n";
    }
    if (p.value("status", "") == "failed" && !p.value("reason", "").empty()) {
      std::cout << name << ": failed: " << p.value("reason", "") << "\n";
    }
  }
  PrintIterations(rep);
  // The final best measured side by side with the baseline ("default" mode).
  for (const auto& p : rep.value("problems", json::array())) {
    const json f = p.value("final", json());
    if (!f.is_object() || !f.value("remeasured", json()).is_object()) continue;
    const json side = f["remeasured"].value("interleaved_with_baseline", json());
    if (!side.is_object()) continue;
    std::cout << p.value("name", "?") << ": final best " << p.value("best", json::object()).value("candidate_id", "?")
              << ", measured side by side with the baseline, speedup " << FormatDouble(side.value("speedup", 0.0))
              << "x (~95% interval " << FormatDouble(side.value("speedup_low", 0.0)) << "x .. "
              << FormatDouble(side.value("speedup_high", 0.0)) << "x)"
              << (side.value("noisy", false) ? ", NOISY: the spread stayed above the target" : "") << "\n";
  }
  if (rep.contains("geomean") && rep["geomean"].is_object()) {
    const json& g = rep["geomean"];
    std::cout << "geometric mean over " << g.value("problems", 0)
              << " problems: " << pct(g.value("baseline_percent_of_peak", json())) << " -> "
              << pct(g.value("best_percent_of_peak", json())) << " of peak, speedup "
              << (g.contains("speedup") && g["speedup"].is_number() ? FormatDouble(g["speedup"].get<double>()) + "x"
                                                                    : "-")
              << "\n";
  }
  std::vector<std::vector<std::string>> cost_rows;
  auto usage_rows = [&](const json& by, const std::string& kind) {
    for (const auto& [name, u] : by.items()) {
      std::string source;
      const json sources = u.value("cost_sources", json::object());
      for (auto it = sources.begin(); it != sources.end(); ++it) {
        source += (source.empty() ? "" : ", ") + it.key() + " " + std::to_string(it.value().get<int64_t>());
      }
      cost_rows.push_back({kind, name, std::to_string(u.value("calls", 0)), std::to_string(u.value("failed_calls", 0)),
                           std::to_string(u.value("input_tokens", 0)), std::to_string(u.value("output_tokens", 0)),
                           "$" + FormatDouble(u.value("cost_usd", 0.0), 4), source});
    }
  };
  json usage = rep.value("usage", json::object());
  usage_rows(usage.value("by_role", json::object()), "role");
  usage_rows(usage.value("by_model", json::object()), "model");
  if (usage.contains("total")) usage_rows(json{{"all", usage["total"]}}, "total");
  if (!cost_rows.empty()) {
    std::cout << "\nLLM usage and cost (" << usage.value("evaluations", 0) << " evaluations)\n";
    PrintTable({"BY", "NAME", "CALLS", "FAILED", "IN TOKENS", "OUT TOKENS", "COST", "COST FROM (CALLS)"}, cost_rows);
    std::cout
        << "cost from: usage = the provider's token counts x the price table; estimate = the reply had no\n"
           "usage, tokens estimated at 4 bytes each; no_price = no price configured for the model (counted as $0);\n"
           "zero_price = priced at $0 per token (a model served locally: its calls are free, budgets count\n"
           "its calls and tokens)\n";
  }
  if (!replay->is_null()) PrintReplaySideBySide(*replay);
  return kExitOk;
}

}  // namespace accelopt::cli
