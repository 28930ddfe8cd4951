// CampaignRunner: the runtime that drives one campaign's workflow (see
// workflows/campaign.hpp for the loop it implements).
//
// It folds the campaign's stream, asks workflows::Decide what to do, appends
// the decisions (ActivityScheduled before any activity runs; prompts and
// sources as blobs in the same atomic batch), runs LLM calls and evaluations
// with bounded concurrency, and appends each completion with its reply blob,
// usage, cost, latency and attempts. After a restart, Load() folds the log
// and Start() re-runs every activity that was scheduled but not completed;
// a completed LLM call is never sent again (its reply is in the log).
//
// Pause/resume and interruptions are runtime facts, not workflow decisions:
// they are recorded as CampaignPaused / CampaignResumed /
// CampaignInterrupted events in the same stream, which the fold skips.
//
// Provider outages are runtime facts too. An LLM call whose transport gave
// up on an error that can heal by waiting (network, timeout, 5xx, 429 after
// the provider's retries) does not fail its activity: the runner records an
// LlmCallWaiting event {activity_id, provider, error, error_kind,
// http_status, attempts, request_sha256} and sends the call again through
// the daemon's ProviderGate, which holds it until the provider answers a
// probe (provider_gate.hpp). A restarted daemon folds those events and keeps
// waiting since the first one. The campaign gives up, failing with the
// reason, after spec.budget.max_provider_wait_s, or at its wall-time budget
// when that comes first; without either it waits until cancelled. Errors
// that cannot heal by waiting (401, 403, 404, 400, malformed replies) fail
// the activity at once (LlmCallFailed). Those that fail every call to the
// provider (llm/error_class.hpp: 401/403, a misconfigured provider, 404 no
// such model) also fail the campaign in the same batch (CampaignFailed with
// "provider 'x' fails every call: <the provider's message>; stopped after
// the first such call; fix: ..."), so a bad key costs one call, not every
// iteration; the same refusal of a call still out then is not recorded.
// Without a gate (RuntimeServices.gate null) every error fails the activity.
//
// Threading: all work runs on the runner's strand of the daemon's
// io_context; completions from the LLM transport and evaluation workers are
// posted to it. Public methods are thread-safe. Appends block the strand for
// one group commit (milliseconds).
#pragma once

#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/mutex.hpp"
#include "daemon/campaign_stream.hpp"
#include "daemon/env_timer.hpp"
#include "daemon/memory_banks.hpp"
#include "daemon/llm_in_flight.hpp"
#include "daemon/metrics.hpp"
#include "daemon/provider_gate.hpp"
#include "daemon/recorded_replies.hpp"
#include "evaluators/dispatcher.hpp"
#include "llm/client.hpp"
#include "store/event_log.hpp"
#include "workflows/blob_source.hpp"
#include "workflows/campaign.hpp"
#include "workflows/campaign_state.hpp"

namespace accelopt::daemon {

namespace net = boost::asio;

// The runtime's event types and the record <-> event conversion: campaign_stream.hpp.

struct RuntimeServices {
  store::EventLog* log = nullptr;                // not owned
  const workflows::BlobSource* blobs = nullptr;  // not owned
  llm::ProviderSet* llm = nullptr;               // not owned
  eval::Dispatcher* eval = nullptr;              // not owned
  Metrics* metrics = nullptr;                    // not owned, may be null
  MemoryBanks* banks = nullptr;                  // not owned; memory snapshots
  net::io_context* ioc = nullptr;                // not owned
  Env* env = nullptr;                            // clock for the wall deadline
  ProviderGate* gate = nullptr;                  // not owned; null: outages fail calls
  // Problem id ("suites/cpu/silu") → the folder the evaluator reads.
  std::function<std::string(const std::string& problem_id)> problem_dir;
  int max_llm_in_flight = 8;      // per campaign when llm_share is null
  LlmShare* llm_share = nullptr;  // not owned; the cap as campaigns come and go
                                  // from the providers (daemon/llm_in_flight.hpp)
};

class CampaignRunner : public std::enable_shared_from_this<CampaignRunner> {
 public:
  // Folds the stream of `campaign_id`. kNotFound for an empty stream.
  static Result<std::shared_ptr<CampaignRunner>> Load(const RuntimeServices& services, const std::string& campaign_id);

  // Starts (or resumes) driving, unless finished or paused.
  void Start() ACCELOPT_EXCLUDES(mu_);
  using StatusCallback = std::function<void(Status)>;
  // Records a cancellation; in-flight work is cancelled. `done` runs on the
  // runner's strand (FailedPrecondition when the campaign already ended).
  void Cancel(const std::string& reason, StatusCallback done) ACCELOPT_EXCLUDES(mu_);
  void Pause(StatusCallback done) ACCELOPT_EXCLUDES(mu_);
  void Resume(StatusCallback done) ACCELOPT_EXCLUDES(mu_);
  // Daemon shutdown: stop starting work, cancel in-flight activities (they
  // are re-run on the next start), record CampaignInterrupted. Blocks until
  // that is done on the strand: never call it from the runner's strand.
  void Interrupt(const std::string& reason) ACCELOPT_EXCLUDES(mu_);

