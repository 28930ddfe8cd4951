// Redistiller: runs re-distillations of memory banks — a chosen summarizer
// model over the recorded slow→fast pairs of chosen campaigns, whose
// summaries become a new generation of the bank, leaving the old
// generations readable (workflows/memory_bank.hpp).
//
// The workflow is workflows/redistill.hpp (pure): it picks the campaigns,
// pairs, id and generation, builds each pair's request and memory item, and
// decides when the re-distillation is done. This class is its runner: it
// reads and appends the bank's events, keeps the fold of them
// (workflows/redistill_state.hpp), runs the LLM calls the decider asks for
// (at most Deps::max_in_flight at once, through daemon/llm_activity.hpp)
// and feeds their replies back.
//
// The pairs are every MemoryPairsSelected pair of the campaigns named (by
// default, the campaigns that added items to the bank's current generation),
// including pairs whose summary failed or was dropped the first time.
// Everything is recorded in the bank's stream: MemoryRedistillStarted (the
// pairs and the model), one MemoryRedistillSummarized per pair (the reply as
// a blob, usage, cost, the new item or why there is none), and
// MemoryRedistillCompleted, which makes the new generation current. A daemon
// killed midway resumes with ResumeAll(), which folds the bank's stream:
// pairs with a recorded result are never asked again; calls that were in
// flight are asked again (at least once, like campaign activities).
//
// At most one re-distillation per bank runs at a time.
//
// Threading: LLM replies arrive on the LLM transport's thread and are
// handed to the io_context; appends happen there, under mu_. Public methods
// are thread-safe.
#pragma once

#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/mutex.hpp"
#include "base/status.hpp"
#include "daemon/memory_banks.hpp"
#include "llm/client.hpp"
#include "store/event_log.hpp"
#include "workflows/blob_source.hpp"
#include "workflows/redistill.hpp"
#include "workflows/redistill_state.hpp"

namespace accelopt::daemon {

// The request (bank, summarizer role, campaigns, max_pairs): the workflow's.
using RedistillRequest = workflows::RedistillRequest;

class Redistiller {
 public:
  struct Deps {
    store::EventLog* log = nullptr;                // not owned
    const workflows::BlobSource* blobs = nullptr;  // not owned
    llm::ProviderSet* llm = nullptr;               // not owned
    MemoryBanks* banks = nullptr;                  // not owned
    boost::asio::io_context* ioc = nullptr;        // not owned
    int max_in_flight = 4;                         // LLM calls per re-distillation
  };
  explicit Redistiller(Deps deps);
  ~Redistiller();  // Shutdown()

  // Records MemoryRedistillStarted and starts the calls. Returns
  // {bank, redistill_id, generation, pairs}. kInvalidArgument for a bad
  // request, kNotFound for an unknown bank or campaign, kFailedPrecondition
  // when the bank is already being re-distilled or there are no pairs.
  Result<json> Start(const RedistillRequest& request) ACCELOPT_EXCLUDES(mu_);
  // Resumes every re-distillation the banks hold as running.
  Status ResumeAll() ACCELOPT_EXCLUDES(mu_);
  // Stops starting calls, cancels those in flight and waits for them.
  void Shutdown() ACCELOPT_EXCLUDES(mu_);

 private:
  // A Run's fields are guarded by mu_ (the Redistiller's) too, but are not
  // annotated: clang reads ACCELOPT_GUARDED_BY(mu_) in a nested struct as
  // the Run's own mu_ and would flag every access. Every function that
  // touches a Run holds mu_ (ACCELOPT_REQUIRES below, or takes it).
  struct Run {
    workflows::RedistillState state;  // the fold of its events so far
    std::set<int> in_flight;          // pairs whose call is out
    bool finished = false;            // completed, or stopped by a failed append
    std::vector<std::shared_ptr<std::atomic<bool>>> cancels;
  };

  // Asks the decider and does what it says: appends its events, starts its calls.
  void Step(const std::shared_ptr<Run>& run) ACCELOPT_REQUIRES(mu_);
  void StartCall(const std::shared_ptr<Run>& run, const workflows::RedistillCall& call) ACCELOPT_REQUIRES(mu_);
  // Appends a command's events (with its blobs) and folds them into the run.
  Status Record(Run& run, const workflows::RedistillCommand& cmd) ACCELOPT_REQUIRES(mu_);
  // Ends the run: completed (state.finished()) or stopped by `why`.
  void Finish(const std::shared_ptr<Run>& run, const Status& why) ACCELOPT_REQUIRES(mu_);
  void OnReply(const std::shared_ptr<Run>& run, int pair, llm::LlmResult r) ACCELOPT_EXCLUDES(mu_);
  Result<std::vector<workflows::RedistillPair>> PairsOf(const std::string& campaign);
  Result<workflows::RedistillState> FoldBank(const std::string& bank, const std::string& id);

  Deps d_;    // set in the constructor, read-only after it
  Mutex mu_;  // guards everything below and every Run
  std::condition_variable idle_;
  bool stopping_ ACCELOPT_GUARDED_BY(mu_) = false;
  int calls_in_flight_ ACCELOPT_GUARDED_BY(mu_) = 0;
  std::map<std::string, std::shared_ptr<Run>> runs_ ACCELOPT_GUARDED_BY(mu_);  // bank -> running re-distillation
};

}  // namespace accelopt::daemon
