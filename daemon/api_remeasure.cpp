// POST /v1/remeasure (docs/api.md, "Side-by-side re-measurement"): two
// kernels of one problem checked and timed interleaved in one judge run, on
// one slot — how `acceloptctl experiment remeasure` puts the winners of two
// arms side by side, so that a drifting machine hits both alike. The result
// is recorded in the system stream (SideBySideMeasured: the problem, the
// label, both sources' sha256 and the judge's result) before it is answered.
#include "base/log.hpp"
#include "base/sha256.hpp"
#include "daemon/api.hpp"
#include "daemon/campaign_stream.hpp"
#include "daemon/metric_names.hpp"

namespace accelopt::daemon {

void Api::AddRemeasureRoutes() {
  using V = http::verb;
  router_.Add(V::post, "/v1/remeasure", [this](const HttpRequest& req, const RouteParams&, Respond respond) {
    auto body = ParseBody(req);
    if (!body.ok()) return respond(ApiError(body.status()));
    for (const auto& [k, v] : body->items()) {
      if (k != "problem" && k != "source" && k != "compare_source" && k != "settings" && k != "label") {
        return respond(
            ApiError(http::status::bad_request, "invalid_argument",
                     "body." + k + ": unknown key (expected problem, source, compare_source, settings, label)"));
      }
    }
    for (const char* k : {"problem", "source", "compare_source"}) {
      if (!body->contains(k) || !(*body)[k].is_string() || (*body)[k].get<std::string>().empty()) {
        return respond(ApiError(http::status::bad_request, "invalid_argument",
                                std::string("body.") + k + ": required, a non-empty string"));
      }
    }
    const std::string problem = (*body)["problem"];
    auto loaded = d_.campaigns->LoadProblem(problem);
    if (!loaded.ok()) return respond(ApiError(loaded.status()));
    eval::EvalRequest er;
    er.backend = loaded->problem.value("backend", "cpu");
    er.problem = d_.campaigns->ProblemDir(problem);
    er.source = (*body)["source"];
    er.compare_source = (*body)["compare_source"];
    er.id = "remeasure/" + problem;
    if (body->contains("settings")) {
      auto s = eval::EvalSettings::FromJson((*body)["settings"]);
      if (!s.ok()) return respond(ApiError(s.status().WithContext("body.settings")));
      er.settings = *s;
    }
    json record = {{"problem", problem},
                   {"label", body->value("label", "")},
                   {"source_sha256", Sha256Hex(er.source)},
                   {"compare_source_sha256", Sha256Hex(er.compare_source)}};
    auto done = [this, record, respond](uint64_t, eval::EvalResult r) mutable {
      d_.metrics->Add(metric::kEvaluationsTotal, {{"outcome", eval::EvalStatusName(r.status)}}, 1);
      record["result"] = r.ToJson();
      net::post(*d_.ioc, [this, record = std::move(record), respond] {
        store::StreamAppend a;
        a.stream = runtime_event::kSystemStream;
        a.events.push_back(store::NewEvent{runtime_event::kSideBySideMeasured, 0, record, {}, {}});
        auto appended = d_.log->Append({std::move(a)});
        if (!appended.ok()) {
          // Nothing reported that was not recorded first.
          return respond(ApiError(appended.status().WithContext("recording the side-by-side measurement")));
        }
        respond(ApiOk({{"problem", record["problem"]}, {"result", record["result"]}}));
      });
    };
    auto t = d_.eval->Submit(std::move(er), "remeasure", done);
    if (!t.ok()) return respond(ApiError(t.status()));
  });
}

}  // namespace accelopt::daemon