  // Called once when the campaign reaches a terminal state (posted to the
  // io_context, not run on the runner's strand).
  void OnFinished(std::function<void(const std::string& id, const std::string& status)> fn) ACCELOPT_EXCLUDES(mu_);

  const std::string& id() const { return id_; }
  // running | paused | completed | failed | cancelled | budget_exhausted
  std::string StateName() const ACCELOPT_EXCLUDES(mu_);
  bool Finished() const ACCELOPT_EXCLUDES(mu_);
  // A copy of the folded state (for summaries and reports).
  workflows::CampaignState Snapshot() const ACCELOPT_EXCLUDES(mu_);
  size_t InFlight() const ACCELOPT_EXCLUDES(mu_);
  // The last error that stopped this runner (store failure, corrupt log).
  Status Health() const ACCELOPT_EXCLUDES(mu_);
  // Providers this campaign waits for: [{provider, since_us, error, calls}]
  // (empty when it waits for none).
  json Waiting() const ACCELOPT_EXCLUDES(mu_);

 private:
  CampaignRunner(const RuntimeServices& s, std::string id);

  // Lock rules: mu_ guards the state below it (the folded state, the
  // stream's version, the flags, the in-flight and waiting maps, the queue).
  // "strand only" methods run on strand_; "takes mu_" ones lock it
  // themselves (call them without it: ACCELOPT_EXCLUDES); "REQUIRES mu_" ones
  // are called with it held (ACCELOPT_REQUIRES). The callbacks given to
  // Cancel/Pause/Resume and OnFinished run without it. Clang checks these
  // rules (base/thread_annotations.hpp, scripts/thread_safety).

  // The loop and its state (campaign_runner.cpp).
  void Post(std::function<void()> fn);  // any thread: runs fn on the strand
  void Pump() ACCELOPT_EXCLUDES(mu_);   // strand only; takes mu_
  // Appends to the campaign's stream (and `side` appends to other streams,
  // e.g. memory banks, in the same atomic batch) and folds what it appended.
  // REQUIRES mu_; on the strand, or on a dispatcher worker (RecordPlacement).
  Status AppendAndApply(std::vector<store::NewEvent> events, std::vector<std::string> blobs,
                        std::vector<workflows::Event>* applied, std::vector<store::StreamAppend> side = {})
      ACCELOPT_REQUIRES(mu_);
  void Launch(const workflows::ActivityRequest& a) ACCELOPT_EXCLUDES(mu_);  // strand only; takes mu_
  // A memory activity: posts the bank snapshot to the strand (takes mu_ there).
  void TakeSnapshot(const workflows::ActivityRequest& a) ACCELOPT_EXCLUDES(mu_);
  void ArmDeadline() ACCELOPT_REQUIRES(mu_);  // strand only, REQUIRES mu_
  // Cancels in-flight activities and empties the LLM queue. REQUIRES mu_.
  void CancelInFlight() ACCELOPT_REQUIRES(mu_);
  // Stops the runner with `s` (Health()) and cancels in-flight work. REQUIRES mu_.
  void Break(const Status& s) ACCELOPT_REQUIRES(mu_);
  // Once, when the state is terminal: stops timers and work, logs the end,
  // posts on_finished_ to the io_context. Strand only, REQUIRES mu_.
  void MaybeFinish() ACCELOPT_REQUIRES(mu_);

  // LLM activities (campaign_runner_llm.cpp).
  void LaunchQueued() ACCELOPT_EXCLUDES(mu_);                                 // strand only; takes mu_
  void StartLlm(const workflows::ActivityRequest& a) ACCELOPT_EXCLUDES(mu_);  // strand only; takes mu_
  void OnLlmDone(const std::string& activity_id, const std::string& request_hash,
                 llm::LlmResult r) ACCELOPT_EXCLUDES(mu_);  // strand only; takes mu_
  // A call deferred by an outage: LlmCallWaiting, then queued first again.
  // Strand only, REQUIRES mu_.
  void DeferLlm(const std::string& activity_id, const std::string& provider, const std::string& request_hash,
                const llm::LlmError& e, workflows::ActivityRequest request) ACCELOPT_REQUIRES(mu_);
  // A call refused as over the context window (context_overflow), not yet
  // shortened: LlmCallShortened with the shorter prompt, then queued first
  // again with it. False (nothing recorded) when the prompt has nothing to
  // leave out: the call then fails with the server's words. Strand only,
  // REQUIRES mu_.
  bool ShortenLlm(const std::string& activity_id, const std::string& provider, const std::string& request_hash,
                  const llm::LlmError& e, workflows::ActivityRequest request) ACCELOPT_REQUIRES(mu_);
  // `a` with the shorter prompt of its LlmCallShortened, if it has one.
  // REQUIRES mu_.
  workflows::ActivityRequest WithShortenedPrompt(workflows::ActivityRequest a) const ACCELOPT_REQUIRES(mu_);
  void ArmWaitLimit() ACCELOPT_REQUIRES(mu_);  // strand only, REQUIRES mu_
  // Fails the campaign naming every provider waited for. Strand only, REQUIRES mu_.
  void GiveUpWaiting(const std::string& why) ACCELOPT_REQUIRES(mu_);
  // A replay's call: true when it was answered from the recorded campaign
  // (or failed as a miss with on_miss "stop"; OnLlmDone is posted either
  // way); false when it goes to the model (no replay, or a miss with
  // on_miss "live"). Strand only; takes mu_.
  bool AnswerFromRecording(const workflows::ActivityRequest& a, const std::string& request_hash) ACCELOPT_EXCLUDES(mu_);

