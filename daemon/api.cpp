#include "daemon/api.hpp"

#include "base/log.hpp"
#include "workflows/problem_json.hpp"
#include "daemon/metric_names.hpp"
#include "evaluators/protocol.hpp"

namespace accelopt::daemon {
namespace {

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

HttpResponse NotFoundCampaign(const std::string& id) {
  return ApiError(http::status::not_found, "not_found", "no campaign '" + id + "'");
}

Result<json> ParseBody(const HttpRequest& req) {
  if (req.body().empty()) return json::object();
  auto j = ParseJson(req.body());
  if (!j.ok()) return InvalidArgument("request body: " + j.status().message());
  if (!j->is_object()) return InvalidArgument("request body: must be a JSON object");
  return j;
}

Api::Api(ApiDeps deps) : d_(std::move(deps)) { AddRoutes(); }

void Api::Events(const std::string& id, uint64_t after, size_t limit, int64_t deadline_nanos, Respond respond) const {
  auto records = d_.log->ReadStream(workflows::CampaignStream(id), after + 1, limit);
  if (!records.ok()) return respond(ApiError(records.status()));
  if (records->empty() && d_.env->MonotonicNanos() < deadline_nanos) {
    // Woken by the next append to the stream (or at the deadline).
    d_.waiters->Wait(
        workflows::CampaignStream(id), after, deadline_nanos,
        [this, id, after, limit, deadline_nanos, respond] { Events(id, after, limit, deadline_nanos, respond); });
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
  AddServiceRoutes();
  AddCampaignRoutes();
  AddResultRoutes();
  AddMeasureRoutes();
  AddMemoryRoutes();
  AddSuiteRoutes();
  AddRemeasureRoutes();
  AddCandidateRoutes();
  if (d_.more_routes) d_.more_routes(router_);
}

// GET /v1/health, GET /metrics.
void Api::AddServiceRoutes() {
  using V = http::verb;
  router_.Add(V::get, "/v1/health", [this](const HttpRequest&, const RouteParams&, Respond respond) {
    bool healthy = d_.log->Healthy();
    json j = {{"status", healthy ? "ok" : "unhealthy"},
              {"store",
               {{"healthy", healthy},
                {"error", healthy ? "" : d_.log->HealthStatus().ToString()},
                {"last_global_position", d_.log->LastGlobalPosition()}}},
              {"campaigns", {{"active", d_.campaigns->Active()}, {"total", d_.campaigns->All().size()}}}};
    // Serving, but cpu evaluations wait for a calibration: said, not a 503.
    if (json w = CalibrationWait(); !w.is_null()) j["calibration"] = w;
    // Each backend's own figures (the cpu judge's reference cache: size, limit).
    if (d_.eval) {
      if (json b = d_.eval->Health(); !b.empty()) j["backends"] = std::move(b);
    }
    // The opt-in to the test-only Neuron SDK stand-in's figures (evaluators.nki.allow_test_stand_in).
    if (d_.config) {
      json on = json::array();
      for (const auto& [name, bc] : d_.config->evaluators)
        if (bc.nki && bc.nki->allow_test_stand_in) on.push_back(name);
      if (!on.empty()) j["test_stand_in"] = {{"allowed_for", on}, {"notice", eval::kTestStandInNotice}};
    }
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
}

// Submitting, checking, listing and steering campaigns, and their events.
void Api::AddCampaignRoutes() {
  using V = http::verb;
  router_.Add(V::post, "/v1/campaigns", [this](const HttpRequest& req, const RouteParams&, Respond respond) {
    auto body = ParseBody(req);
    if (!body.ok()) return respond(ApiError(body.status()));
    if (!body->contains("spec") || !(*body)["spec"].is_object())
      return respond(ApiError(http::status::bad_request, "invalid_argument", "body.spec: required, a JSON object"));
    std::string key;
    if (body->contains("idempotency_key")) {
      if (!(*body)["idempotency_key"].is_string())
        return respond(
            ApiError(http::status::bad_request, "invalid_argument", "body.idempotency_key: must be a string"));
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
    router_.Add(V::post, "/v1/campaigns/{id}/" + action,
                [this, action](const HttpRequest&, const RouteParams& p, Respond respond) {
                  auto r = d_.campaigns->Find(p.path.at("id"));
                  if (!r) return respond(NotFoundCampaign(p.path.at("id")));
                  auto done = [r, respond](Status st) {
                    if (!st.ok()) return respond(ApiError(st));
                    respond(ApiOk(CampaignManager::Summary(*r)));
                  };
                  if (action == "cancel")
                    r->Cancel("cancelled by the user", done);
                  else if (action == "pause")
                    r->Pause(done);
                  else
                    r->Resume(done);
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
}

}  // namespace accelopt::daemon
