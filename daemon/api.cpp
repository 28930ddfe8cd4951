#include "daemon/api.hpp"

#include "base/log.hpp"
#include "daemon/suite_dirs.hpp"
#include "evaluators/suites.hpp"
#include "workflows/problem_json.hpp"
#include "workflows/report.hpp"
#include "workflows/report_detail.hpp"
#include "workflows/report_html.hpp"
#include "daemon/metric_names.hpp"
#include "workflows/backend_traits.hpp"

namespace accelopt::daemon {
namespace {

HttpResponse NotFoundCampaign(const std::string& id) {
  return ApiError(http::status::not_found, "not_found", "no campaign '" + id + "'");
}

size_t ParseSize(const std::map<std::string, std::string>& q, const std::string& key, size_t def, size_t max) {
  auto it = q.find(key);
  if (it == q.end()) return def;
  try {
    long long v = std::stoll(it->second);
    if (v < 0) return def;
    return std::min<size_t>(static_cast<size_t>(v), max);
  } catch (...) {
    return def;
  }
}

}  // namespace

Result<json> ParseBody(const HttpRequest& req) {
  if (req.body().empty()) return json::object();
  auto j = ParseJson(req.body());
  if (!j.ok()) return InvalidArgument("request body: " + j.status().message());
  if (!j->is_object()) return InvalidArgument("request body: must be a JSON object");
  return j;
}

Api::Api(ApiDeps deps) : d_(std::move(deps)) { AddRoutes(); }

void Api::Events(const std::string& id, uint64_t after, size_t limit,
                 int64_t deadline_nanos, Respond respond) const {
  auto records = d_.log->ReadStream(workflows::CampaignStream(id), after + 1, limit);
  if (!records.ok()) return respond(ApiError(records.status()));
  if (records->empty() && d_.env->MonotonicNanos() < deadline_nanos) {
    // Woken by the next append to the stream (or at the deadline).
    d_.waiters->Wait(workflows::CampaignStream(id), after, deadline_nanos,
                     [this, id, after, limit, deadline_nanos, respond] {
                       Events(id, after, limit, deadline_nanos, respond);
                     });
    return;
  }
  json events = json::array();
  uint64_t next = after;
  for (const auto& r : *records) {
    events.push_back(store::ToJson(r));
    next = r.version;
  }
  respond(ApiOk({{"events", events}, {"next", next}}));
}

json Api::CalibrationWait() const { return d_.calibration_wait ? d_.calibration_wait() : json(); }

json Api::WithWaits(json summary) const {
  // A running campaign's cpu evaluations wait while no calibration is accepted.
  if (summary.value("state", "") == "running" || summary.value("state", "") == "paused") {
    if (json w = CalibrationWait(); !w.is_null()) summary["calibration"] = w;
  }
  return summary;
}

void Api::AddRoutes() {
  using V = http::verb;
  router_.Add(V::get, "/v1/health", [this](const HttpRequest&, const RouteParams&, Respond respond) {
    bool healthy = d_.log->Healthy();
    json j = {{"status", healthy ? "ok" : "unhealthy"},
              {"store", {{"healthy", healthy}, {"error", healthy ? "" : d_.log->HealthStatus().ToString()},
                         {"last_global_position", d_.log->LastGlobalPosition()}}},
              {"campaigns", {{"active", d_.campaigns->Active()}, {"total", d_.campaigns->All().size()}}}};
    // Serving, but cpu evaluations wait for a calibration: said, not a 503.
    if (json w = CalibrationWait(); !w.is_null()) j["calibration"] = w;
    respond(ApiOk(j, healthy ? http::status::ok : http::status::service_unavailable));
  });

  router_.Add(V::get, "/metrics", [this](const HttpRequest&, const RouteParams&, Respond respond) {
    std::map<std::string, int> by_state;
    for (const auto& r : d_.campaigns->All()) by_state[r->StateName()]++;
    for (const char* s : {"running", "paused", "completed", "partial", "failed", "cancelled", "budget_exhausted"})
      d_.metrics->Set(metric::kCampaigns, {{"state", s}}, by_state[s]);
    d_.metrics->Set(metric::kEventLogLastGlobalPosition, {}, static_cast<double>(d_.log->LastGlobalPosition()));
    d_.metrics->Set(metric::kEventLogHealthy, {}, d_.log->Healthy() ? 1 : 0);
    if (d_.gate) {
      for (const auto& [name, st] : d_.gate->States())
        d_.metrics->Set(metric::kLlmProviderAvailable, {{"provider", name}}, st.available ? 1 : 0);
    }
    for (const auto& [name, b] : d_.config->evaluators) {
      d_.metrics->Set(metric::kEvaluationsQueued, {{"backend", name}}, static_cast<double>(d_.eval->Queued(name)));
      d_.metrics->Set(metric::kEvaluationsRunning, {{"backend", name}}, static_cast<double>(d_.eval->Running(name)));
    }
    HttpResponse res{http::status::ok, 11};
    res.set(http::field::content_type, "text/plain; version=0.0.4");
    res.body() = Redact(d_.metrics->Render());
    res.prepare_payload();
    respond(std::move(res));
  });

  router_.Add(V::post, "/v1/campaigns", [this](const HttpRequest& req, const RouteParams&, Respond respond) {
    auto body = ParseBody(req);
    if (!body.ok()) return respond(ApiError(body.status()));
    if (!body->contains("spec") || !(*body)["spec"].is_object())
      return respond(ApiError(http::status::bad_request, "invalid_argument", "body.spec: required, a JSON object"));
    std::string key;
    if (body->contains("idempotency_key")) {
      if (!(*body)["idempotency_key"].is_string())
        return respond(ApiError(http::status::bad_request, "invalid_argument", "body.idempotency_key: must be a string"));
      key = (*body)["idempotency_key"].get<std::string>();
    }
    // Submitting reads problem files and appends durably: off the io thread.
    json spec = (*body)["spec"];
    net::post(*d_.ioc, [this, spec, key, respond] {
      auto r = d_.campaigns->Submit(spec, key);
      if (!r.ok()) return respond(ApiError(r.status()));
      respond(ApiOk({{"id", r->id}, {"created", r->created}}, r->created ? http::status::created : http::status::ok));
    });
  });

  // The submission's checks without the submission (acceloptctl submit --dry-run).
  router_.Add(V::post, "/v1/campaigns/check", [this](const HttpRequest& req, const RouteParams&, Respond respond) {
    auto body = ParseBody(req);
    if (!body.ok()) return respond(ApiError(body.status()));
    if (!body->contains("spec") || !(*body)["spec"].is_object())
      return respond(ApiError(http::status::bad_request, "invalid_argument", "body.spec: required, a JSON object"));
    json spec = (*body)["spec"];
    net::post(*d_.ioc, [this, spec, respond] {
      auto r = d_.campaigns->Check(spec);
      if (!r.ok()) return respond(ApiError(r.status()));
      respond(ApiOk(*r));
    });
  });

  router_.Add(V::get, "/v1/campaigns", [this](const HttpRequest&, const RouteParams&, Respond respond) {
    json list = json::array();
    for (const auto& r : d_.campaigns->All()) list.push_back(WithWaits(CampaignManager::Summary(*r)));
    respond(ApiOk({{"campaigns", list}}));
  });

  router_.Add(V::get, "/v1/campaigns/{id}", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto r = d_.campaigns->Find(p.path.at("id"));
    if (!r) return respond(NotFoundCampaign(p.path.at("id")));
    json summary = WithWaits(CampaignManager::Summary(*r));
    summary["spec"] = workflows::ToJson(r->Snapshot().spec);  // what submit --replay-from copies
    respond(ApiOk(std::move(summary)));
  });

