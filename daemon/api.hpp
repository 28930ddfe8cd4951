// The daemon's HTTP API (docs/api.md): routes over a Router, each a thin
// translation between JSON and the CampaignManager / event log / evaluators.
//
// Handlers never block an io thread for long: campaign control answers from
// the runner's strand, long-polls wait on EventWaiters, baseline profiling answers from
// the evaluation dispatcher's callbacks.
//
// Thread safety: Handle may be called from any io thread.
#pragma once

#include "base/boost_prelude.hpp"

#include <memory>

#include "daemon/campaign_manager.hpp"
#include "daemon/event_waiters.hpp"
#include "daemon/memory_banks.hpp"
#include "daemon/metrics.hpp"
#include "daemon/redistiller.hpp"
#include "daemon/router.hpp"
#include "daemon/suite_import.hpp"
#include "evaluators/dispatcher.hpp"
#include "store/event_log.hpp"

namespace accelopt::daemon {

struct ApiDeps {
  net::io_context* ioc = nullptr;
  store::EventLog* log = nullptr;
  CampaignManager* campaigns = nullptr;
  eval::Dispatcher* eval = nullptr;
  Metrics* metrics = nullptr;
  const DaemonConfig* config = nullptr;
  MemoryBanks* banks = nullptr;
  Redistiller* redistiller = nullptr;
  EventWaiters* waiters = nullptr;  // wakes long-polls on appends
  ProviderGate* gate = nullptr;     // which LLM providers answer (may be null)
  Env* env = nullptr;               // REQUIRED: reads the suites (evaluators/suites.hpp)
  // A backend's calibration (its calibrate hook, daemon/backend_module.hpp):
  // the one in use, or (force) measured now and recorded; force_busy
  // accepts a measurement on a busy machine; kNotFound for a backend
  // without one. Blocking (seconds when forced, up to minutes while
  // evaluations finish).
  std::function<Result<json>(const std::string& backend, bool force, bool force_busy)> calibrate;
  // A backend's wait for an accepted calibration (the cpu's:
  // daemon/backends/deferred_calibration.hpp, State()), or null when none waits.
  // Shown in /v1/health and in running campaigns' summaries. May be unset.
  std::function<json()> calibration_wait;
  // More routes on the same router (the dashboard, daemon/dashboard.hpp).
  std::function<void(Router&)> more_routes;
};

class Api {
 public:
  explicit Api(ApiDeps deps);
  void Handle(HttpRequest&& req, Respond respond) const { router_.Dispatch(std::move(req), std::move(respond)); }

 private:
  void AddRoutes();              // every route below, in this order
  void AddServiceRoutes();       // GET /v1/health, GET /metrics
  void AddCampaignRoutes();      // POST /v1/campaigns(/check), GET /v1/campaigns(/{id}), cancel/pause/resume, events
  void AddResultRoutes();        // api_results.cpp: report (JSON, HTML), best, candidates
  void AddMeasureRoutes();       // api_measure.cpp: POST /v1/calibrate, POST /v1/baseline
  json CalibrationWait() const;  // ApiDeps::calibration_wait's, or null
  json WithWaits(json summary) const;  // + "calibration" while a campaign's cpu evaluations wait for one
  void AddMemoryRoutes();              // api_memory.cpp
  void AddSuiteRoutes();               // api_suites.cpp: GET /v1/suites, PUT /v1/suites/{suite}/problems/{name}
  void AddCandidateRoutes();           // api_candidate.cpp: GET /v1/campaigns/{id}/candidate?id=C
  void AddRemeasureRoutes();           // api_remeasure.cpp: POST /v1/remeasure
  // GET .../events: the records after `after`, or, when there are none, a
  // wait for the next append until `deadline_nanos` (on d_.env's monotonic
  // clock).
  void Events(const std::string& id, uint64_t after, size_t limit, int64_t deadline_nanos, Respond respond) const;

  ApiDeps d_;
  Router router_;
  std::shared_ptr<SuiteImporter> importer_;  // set by AddSuiteRoutes, before any request
};

// Parses a request body as a JSON object; the error names the problem.
Result<json> ParseBody(const HttpRequest& req);
// 404 not_found "no campaign '<id>'".
HttpResponse NotFoundCampaign(const std::string& id);

}  // namespace accelopt::daemon