  // Evaluation activities (campaign_runner_eval.cpp).
  void StartEvaluation(const workflows::ActivityRequest& a) ACCELOPT_EXCLUDES(mu_);  // strand only; takes mu_
  // Appends EvaluationPlaced for `activity_id` (called on a dispatcher
  // worker thread, synchronously: the placement is durable on return).
  // Takes mu_.
  void RecordPlacement(const std::string& activity_id, const json& placement) ACCELOPT_EXCLUDES(mu_);
  void OnEvalDone(const std::string& activity_id, eval::EvalResult r) ACCELOPT_EXCLUDES(mu_);  // strand only; takes mu_

  // Set in the constructor, read-only after it: no lock.
  RuntimeServices s_;
  std::string id_;
  std::string stream_;
  net::strand<net::io_context::executor_type> strand_;
  // Strand only (created, armed and cancelled there): the strand serializes
  // it, so it is not guarded by mu_.
  std::unique_ptr<EnvTimer> deadline_timer_;

  mutable Mutex mu_;  // guards the fields below (wait_timer_: the strand)
  workflows::CampaignState state_ ACCELOPT_GUARDED_BY(mu_);
  uint64_t version_ ACCELOPT_GUARDED_BY(mu_) = 0;  // the stream's head as we know it
  bool paused_ ACCELOPT_GUARDED_BY(mu_) = false;
  bool interrupted_ ACCELOPT_GUARDED_BY(mu_) = false;
  bool finished_notified_ ACCELOPT_GUARDED_BY(mu_) = false;
  Status broken_ ACCELOPT_GUARDED_BY(mu_);
  struct ActivityInFlight {
    workflows::ActivityKind kind;
    std::shared_ptr<std::atomic<bool>> cancel;
    uint64_t ticket = 0;                 // evaluations
    uint64_t gate_ticket = 0;            // LLM calls sent through the ProviderGate
    workflows::ActivityRequest request;  // LLM calls: to send again after an outage
  };
  // Outages this campaign waits out, by provider (from LlmCallWaiting
  // events, kept across restarts).
  struct ProviderWait {
    int64_t since_us = 0;
    std::string error;
    std::set<std::string> activities;
  };
  std::map<std::string, ProviderWait> waiting_ ACCELOPT_GUARDED_BY(mu_);
  // Calls sent again with a shorter prompt (LlmCallShortened, kept across
  // restarts): activity id -> the shorter prompt's {system_sha256, user_sha256}.
  std::map<std::string, std::pair<std::string, std::string>> shortened_ ACCELOPT_GUARDED_BY(mu_);
  // Strand only, like deadline_timer_: not guarded by mu_.
  std::unique_ptr<EnvTimer> wait_timer_;
  std::map<std::string, ActivityInFlight> in_flight_ ACCELOPT_GUARDED_BY(mu_);
  // The last placement recorded per evaluation activity (EvaluationPlaced:
  // a Slurm job id), kept across restarts and handed back to the backend.
  std::map<std::string, json> placements_ ACCELOPT_GUARDED_BY(mu_);
  // Waiting for a per-campaign LLM slot.
  std::deque<workflows::ActivityRequest> llm_queue_ ACCELOPT_GUARDED_BY(mu_);
  int llm_running_ ACCELOPT_GUARDED_BY(mu_) = 0;
  std::function<void(const std::string&, const std::string&)> on_finished_ ACCELOPT_GUARDED_BY(mu_);
  // A replay (spec.replay): the recorded campaign's replies, loaded once in
  // Load(); null with replay_error_ set when they cannot be read.
  std::shared_ptr<const RecordedReplies> replay_ ACCELOPT_GUARDED_BY(mu_);
  std::string replay_error_ ACCELOPT_GUARDED_BY(mu_);
  // Activity id -> the recorded activity it took its reply from.
  std::map<std::string, std::string> replayed_from_ ACCELOPT_GUARDED_BY(mu_);
};

}  // namespace accelopt::daemon