  for (std::string action : {"cancel", "pause", "resume"}) {
    router_.Add(V::post, "/v1/campaigns/{id}/" + action, [this, action](const HttpRequest&, const RouteParams& p, Respond respond) {
      auto r = d_.campaigns->Find(p.path.at("id"));
      if (!r) return respond(NotFoundCampaign(p.path.at("id")));
      auto done = [r, respond](Status st) {
        if (!st.ok()) return respond(ApiError(st));
        respond(ApiOk(CampaignManager::Summary(*r)));
      };
      if (action == "cancel") r->Cancel("cancelled by the user", done);
      else if (action == "pause") r->Pause(done);
      else r->Resume(done);
    });
  }

  router_.Add(V::get, "/v1/campaigns/{id}/events", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    const std::string& id = p.path.at("id");
    if (!d_.campaigns->Find(id)) return respond(NotFoundCampaign(id));
    uint64_t after = ParseSize(p.query, "after", 0, SIZE_MAX);
    size_t limit = ParseSize(p.query, "limit", 1000, 100000);
    size_t wait_s = ParseSize(p.query, "wait", 0, 60);
    Events(id, after, limit, d_.env->MonotonicNanos() + static_cast<int64_t>(wait_s) * 1'000'000'000, respond);
  });

  router_.Add(V::get, "/v1/campaigns/{id}/report", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto r = d_.campaigns->Find(p.path.at("id"));
    if (!r) return respond(NotFoundCampaign(p.path.at("id")));
    respond(ApiOk(workflows::BuildDetailedReport(r->Snapshot())));
  });

  // The same report as one self-contained HTML page (workflows/report_html.hpp).
  router_.Add(V::get, "/v1/campaigns/{id}/report.html", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto r = d_.campaigns->Find(p.path.at("id"));
    if (!r) return respond(NotFoundCampaign(p.path.at("id")));
    const json report = workflows::BuildDetailedReport(r->Snapshot());
    std::map<std::string, std::string> sources;
    for (const auto& sha : workflows::ReportHtmlSources(report)) {
      auto blob = d_.log->GetBlob(sha);
      if (blob.ok()) sources[sha] = *blob;
    }
    HttpResponse res{http::status::ok, 11};
    res.set(http::field::content_type, "text/html; charset=utf-8");
    res.body() = workflows::RenderReportHtml(report, sources);
    res.prepare_payload();
    respond(std::move(res));
  });

  router_.Add(V::get, "/v1/campaigns/{id}/best", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto r = d_.campaigns->Find(p.path.at("id"));
    if (!r) return respond(NotFoundCampaign(p.path.at("id")));
    const auto state = r->Snapshot();
    json report = workflows::BuildReport(state);
    // The file a best kernel is saved as: <problem> with its backend's
    // extension (baseline.cpp / .cu / .py).
    auto file_name = [&state](const std::string& id, const std::string& name) {
      std::string backend = "cpu";
      for (const auto& ps : state.problems)
        if (ps.info.id == id && !ps.info.backend.empty()) backend = ps.info.backend;
      const std::string baseline = workflows::TraitsOf(backend).baseline_file;
      return name + baseline.substr(baseline.rfind('.'));
    };
    json best = json::array();
    for (const auto& pr : report.value("problems", json::array())) {
      json b = {{"problem", pr.value("name", "")}, {"id", pr.value("id", "")}};
      for (const char* k : {"speedup", "speedup_low", "speedup_high", "speedup_noisy", "speedup_source", "improvement"})
        b[k] = pr.value(k, json());
      b["file_name"] = file_name(pr.value("id", ""), pr.value("name", "kernel"));
      if (pr.contains("best") && pr["best"].is_object()) {
        const json& x = pr["best"];
        b["candidate"] = x.value("candidate_id", "");
        b["latency_us"] = x.value("latency_us", json());
        b["percent_of_peak"] = x.value("percent_of_peak", json());
        b["iteration"] = x.value("iteration", json());
        auto src = d_.log->GetBlob(x.value("source_sha256", ""));
        b["source"] = src.ok() ? *src : "";
      }
      best.push_back(b);
    }
    respond(ApiOk({{"campaign", r->id()}, {"best", best}}));
  });

  router_.Add(V::get, "/v1/campaigns/{id}/candidates", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto r = d_.campaigns->Find(p.path.at("id"));
    if (!r) return respond(NotFoundCampaign(p.path.at("id")));
    auto state = r->Snapshot();
    json out = json::array();
    for (const auto& ps : state.problems) {
      for (const auto& it : ps.iterations) {
        for (const auto& c : it.candidates) {
          if (!c.proposed && !c.exec_scheduled) continue;
          out.push_back({{"problem", ps.info.name}, {"iteration", it.iteration}, {"id", c.id}, {"ok", c.ok},
                         {"failure", c.failure}, {"evaluated", c.evaluated}, {"correct", c.measurement.correct},
                         {"status", c.measurement.status}, {"latency_us", c.measurement.latency_us},
                         {"source_sha256", c.source_sha256}});
        }
      }
    }
    respond(ApiOk({{"campaign", r->id()}, {"candidates", out}}));
  });

  router_.Add(V::post, "/v1/calibrate", [this](const HttpRequest& req, const RouteParams&, Respond respond) {
    auto body = ParseBody(req);
    if (!body.ok()) return respond(ApiError(body.status()));
    std::string backend = body->value("backend", "cpu");
    if (backend != "cpu" || !d_.calibrate)
      return respond(ApiError(http::status::not_found, "not_found", "no calibratable backend '" + backend + "'"));
    if (body->contains("force") && !(*body)["force"].is_boolean())
      return respond(ApiError(http::status::bad_request, "invalid_argument", "body.force: must be true or false"));
    if (body->contains("force_busy") && !(*body)["force_busy"].is_boolean())
      return respond(ApiError(http::status::bad_request, "invalid_argument", "body.force_busy: must be true or false"));
    bool force = body->value("force", false);
    bool force_busy = body->value("force_busy", false);
    // Measuring takes seconds: off the connection's strand.
    net::post(*d_.ioc, [this, force, force_busy, respond] {
      auto c = d_.calibrate(force, force_busy);
      if (!c.ok()) return respond(ApiError(c.status()));
      respond(ApiOk({{"backend", "cpu"}, {"remeasured", force}, {"calibration", *c}}));
    });
  });

  router_.Add(V::post, "/v1/baseline", [this](const HttpRequest& req, const RouteParams&, Respond respond) {
    auto body = ParseBody(req);
    if (!body.ok()) return respond(ApiError(body.status()));
    std::string suite = body->value("suite", "cpu");
    const auto folders = SuiteFolders(*d_.config, d_.env);  // configured and imported (daemon/suite_dirs.hpp)
    auto it = folders.find(suite);
    if (it == folders.end()) return respond(ApiError(http::status::not_found, "not_found", "no suite '" + suite + "'"));
    auto listed = eval::ListSuite(suite, it->second, d_.env);
    const std::vector<eval::SuiteProblem> problems = listed.ok() ? *listed : std::vector<eval::SuiteProblem>{};
    if (problems.empty()) return respond(ApiOk({{"suite", suite}, {"problems", json::array()}}));
    struct Gather {
      std::mutex mu;
      json rows;
      size_t left;
      Respond respond;
      std::string suite;
    };
    auto g = std::make_shared<Gather>();
    g->rows = json::array();
    for (size_t i = 0; i < problems.size(); ++i) g->rows.push_back(json::object());
    g->left = problems.size();
    g->respond = respond;
    g->suite = suite;
    for (size_t i = 0; i < problems.size(); ++i) {
      const std::string& dir = problems[i].dir;
      // The problem's own backend (cpu, cuda, nki) and its baseline file.
      const std::string backend = problems[i].error.ok() && !problems[i].spec.backend.empty() ? problems[i].spec.backend : "cpu";
      auto src = d_.env->ReadFile(dir + "/" + workflows::TraitsOf(backend).baseline_file);
      eval::EvalRequest er;
      er.backend = backend;
      er.problem = dir;
      er.source = src.ok() ? *src : "";
      er.id = "baseline/" + problems[i].name;
      std::string name = problems[i].name;
      std::string bound = problems[i].spec.bound;
      auto finish = [g, i, name, bound, this](eval::EvalResult r) {
        json row = {{"problem", name}, {"status", eval::EvalStatusName(r.status)}, {"reason", r.reason}, {"bound", bound}};
        if (r.latency) row["latency_us"] = r.latency->median_us;
        if (r.latency) row["spread"] = r.latency->spread;
        if (r.percent_of_peak) row["percent_of_peak"] = *r.percent_of_peak;
        d_.metrics->Add(metric::kEvaluationsTotal, {{"outcome", eval::EvalStatusName(r.status)}}, 1);
        std::lock_guard lock(g->mu);
        g->rows[i] = row;
        if (--g->left == 0) net::post(*d_.ioc, [this, g] {
          // Recorded in the system stream so profiles stay comparable over time.
          store::StreamAppend a;
          a.stream = runtime_event::kSystemStream;
          a.events.push_back(store::NewEvent{runtime_event::kBaselineProfiled, 0,
                                             {{"suite", g->suite}, {"problems", g->rows}}, {}, {}});
          auto r = d_.log->Append({std::move(a)});
          if (!r.ok()) LogWarning("could not record the baseline profile: " + r.status().ToString());
          g->respond(ApiOk({{"suite", g->suite}, {"problems", g->rows}}));
        });
      };
      auto t = d_.eval->Submit(std::move(er), "baseline", [finish](uint64_t, eval::EvalResult r) { finish(std::move(r)); });
      if (!t.ok()) finish(eval::EvalResult::Failure(eval::EvalStatus::kInternalError, t.status().message()));
    }
  });

  AddMemoryRoutes();
  AddSuiteRoutes();
  AddRemeasureRoutes();
  AddCandidateRoutes();
  if (d_.more_routes) d_.more_routes(router_);
}

}  // namespace accelopt::daemon
