// The results of a campaign over the API: GET /v1/campaigns/{id}/report
// (JSON) and /report.html (the same report as one self-contained page,
// workflows/report_html.hpp), /best (each problem's best kernel with its
// source and headline speedup) and /candidates (every candidate, a line
// each).
#include "daemon/api.hpp"
#include "workflows/backend_traits.hpp"
#include "workflows/report.hpp"
#include "workflows/report_detail.hpp"
#include "workflows/report_html.hpp"

namespace accelopt::daemon {

void Api::AddResultRoutes() {
  using V = http::verb;
  router_.Add(V::get, "/v1/campaigns/{id}/report", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto r = d_.campaigns->Find(p.path.at("id"));
    if (!r) return respond(NotFoundCampaign(p.path.at("id")));
    respond(ApiOk(workflows::BuildDetailedReport(r->Snapshot())));
  });

  // The same report as one self-contained HTML page (workflows/report_html.hpp).
  router_.Add(V::get, "/v1/campaigns/{id}/report.html",
              [this](const HttpRequest&, const RouteParams& p, Respond respond) {
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

  router_.Add(V::get, "/v1/campaigns/{id}/candidates",
              [this](const HttpRequest&, const RouteParams& p, Respond respond) {
                auto r = d_.campaigns->Find(p.path.at("id"));
                if (!r) return respond(NotFoundCampaign(p.path.at("id")));
                auto state = r->Snapshot();
                json out = json::array();
                for (const auto& ps : state.problems) {
                  for (const auto& it : ps.iterations) {
                    for (const auto& c : it.candidates) {
                      if (!c.proposed && !c.exec_scheduled) continue;
                      out.push_back({{"problem", ps.info.name},
                                     {"iteration", it.iteration},
                                     {"id", c.id},
                                     {"ok", c.ok},
                                     {"failure", c.failure},
                                     {"evaluated", c.evaluated},
                                     {"correct", c.measurement.correct},
                                     {"status", c.measurement.status},
                                     {"latency_us", c.measurement.latency_us},
                                     {"source_sha256", c.source_sha256}});
                    }
                  }
                }
                respond(ApiOk({{"campaign", r->id()}, {"candidates", out}}));
              });
}

}  // namespace accelopt::daemon
