#include "daemon/daemon.hpp"

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <optional>
#include <thread>

#include "base/boost_prelude.hpp"
#include "base/log.hpp"
#include "daemon/api.hpp"
#include "daemon/backend_start.hpp"
#include "daemon/change_feed.hpp"
#include "daemon/dashboard.hpp"
#include "daemon/calibration_gate.hpp"
#include "daemon/deferred_calibration.hpp"
#include "daemon/campaign_manager.hpp"
#include "daemon/event_waiters.hpp"
#include "daemon/http_server.hpp"
#include "daemon/memory_banks.hpp"
#include "daemon/metric_names.hpp"
#include "daemon/redistiller.hpp"
#include "daemon/replay_index.hpp"
#include "daemon/notify.hpp"
#include "daemon/provider_gate.hpp"
#include "daemon/state_lock.hpp"
#include "daemon/store_blob_source.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "daemon/llm_in_flight.hpp"
#include "llm/client.hpp"
#include "store/event_log.hpp"
#include "workflows/event.hpp"
#include "base/version.hpp"

namespace accelopt::daemon {
namespace {

namespace fs = std::filesystem;

// The calibration as hardware facts for the campaigns (rendered into every
// agent prompt): without the busy checks' observations, which say nothing
// about the hardware. The CalibrationRecorded event keeps everything.
// With the nki backend configured, its generation's facts ride along under
// "nki" (workflows/prompts_nki.hpp), with the cuda backend its GPU
// calibration under "cuda" (workflows/prompts_cuda.hpp); the cpu prompts
// read only their keys.
json CampaignFacts(json calibration, const json& nki_facts, const json& cuda_facts) {
  if (calibration.is_object()) calibration.erase("checks");
  for (const auto& [key, facts] : {std::pair<const char*, const json*>{"nki", &nki_facts}, {"cuda", &cuda_facts}}) {
    if (facts->is_null()) continue;
    if (!calibration.is_object()) calibration = json::object();
    calibration[key] = *facts;
  }
  return calibration;
}

}  // namespace

int RunDaemon(const DaemonConfig& config, const DaemonOptions& options) {
  Env* env = options.env;
  if (!env) {
    LogError("DaemonOptions.env is required (main passes Env::Default())");
    return 1;
  }
  if (Status st = env->CreateDirs(config.state_dir); !st.ok()) {
    LogError(st.ToString());
    return 1;
  }
  auto lock = StateLock::Acquire(config.state_dir, env);
  if (!lock.ok()) {
    LogError(lock.status().message());
    return 1;
  }
  auto token = LoadTcpToken(config, env);
  if (!token.ok()) {
    LogError(token.status().message());
    return 1;
  }

  store::EventTypeRegistry registry;
  RegisterCampaignStreamTypes(registry);
  MemoryBanks::RegisterEventTypes(registry);
  store::EventLog::Options lo;
  lo.create_if_missing = true;
  lo.registry = &registry;
  lo.projections.push_back(MemoryBanks::MakeProjection());
  lo.rocksdb_env = options.rocksdb_env;
  NotifyStatus("replaying the event log");
  auto log = store::EventLog::Open(config.state_dir + "/events", lo);
  if (!log.ok()) {
    LogError("cannot open the event log: " + log.status().ToString());
    return 1;
  }
  LogInfo("event log open at " + config.state_dir + "/events, " + std::to_string((*log)->LastGlobalPosition()) + " events");

  ReplayIndex replay(log->get());
  llm::ProviderSetOptions po;
  po.env = env;
  po.replay_lookup = [&replay](const std::string& h) { return replay.Lookup(h); };
  auto providers = llm::ProviderSet::Create(config.providers, po);
  if (!providers.ok()) {
    LogError("providers: " + providers.status().message());
    return 1;
  }

  auto started = StartBackends(env, config);
  if (!started.ok()) {
    LogError(started.status().message());
    return 1;
  }
  StartedBackends& be = *started;  // lives until RunDaemon returns: the names below are its parts
  const json& hardware = be.hardware;
  const json& nki_facts = be.nki_facts;
  const json& cuda_facts = be.cuda_facts;
  const std::shared_ptr<eval::cpu::CpuBackend>& cpu = be.cpu;
  const std::shared_ptr<CalibrationGate>& cpu_gate = be.cpu_gate;
  eval::Dispatcher dispatcher(be.slots);

  // The system stream: this start, and the calibration when it changed.
  auto record_system = [&](const char* type, json data) {
    store::StreamAppend a;
    a.stream = runtime_event::kSystemStream;
    a.events.push_back(store::NewEvent{type, 0, std::move(data), {}, {}});
    auto r = (*log)->Append({std::move(a)});
    if (!r.ok()) LogWarning(std::string("could not record ") + type + ": " + r.status().ToString());
  };
  {
    std::string last_calibration;
    auto sys = (*log)->ReadStream(runtime_event::kSystemStream);
    if (sys.ok()) {
      for (const auto& e : *sys)
        if (e.type == runtime_event::kCalibrationRecorded) last_calibration = Dump(e.data.value("calibration", json()));
    }
    record_system(runtime_event::kDaemonStarted, {{"version", accelopt::kVersion}, {"pid", env->ProcessId()}});
    if (cpu && Dump(hardware) != last_calibration) {
      record_system(runtime_event::kCalibrationRecorded, {{"backend", "cpu"}, {"calibration", hardware}});
    }
  }

  net::io_context ioc;
  auto work = net::make_work_guard(ioc);
  Metrics metrics;
  DescribeDaemonMetrics(metrics);

  StoreBlobSource blobs(log->get());
  MemoryBanks banks(log->get());
  ProviderGate gate(ioc, env,
                    ProviderGate::Options{std::chrono::milliseconds(config.provider_probe_initial_ms),
                                          std::chrono::milliseconds(config.provider_probe_max_ms)});
  std::optional<LlmShare> llm_share;  // outlives the runners (destroyed after the manager)
  RuntimeServices rs;
  rs.gate = &gate;
  rs.banks = &banks;
  rs.log = log->get();
  rs.blobs = &blobs;
  rs.llm = providers->get();
  rs.eval = &dispatcher;
  rs.metrics = &metrics;
  rs.ioc = &ioc;
  rs.env = env;
  {
    auto pc = llm::ParseProvidersConfig(config.providers);  // already validated by ProviderSet::Create
    const auto providers = pc.ok() ? *pc : std::vector<llm::ProviderConfig>{};
    rs.max_llm_in_flight = LlmInFlightPerCampaign(providers, config.roles, config.llm_share_per_campaign,
                                                  config.max_llm_in_flight_per_campaign);
    const int slots = LlmInFlightPerCampaign(providers, config.roles, 1.0, 0);
    llm_share.emplace(slots, config.llm_share_per_campaign, config.max_llm_in_flight_per_campaign);
    rs.llm_share = &*llm_share;
    LogInfo("LLM calls in flight per campaign: " +
            (config.max_llm_in_flight_per_campaign > 0
                 ? "at most " + std::to_string(config.max_llm_in_flight_per_campaign)
                 : "all " + std::to_string(slots) + " provider slots for a campaign alone, at most " +
                       std::to_string(rs.max_llm_in_flight) + " while others run"));
  }
  CampaignManager* manager_ptr = nullptr;
  rs.problem_dir = [&manager_ptr](const std::string& id) { return manager_ptr->ProblemDir(id); };
  CampaignManager manager(rs, config, CampaignFacts(hardware, nki_facts, cuda_facts));
  manager_ptr = &manager;

  // A busy host: serve now, evaluate once a calibration is accepted.
  // One cpu calibration at a time: the retries and `calibrate --force`.
  std::mutex calibrate_mu;
  std::unique_ptr<DeferredCalibration> deferred;
  if (be.cpu_refused) {
    DeferredCalibration::Options dco;
    dco.env = env;
    dco.ioc = &ioc;
    dco.gate = cpu_gate.get();
    dco.retry_after = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(be.cpu_retry_after_s));
    dco.measure = [&]() -> Status {
      std::lock_guard lock(calibrate_mu);
      if (deferred && !deferred->waiting()) return Status::Ok();  // accepted meanwhile (calibrate --force)
      auto c = eval::cpu::CalibrateAndSave(be.cpu_calibration_path, be.cpu_calibration);
      if (!c.ok()) return c.status();
      cpu->SetCalibration(*c);
      json j = c->ToJson();
      record_system(runtime_event::kCalibrationRecorded, {{"backend", "cpu"}, {"calibration", j}});
      manager.SetHardware(CampaignFacts(j, nki_facts, cuda_facts));
      return Status::Ok();
    };
    deferred = std::make_unique<DeferredCalibration>(std::move(dco), *be.cpu_refused);
    deferred->Start();
  }

