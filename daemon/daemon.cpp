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
#include "daemon/suite_dirs.hpp"
#include "evaluators/suites.hpp"
#include "daemon/llm_in_flight.hpp"
#include "llm/client.hpp"
#include "store/event_log.hpp"
#include "workflows/event.hpp"
#include "base/version.hpp"

namespace accelopt::daemon {
namespace {

namespace fs = std::filesystem;

// The state directory (made if missing) locked for this process, and the
// TCP bearer token.
struct StateDir {
  std::unique_ptr<StateLock> lock;
  std::string token;
};
Result<StateDir> TakeStateDir(const DaemonConfig& config, Env* env) {
  if (Status st = env->CreateDirs(config.state_dir); !st.ok()) return Status(st.code(), st.ToString());
  auto lock = StateLock::Acquire(config.state_dir, env);
  if (!lock.ok()) return lock.status();
  auto token = LoadTcpToken(config, env);
  if (!token.ok()) return token.status();
  return StateDir{std::move(*lock), std::move(*token)};
}

// The event log with the daemon's event types and the memory banks'
// projection, replayed. `registry` must outlive the log.
Result<std::unique_ptr<store::EventLog>> OpenEventLog(const DaemonConfig& config, const DaemonOptions& options) {
  static store::EventTypeRegistry registry = [] {
    store::EventTypeRegistry r;
    RegisterCampaignStreamTypes(r);
    MemoryBanks::RegisterEventTypes(r);
    return r;
  }();
  store::EventLog::Options lo;
  lo.create_if_missing = true;
  lo.registry = &registry;
  lo.projections.push_back(MemoryBanks::MakeProjection());
  lo.rocksdb_env = options.rocksdb_env;
  return store::EventLog::Open(config.state_dir + "/events", lo);
}

// One event in the system stream (daemon lifecycle, calibrations); a
// failure is logged, not fatal.
void RecordSystem(store::EventLog* log, const char* type, json data) {
  store::StreamAppend a;
  a.stream = runtime_event::kSystemStream;
  a.events.push_back(store::NewEvent{type, 0, std::move(data), {}, {}});
  auto r = log->Append({std::move(a)});
  if (!r.ok()) LogWarning(std::string("could not record ") + type + ": " + r.status().ToString());
}

// DaemonStarted in the system stream, and each backend's calibration
// (its calibrate hook's) when it differs from the last one recorded for it.
void RecordStart(store::EventLog* log, const StartedBackends& be, Env* env) {
  auto record_system = [log](const char* type, json data) { RecordSystem(log, type, std::move(data)); };
  std::map<std::string, std::string> last_calibration;  // by backend
  auto sys = log->ReadStream(runtime_event::kSystemStream);
  if (sys.ok()) {
    for (const auto& e : *sys)
      if (e.type == runtime_event::kCalibrationRecorded)
        last_calibration[e.data.value("backend", "cpu")] = Dump(e.data.value("calibration", json()));
  }
  record_system(runtime_event::kDaemonStarted, {{"version", accelopt::kVersion}, {"pid", env->ProcessId()}});
  for (const StartedBackend& b : be.backends) {
    if (!b.calibration) continue;
    const json calibration = b.calibration->Recorded();
    if (calibration.is_null() || Dump(calibration) == last_calibration[b.name]) continue;
    record_system(runtime_event::kCalibrationRecorded, {{"backend", b.name}, {"calibration", calibration}});
  }
}

// How many LLM calls a campaign may have in flight: the providers' slots
// shared among running campaigns (daemon/llm_in_flight.hpp).
void ShareLlmSlots(const DaemonConfig& config, std::optional<LlmShare>* llm_share, RuntimeServices* rs) {
  auto pc = llm::ParseProvidersConfig(config.providers);  // already validated by ProviderSet::Create
  const auto providers = pc.ok() ? *pc : std::vector<llm::ProviderConfig>{};
  rs->max_llm_in_flight = LlmInFlightPerCampaign(providers, config.roles, config.llm_share_per_campaign,
                                                 config.max_llm_in_flight_per_campaign);
  const int slots = LlmInFlightPerCampaign(providers, config.roles, 1.0, 0);
  llm_share->emplace(slots, config.llm_share_per_campaign, config.max_llm_in_flight_per_campaign);
  rs->llm_share = &**llm_share;
  LogInfo("LLM calls in flight per campaign: " +
          (config.max_llm_in_flight_per_campaign > 0
               ? "at most " + std::to_string(config.max_llm_in_flight_per_campaign)
               : "all " + std::to_string(slots) + " provider slots for a campaign alone, at most " +
                     std::to_string(rs->max_llm_in_flight) + " while others run"));
}

// The Unix socket (its folder made if missing) and, if configured, TCP.
Status Listen(HttpServer& server, const DaemonConfig& config, Env* env) {
  Status st = env->CreateDirs(fs::path(config.unix_socket).parent_path().string());
  if (!st.ok()) return st.WithContext("unix_socket's folder");
  st = server.ListenUnix(config.unix_socket, config.unix_mode);
  if (st.ok() && !config.tcp.empty()) {
    auto colon = config.tcp.rfind(':');
    st = server.ListenTcp(config.tcp.substr(0, colon), config.tcp_port);
  }
  return st;
}

// The HTTP server's options: the bearer token for TCP, the write
// deadline, and the dashboard's token-in-query pages and 401 page.
HttpServerOptions ServerOptions(const DaemonConfig& config, const std::string& token) {
  HttpServerOptions so;
  so.bearer_token = token;
  so.write_timeout = std::chrono::seconds(config.write_timeout_s);
  so.token_query_paths = Dashboard::TokenQueryPaths();
  so.unauthorized_html = Dashboard::UnauthorizedPage();
  return so;
}

// systemd's watchdog: pings while the event log's writer is healthy, until
// *stopping or Cancel (on the io_context). On the real clock, not the
// Env's: systemd times the pings in real time. Nothing without
// WATCHDOG_USEC.
class Watchdog {
 public:
  Watchdog(net::io_context& ioc, store::EventLog* log, const std::atomic<bool>* stopping)
      : timer_(ioc), log_(log), stopping_(stopping), interval_(WatchdogPingInterval()) {
    if (interval_) net::post(ioc, [this] { Ping(); });
  }
  void Cancel() { timer_.cancel(); }

