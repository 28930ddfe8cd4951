#include "daemon/daemon.hpp"

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <optional>
#include <thread>

#include "base/boost_prelude.hpp"
#include "base/log.hpp"
#include "daemon/api.hpp"
#include "daemon/change_feed.hpp"
#include "daemon/dashboard.hpp"
#include "daemon/calibration_gate.hpp"
#include "daemon/deferred_calibration.hpp"
#include "daemon/campaign_manager.hpp"
#include "daemon/event_waiters.hpp"
#include "daemon/http_server.hpp"
#include "daemon/memory_banks.hpp"
#include "daemon/redistiller.hpp"
#include "daemon/replay_index.hpp"
#include "daemon/notify.hpp"
#include "daemon/provider_gate.hpp"
#include "daemon/state_lock.hpp"
#include "daemon/store_blob_source.hpp"
#include "evaluators/cpu/cpu_backend.hpp"
#include "evaluators/cuda/calibration.hpp"
#include "evaluators/cuda/cuda_backend.hpp"
#include "evaluators/cuda/toolchain.hpp"
#include "evaluators/triton/triton_backend.hpp"
#include "evaluators/nki/neuron_ls.hpp"
#include "evaluators/nki/sdk.hpp"
#include "evaluators/nki/venv.hpp"
#include "evaluators/nki/nki_backend.hpp"
#include "evaluators/nki/roofline.hpp"
#include "evaluators/slurm/slurm_backend.hpp"
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