  std::vector<std::thread> threads;
  for (int i = 0; i < std::max(2, options.io_threads); ++i) threads.emplace_back([&ioc] { ioc.run(); });

  if (Status st = manager.Recover(); !st.ok()) {
    LogError("recovering campaigns: " + st.ToString());
  }
  Redistiller redistiller({log->get(), &blobs, providers->get(), &banks, &ioc, 4});
  if (Status st = redistiller.ResumeAll(); !st.ok()) {
    LogError("resuming memory re-distillations: " + st.ToString());
  }

  ApiDeps ad;
  ad.ioc = &ioc;
  ad.log = log->get();
  ad.campaigns = &manager;
  ad.eval = &dispatcher;
  ad.metrics = &metrics;
  ad.config = &config;
  ad.banks = &banks;
  ad.gate = &gate;
  ad.env = env;
  EventWaiters waiters(log->get(), &ioc, env);
  ad.waiters = &waiters;
  ad.redistiller = &redistiller;
  ad.calibrate = [&](bool force, bool force_busy) -> Result<json> {
    std::lock_guard lock(calibrate_mu);
    if (!cpu) return NotFound("the cpu backend is not configured");
    if (!force) {
      if (deferred && deferred->waiting()) {
        return Unavailable("no cpu calibration accepted yet: " + deferred->State().value("reason", "") +
                           " (" + deferred->State().value("fix", "") + ")");
      }
      auto c = cpu->GetCalibration();
      if (!c.ok()) return c.status();
      return c->ToJson();
    }
    // The same procedure as at start and as `accelopt-eval calibrate
    // --force`, with no evaluation of this daemon running meanwhile.
    LogInfo("re-measuring the cpu backend's peaks");
    eval::cpu::CalibrationOptions o = be.cpu_calibration;
    o.force_busy = o.force_busy || force_busy;
    Result<eval::cpu::Calibration> c = Unavailable("calibration not run");
    int still_running = 0;
    bool ran = cpu_gate->Exclusive(std::chrono::seconds(120), [&] { c = eval::cpu::CalibrateAndSave(be.cpu_calibration_path, o); },
                                   &still_running);
    if (!ran)
      return Unavailable("calibration refused: " + std::to_string(still_running) +
                         " evaluation(s) of this daemon still running after 120 s; pause the campaigns and retry");
    if (!c.ok()) return c.status();
    cpu->SetCalibration(*c);
    json j = c->ToJson();
    record_system(runtime_event::kCalibrationRecorded, {{"backend", "cpu"}, {"calibration", j}});
    manager.SetHardware(CampaignFacts(j, nki_facts, cuda_facts));
    if (deferred) deferred->Ready();
    return j;
  };
  ad.calibration_wait = [&deferred]() -> json {
    if (!deferred || !deferred->waiting()) return nullptr;
    return deferred->State();
  };
  ChangeFeed feed(log->get(), &ioc, env, ChangeFeed::Options{});
  Dashboard dashboard(&feed);
  ad.more_routes = [&dashboard](Router& r) { dashboard.AddRoutes(r); };
  Api api(ad);
  HttpServerOptions so;
  so.bearer_token = *token;
  so.write_timeout = std::chrono::seconds(config.write_timeout_s);
  so.token_query_paths = Dashboard::TokenQueryPaths();
  so.unauthorized_html = Dashboard::UnauthorizedPage();
  HttpServer server(ioc, [&api](HttpRequest&& req, Respond respond) { api.Handle(std::move(req), std::move(respond)); }, so);

