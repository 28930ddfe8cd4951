// Measuring the machine and the suites' baselines over the API:
// POST /v1/calibrate (a backend's calibration, the cpu's by default,
// measured again when forced: its calibrate hook) and
// POST /v1/baseline (every baseline of a suite evaluated on its own backend,
// the profile recorded in the system stream as BaselineProfiled before it is
// answered).
#include "base/log.hpp"
#include "base/mutex.hpp"
#include "daemon/api.hpp"
#include "daemon/campaign_stream.hpp"
#include "daemon/metric_names.hpp"
#include "daemon/suite_dirs.hpp"
#include "evaluators/suites.hpp"
#include "workflows/backend_traits.hpp"

namespace accelopt::daemon {

void Api::AddMeasureRoutes() {
  using V = http::verb;
  router_.Add(V::post, "/v1/calibrate", [this](const HttpRequest& req, const RouteParams&, Respond respond) {
    auto body = ParseBody(req);
    if (!body.ok()) return respond(ApiError(body.status()));
    std::string backend = body->value("backend", "cpu");
    if (!d_.calibrate)
      return respond(ApiError(http::status::not_found, "not_found", "no calibratable backend '" + backend + "'"));
    if (body->contains("force") && !(*body)["force"].is_boolean())
      return respond(ApiError(http::status::bad_request, "invalid_argument", "body.force: must be true or false"));
    if (body->contains("force_busy") && !(*body)["force_busy"].is_boolean())
      return respond(ApiError(http::status::bad_request, "invalid_argument", "body.force_busy: must be true or false"));
    bool force = body->value("force", false);
    bool force_busy = body->value("force_busy", false);
    // Measuring takes seconds: off the connection's strand.
    net::post(*d_.ioc, [this, backend, force, force_busy, respond] {
      auto c = d_.calibrate(backend, force, force_busy);
      if (!c.ok()) return respond(ApiError(c.status()));
      respond(ApiOk({{"backend", backend}, {"remeasured", force}, {"calibration", *c}}));
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
    // The problems' rows as their evaluations finish (on the dispatcher's
    // threads). Filled in by the constructor, before it is shared.
    struct Gather {
      Gather(size_t n, Respond r, std::string s)
          : rows(json::array()), left(n), respond(std::move(r)), suite(std::move(s)) {
        for (size_t i = 0; i < n; ++i) rows.push_back(json::object());
      }
      Mutex mu;
      json rows ACCELOPT_GUARDED_BY(mu);
      size_t left ACCELOPT_GUARDED_BY(mu);
      const Respond respond;    // read-only after the constructor
      const std::string suite;  // read-only after the constructor
    };
    auto g = std::make_shared<Gather>(problems.size(), respond, suite);
    for (size_t i = 0; i < problems.size(); ++i) {
      const std::string& dir = problems[i].dir;
      // The problem's own backend (cpu, cuda, nki) and its baseline file.
      const std::string backend =
          problems[i].error.ok() && !problems[i].spec.backend.empty() ? problems[i].spec.backend : "cpu";
      auto src = d_.env->ReadFile(dir + "/" + workflows::TraitsOf(backend).baseline_file);
      eval::EvalRequest er;
      er.backend = backend;
      er.problem = dir;
      er.source = src.ok() ? *src : "";
      er.id = "baseline/" + problems[i].name;
      std::string name = problems[i].name;
      std::string bound = problems[i].spec.bound;
      auto finish = [g, i, name, bound, this](eval::EvalResult r) {
        json row = {
            {"problem", name}, {"status", eval::EvalStatusName(r.status)}, {"reason", r.reason}, {"bound", bound}};
        if (r.latency) row["latency_us"] = r.latency->median_us;
        if (r.latency) row["spread"] = r.latency->spread;
        if (r.percent_of_peak) row["percent_of_peak"] = *r.percent_of_peak;
        d_.metrics->Add(metric::kEvaluationsTotal, {{"outcome", eval::EvalStatusName(r.status)}}, 1);
        MutexLock lock(&g->mu);
        g->rows[i] = row;
        if (--g->left == 0)
          net::post(*d_.ioc, [this, g] {
            // Every row is in (no finish is left to write one); taken under
            // the lock all the same, as the rule says.
            json rows;
            {
              MutexLock lock(&g->mu);
              rows = std::move(g->rows);
            }
            // Recorded in the system stream so profiles stay comparable over time.
            store::StreamAppend a;
            a.stream = runtime_event::kSystemStream;
            a.events.push_back(store::NewEvent{
                runtime_event::kBaselineProfiled, 0, {{"suite", g->suite}, {"problems", rows}}, {}, {}});
            auto r = d_.log->Append({std::move(a)});
            if (!r.ok()) LogWarning("could not record the baseline profile: " + r.status().ToString());
            g->respond(ApiOk({{"suite", g->suite}, {"problems", rows}}));
          });
      };
      auto t =
          d_.eval->Submit(std::move(er), "baseline", [finish](uint64_t, eval::EvalResult r) { finish(std::move(r)); });
      if (!t.ok()) finish(eval::EvalResult::Failure(eval::EvalStatus::kInternalError, t.status().message()));
    }
  });
}

}  // namespace accelopt::daemon