// A folder the daemon needs, made if missing; false (logged, naming the
// config field) when it cannot be.
bool NeedDir(Env* env, const std::string& dir, const std::string& field) {
  Status st = env->CreateDirs(dir);
  if (st.ok()) return true;
  LogError(field + ": cannot create " + dir + ": " + st.message());
  return false;
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

  std::vector<eval::Dispatcher::BackendSlots> backends;
  json hardware = json::object();
  json nki_facts;   // null unless the nki backend is configured
  json cuda_facts;  // the GPU calibration; null unless the cuda backend is configured
  std::shared_ptr<eval::cpu::CpuBackend> cpu;
  std::shared_ptr<CalibrationGate> cpu_gate;
  eval::cpu::CalibrationOptions cpu_calibration;  // the one procedure (calibration.hpp), as accelopt-eval's
  std::string cpu_calibration_path;
  std::optional<std::string> cpu_refused;  // why the start's cpu calibration was refused (busy)
  double cpu_retry_after_s = 60;
  for (const auto& [name, bc] : config.evaluators) {
    if (name == "cuda") {
      // Configured but unable to evaluate: refuse to start rather than accept
      // cuda submissions that can never run. Usable means nvcc is found and
      // every listed GPU passes the calibration (compiled with nvcc and run
      // on it, CUDA_VISIBLE_DEVICES=<id>): no GPU, no driver or a broken
      // toolkit shows there, with its reason (docs/evaluation.md, "cuda backend").
      auto nvcc = eval::cuda::FindNvcc(env);
      if (!nvcc.ok()) {
        LogError("evaluators.cuda: " + nvcc.status().message() + "; remove evaluators.cuda from the configuration");
        return 1;
      }
      if (!NeedDir(env, bc.cache_dir, "evaluators." + name + ".cache_dir")) return 1;
      std::optional<eval::cuda::GpuCalibration> gpu;
      for (int d : bc.devices) {
        NotifyStatus("calibrating GPU " + std::to_string(d));
        auto c = eval::cuda::CalibrateGpu(env, *nvcc, bc.cache_dir + "/calibrate-" + std::to_string(d), std::to_string(d));
        if (!c.ok()) {
          LogError("evaluators.cuda: GPU " + std::to_string(d) + " is not usable: " + c.status().message() +
                   "; the cuda backend needs a working GPU for every entry of evaluators.cuda.devices");
          return 1;
        }
        const std::string model = c->gpu.value("name", std::string("?"));
        if (gpu && model != gpu->gpu.value("name", std::string("?"))) {
          LogError("evaluators.cuda: GPU " + std::to_string(d) + " is a " + model + ", GPU " +
                   std::to_string(bc.devices.front()) + " a " + gpu->gpu.value("name", std::string("?")) +
                   ": one cuda backend evaluates on one GPU model (list the same model's devices)");
          return 1;
        }
        // The roofline must be an upper bound on every slot: the highest peaks.
        if (!gpu) gpu = *c;
        gpu->peak_gflops = std::max(gpu->peak_gflops, c->peak_gflops);
        gpu->bandwidth_gbps = std::max(gpu->bandwidth_gbps, c->bandwidth_gbps);
      }
      eval::cuda::CudaBackendOptions co;
      co.env = env;
      co.root = "/";
      co.cache_dir = bc.cache_dir;
      co.nvcc = *nvcc;
      co.devices = bc.devices;
      co.calibration = gpu;
      cuda_facts = gpu->ToJson();
      co.arch = eval::cuda::ArchFlag(std::max(5, gpu->gpu.value("cc_major", 9)), gpu->gpu.value("cc_minor", 0));
      LogInfo("evaluator backend 'cuda': " + std::to_string(bc.devices.size()) + " GPU slot(s), " +
              gpu->gpu.value("name", std::string("?")) + ", " + co.arch + ", nvcc " + *nvcc);
      backends.push_back({std::make_shared<eval::cuda::CudaBackend>(co), bc.slots, {}});
      continue;
    }
    if (name == "triton") {
      // As for cuda: configured but unable to evaluate refuses the start.
      // Usable means the interpreter imports torch and triton and torch
      // sees a CUDA device (each listed GPU is probed with its own
      // CUDA_VISIBLE_DEVICES); the roofline needs the cuda calibration
      // (nvcc), without which results carry none, and the log says so.
      for (int d : bc.devices) {
        ProcessSpec probe;
        probe.argv = {bc.python, "-I", "-c",
                      "import torch, triton, sys; sys.exit(0 if torch.cuda.is_available() else 3)"};
        probe.clear_env = true;
        probe.env_set["PATH"] = "/usr/bin:/bin";
        probe.env_set["CUDA_VISIBLE_DEVICES"] = std::to_string(d);
        probe.timeout = std::chrono::seconds(120);
        probe.max_output_bytes = 1 << 16;
        NotifyStatus("probing torch and triton on GPU " + std::to_string(d));
        auto r = env->RunProcess(probe);
        if (!r.ok() || !r->Succeeded()) {
          std::string why = !r.ok() ? r.status().message()
                            : r->exit_code == 3 ? "torch sees no CUDA device"
                                                : r->Describe() + ": " + r->stderr_data.substr(0, 400);
          LogError("evaluators.triton: " + bc.python + " cannot run the triton runner on GPU " + std::to_string(d) +
                   ": " + why + "; install torch and triton for it, or remove evaluators.triton");
          return 1;
        }
      }
      eval::triton::TritonBackendOptions to;
      to.env = env;
      to.root = "/";
      to.cache_dir = bc.cache_dir;
      to.python = bc.python;
      to.devices = bc.devices;
      if (!NeedDir(env, bc.cache_dir, "evaluators." + name + ".cache_dir")) return 1;
      if (auto nvcc = eval::cuda::FindNvcc(env); nvcc.ok()) {
        auto c = eval::cuda::CalibrateGpu(env, *nvcc, bc.cache_dir + "/calibrate", std::to_string(bc.devices.front()));
        if (c.ok()) {
          to.calibration = *c;
          if (cuda_facts.is_null()) cuda_facts = c->ToJson();
        } else {
          LogWarning("evaluators.triton: no GPU calibration (results carry no roofline): " + c.status().message());
        }
      } else {
        LogWarning("evaluators.triton: no nvcc for the GPU calibration (results carry no roofline): " +
                   nvcc.status().message());
      }
      LogInfo("evaluator backend 'triton': " + std::to_string(bc.devices.size()) + " GPU slot(s), " + bc.python);
      backends.push_back({std::make_shared<eval::triton::TritonBackend>(to), bc.slots, {}});
      continue;
    }
    if (name == "nki" && bc.nki) {
      // NeuronCores as slots; the runner needs the Neuron SDK (accelopt-eval doctor nki).
      if (auto gen = eval::nki::FindGeneration(bc.nki->generation); gen.ok()) nki_facts = eval::nki::GenerationFacts(*gen);
      eval::nki::NkiBackendOptions no;
      no.config = *bc.nki;
      no.env = env;
      // "cores": "auto" (the default): one slot per NeuronCore neuron-ls reports.
      std::string detected;
      if (Status st = eval::nki::ResolveAutoCores(&no.config, env, &detected); !st.ok()) {
        LogError("evaluators.nki.cores \"auto\": " + st.message() + "; " + eval::nki::kNeuronLsFix);
        return 1;
      }
      // The Neuron SDK's generation: which path the runner uses; an
      // unsupported version stops the start naming it and those supported.
      if (Status st = eval::nki::ResolvePython(&no.config, env); !st.ok()) {
        LogError("evaluators.nki.python \"auto\": " + st.message());
        return 1;
      }
      std::string sdk_how;
      if (Status st = eval::nki::ResolveSdk(&no.config, env, {}, &sdk_how); !st.ok()) {
        LogError(st.message() + " (accelopt-eval doctor nki)");
        return 1;
      }
      LogInfo("evaluators.nki: " + sdk_how);
      if (nki_facts.is_object()) {
        nki_facts["nki_path"] = no.config.sdk.PathName();  // the prompts name the language (prompts_nki.cpp)
        nki_facts["neuron_sdk"] = no.config.sdk.Release();
      }
      const int nki_slots = static_cast<int>(no.config.cores.size());
      if (!NeedDir(env, bc.nki->work_dir, "evaluators." + name + ".work_dir")) return 1;
      LogInfo("evaluator backend 'nki': " + std::to_string(nki_slots) + " NeuronCores (" +
              (detected.empty() ? bc.nki->cores_spec : detected) + "), " + bc.nki->generation + ", runner " +
              no.config.python);
      backends.push_back({std::make_shared<eval::nki::NkiBackend>(no), nki_slots, {}});
      continue;
    }
    if (name != "cpu") {
      LogWarning("evaluator backend '" + name + "' is not built on this machine; skipped");
      continue;
    }
    if (bc.slurm) {
      // Every evaluation a Slurm job; the nodes calibrate themselves.
      LogInfo("evaluator backend '" + name + "': Slurm executor, " + std::to_string(bc.slots) + " jobs at once, spool " +
              bc.slurm->spool_dir);
      backends.push_back({std::make_shared<eval::slurm::SlurmBackend>(*bc.slurm, env), bc.slots, {}});
      continue;
    }
    if (!NeedDir(env, bc.cache_dir, "evaluators." + name + ".cache_dir")) return 1;
    eval::cpu::CpuBackendOptions co;
    co.env = env;
    co.root = "/";
    co.cache_dir = bc.cache_dir;
    cpu_calibration = eval::cpu::CalibrationOptionsFor(bc.cache_dir, env, co.compiler);
    cpu_calibration.force_busy = bc.calibration_force_busy;
    cpu_calibration.attempts = bc.calibration_attempts;
    cpu_calibration.retry_wait_s = bc.calibration_retry_wait_s;
    cpu_calibration_path = eval::cpu::CalibrationPath(bc.cache_dir);
    NotifyStatus("calibrating the cpu backend");
    // The saved calibration of this hardware fingerprint when there is one;
    // a new measurement otherwise. Refused as busy: start anyway, cpu
    // evaluations wait for a quiet measurement (DeferredCalibration below).
    auto cal = eval::cpu::LoadOrCalibrate(cpu_calibration_path, cpu_calibration);
    if (!cal.ok() && cal.status().code() != Code::kUnavailable) {
      LogError("cpu calibration failed: " + cal.status().message());
      return 1;
    }
    if (cal.ok()) {
      co.calibration = *cal;
      hardware = cal->ToJson();
    } else {
      cpu_refused = cal.status().message();
      cpu_retry_after_s = bc.calibration_retry_after_s;
    }
    cpu = std::make_shared<eval::cpu::CpuBackend>(co);
    cpu_gate = std::make_shared<CalibrationGate>(cpu);
    // Each slot owns its cores: the judge pins the runner to them and the
    // roofline counts them. One slot: every CPU (no pinning needed).
    std::vector<std::vector<int>> slot_cores = bc.slot_cores;
    if (slot_cores.empty() && bc.slots > 1) slot_cores = eval::SplitCores(env->AllowedCpus(), bc.slots);
    backends.push_back({cpu_gate, bc.slots, slot_cores});
  }
  eval::Dispatcher dispatcher(backends);

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
  metrics.Describe("accelopt_campaigns", "gauge", "campaigns by state");
  metrics.Describe("accelopt_llm_calls_total", "counter", "LLM calls by role, model and outcome");
  metrics.Describe("accelopt_llm_tokens_total", "counter", "LLM tokens by role, model and kind");
  metrics.Describe("accelopt_llm_cost_usd_total", "counter", "LLM cost in USD by role and model");
  metrics.Describe("accelopt_evaluations_total", "counter", "evaluations by outcome");
  metrics.Describe("accelopt_evaluations_queued", "gauge", "evaluations waiting for a slot");
  metrics.Describe("accelopt_evaluations_running", "gauge", "evaluations running");
  metrics.Describe("accelopt_event_log_last_global_position", "gauge", "events in the log");
  metrics.Describe("accelopt_event_log_healthy", "gauge", "1 while the event log accepts writes");
  metrics.Describe("accelopt_event_log_appends_total", "counter", "durable appends by the campaign runtime, by outcome");
  metrics.Describe("accelopt_event_log_append_seconds_sum", "counter", "time spent in durable appends (group commit + fsync)");
  metrics.Describe("accelopt_event_log_append_seconds_count", "counter", "durable appends timed");
  metrics.Describe("accelopt_campaigns_finished_total", "counter", "campaigns that ended, by final state");
  metrics.Describe("accelopt_llm_requests_started_total", "counter", "LLM calls started, by role and model");
  metrics.Describe("accelopt_llm_calls_waiting_total", "counter",
                   "LLM calls deferred because their provider was unavailable, by provider");
  metrics.Describe("accelopt_llm_provider_available", "gauge", "1 while a provider answers, 0 while its calls wait");

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
  if (cpu_refused) {
    DeferredCalibration::Options dco;
    dco.env = env;
    dco.ioc = &ioc;
    dco.gate = cpu_gate.get();
    dco.retry_after = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(cpu_retry_after_s));
    dco.measure = [&]() -> Status {
      std::lock_guard lock(calibrate_mu);
      if (deferred && !deferred->waiting()) return Status::Ok();  // accepted meanwhile (calibrate --force)
      auto c = eval::cpu::CalibrateAndSave(cpu_calibration_path, cpu_calibration);
      if (!c.ok()) return c.status();
      cpu->SetCalibration(*c);
      json j = c->ToJson();
      record_system(runtime_event::kCalibrationRecorded, {{"backend", "cpu"}, {"calibration", j}});
      manager.SetHardware(CampaignFacts(j, nki_facts, cuda_facts));
      return Status::Ok();
    };
    deferred = std::make_unique<DeferredCalibration>(std::move(dco), *cpu_refused);
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
    eval::cpu::CalibrationOptions o = cpu_calibration;
    o.force_busy = o.force_busy || force_busy;
    Result<eval::cpu::Calibration> c = Unavailable("calibration not run");
    int still_running = 0;
    bool ran = cpu_gate->Exclusive(std::chrono::seconds(120), [&] { c = eval::cpu::CalibrateAndSave(cpu_calibration_path, o); },
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