  int exit_code = 0;
  std::promise<void> bound;
  net::post(ioc, [&] {
    Status st = env->CreateDirs(fs::path(config.unix_socket).parent_path().string());
    if (!st.ok()) st = st.WithContext("unix_socket's folder");
    if (st.ok()) st = server.ListenUnix(config.unix_socket, config.unix_mode);
    if (st.ok() && !config.tcp.empty()) {
      auto colon = config.tcp.rfind(':');
      st = server.ListenTcp(config.tcp.substr(0, colon), config.tcp_port);
    }
    if (!st.ok()) {
      LogError(st.ToString());
      exit_code = 1;
    }
    bound.set_value();
  });
  bound.get_future().wait();

  net::signal_set signals(ioc, SIGINT, SIGTERM);
  std::promise<int> stop;
  auto stop_future = stop.get_future();
  std::atomic<bool> stopping{false};
  if (exit_code != 0) {
    stopping = true;
    stop.set_value(SIGTERM);
  } else {
    signals.async_wait([&](boost::system::error_code ec, int sig) {
      if (!stopping.exchange(true)) stop.set_value(ec ? SIGTERM : sig);
    });
    LogInfo("acceloptd ready on " + config.unix_socket + (config.tcp.empty() ? "" : " and " + config.tcp));
    if (options.on_ready) options.on_ready(server.tcp_port());
    NotifyReady("serving " + std::to_string(manager.All().size()) + " campaigns");
  }

  // Watchdog: ping while the event log's writer is healthy. On the real
  // clock, not the Env's: systemd times the pings in real time.
  net::steady_timer watchdog(ioc);
  std::function<void()> ping;
  if (auto interval = WatchdogPingInterval()) {
    ping = [&, interval] {
      if ((*log)->Healthy()) NotifyWatchdog();
      watchdog.expires_after(*interval);
      watchdog.async_wait([&](boost::system::error_code ec) {
        if (!ec && !stopping) ping();
      });
    };
    net::post(ioc, ping);
  }

  int sig = stop_future.get();
  LogInfo(std::string("stopping (") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ")");
  NotifyStopping();
  net::post(ioc, [&] { server.Stop(); signals.cancel(); watchdog.cancel(); });
  feed.Stop();  // the dashboards' event streams end
  if (deferred) deferred->Stop();
  manager.Shutdown("daemon stopped");
  redistiller.Shutdown();
  if ((*log)->Healthy()) record_system(runtime_event::kDaemonStopped, {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"}});
  dispatcher.Shutdown();
  providers->reset();
  work.reset();
  ioc.stop();
  for (auto& t : threads) t.join();
  (*log)->Close();
  LogInfo("stopped");
  return exit_code;
}

}  // namespace accelopt::daemon