 private:
  void Ping() {
    if (log_->Healthy()) NotifyWatchdog();
    timer_.expires_after(*interval_);
    timer_.async_wait([this](boost::system::error_code ec) {
      if (!ec && !*stopping_) Ping();
    });
  }
  net::steady_timer timer_;
  store::EventLog* log_;
  const std::atomic<bool>* stopping_;
  decltype(WatchdogPingInterval()) interval_;
};

}  // namespace

int RunDaemon(const DaemonConfig& config, const DaemonOptions& options) {
  Env* env = options.env;
  if (!env) {
    LogError("DaemonOptions.env is required (main passes Env::Default())");
    return 1;
  }
  // The state directory, held for this process alone, and the TCP token.
  auto state = TakeStateDir(config, env);
  if (!state.ok()) {
    LogError(state.status().message());
    return 1;
  }

  NotifyStatus("replaying the event log");
  auto log = OpenEventLog(config, options);
  if (!log.ok()) {
    LogError("cannot open the event log: " + log.status().ToString());
    return 1;
  }
  LogInfo("event log open at " + config.state_dir + "/events, " + std::to_string((*log)->LastGlobalPosition()) +
          " events");

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
  const StartedBackends& be = *started;  // lives until RunDaemon returns
  eval::Dispatcher dispatcher(AllSlots(be));

  // The system stream: this start, and the calibration when it changed.
  auto record_system = [&log](const char* type, json data) { RecordSystem(log->get(), type, std::move(data)); };
  RecordStart(log->get(), be, env);

  net::io_context ioc;
  auto work = net::make_work_guard(ioc);
  Metrics metrics;
  DescribeDaemonMetrics(metrics);

  StoreBlobSource blobs(log->get());
  MemoryBanks banks(log->get());
  ProviderGate gate(ioc, env,
                    ProviderGate::Options{std::chrono::milliseconds(config.provider_probe_initial_ms),
                                          std::chrono::milliseconds(config.provider_probe_max_ms)});
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
  std::optional<LlmShare> llm_share;  // outlives the runners (destroyed after the manager)
  ShareLlmSlots(config, &llm_share, &rs);
  // Configured suites and those imported under the state dir (suite_dirs.hpp).
  rs.problem_dir = [&config, env](const std::string& id) { return eval::ProblemDirOf(SuiteFolders(config, env), id); };
  CampaignManager manager(rs, config, HardwareFacts(be));

  // Each backend's calibrate hook (a busy host: serve now, evaluate once a
  // calibration is accepted); an accepted calibration is recorded and
  // gives the campaigns the backends' facts again.
  for (const StartedBackend& b : be.backends) {
    if (!b.calibration) continue;
    b.calibration->Start(&ioc, [&, name = b.name](const json& j) {
      record_system(runtime_event::kCalibrationRecorded, {{"backend", name}, {"calibration", j}});
      manager.SetHardware(HardwareFacts(be));
    });
  }

  std::vector<std::thread> threads;
  for (int i = 0; i < std::max(2, options.io_threads); ++i) threads.emplace_back([&ioc] { ioc.run(); });

  if (Status st = manager.Recover(); !st.ok()) LogError("recovering campaigns: " + st.ToString());
  Redistiller redistiller({log->get(), &blobs, providers->get(), &banks, &ioc, 4});
  if (Status st = redistiller.ResumeAll(); !st.ok()) LogError("resuming memory re-distillations: " + st.ToString());

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
  ad.calibrate = [&be](const std::string& backend, bool force, bool force_busy) -> Result<json> {
    BackendCalibration* c = CalibrationOf(be, backend);
    if (!c) return NotFound("no calibratable backend '" + backend + "'");
    return c->Calibrate(force, force_busy);
  };
  ad.calibration_wait = [&be] { return CalibrationWait(be); };
  ChangeFeed feed(log->get(), &ioc, env, ChangeFeed::Options{});
  Dashboard dashboard(&feed);
  ad.more_routes = [&dashboard](Router& r) { dashboard.AddRoutes(r); };
  Api api(ad);
  HttpServer server(
      ioc, [&api](HttpRequest&& req, Respond respond) { api.Handle(std::move(req), std::move(respond)); },
      ServerOptions(config, state->token));

  // Bound on an io thread (the server's sockets belong to the io_context).
  std::promise<Status> bound;
  net::post(ioc, [&] { bound.set_value(Listen(server, config, env)); });
  const Status listening = bound.get_future().get();
  if (!listening.ok()) LogError(listening.ToString());
  const int exit_code = listening.ok() ? 0 : 1;

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

  Watchdog watchdog(ioc, log->get(), &stopping);

  int sig = stop_future.get();
  LogInfo(std::string("stopping (") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ")");
  NotifyStopping();
  net::post(ioc, [&] {
    server.Stop();
    signals.cancel();
    watchdog.Cancel();
  });
  feed.Stop();  // the dashboards' event streams end
  for (const StartedBackend& b : be.backends)
    if (b.calibration) b.calibration->Stop();
  manager.Shutdown("daemon stopped");
  redistiller.Shutdown();
  if ((*log)->Healthy())
    record_system(runtime_event::kDaemonStopped, {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"}});
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
