// Redistiller: re-distills a memory bank — runs a chosen summarizer model
// over the recorded slow→fast pairs of chosen campaigns and writes the
// summaries as a new generation of the bank, leaving the old generations
// readable (workflows/memory_bank.hpp).
//
// The pairs are every MemoryPairsSelected pair of the campaigns named (by
// default, the campaigns that added items to the bank's current generation),
// including pairs whose summary failed or was dropped the first time.
// Everything is recorded in the bank's stream: MemoryRedistillStarted (the
// pairs and the model), one MemoryRedistillSummarized per pair (the reply as
// a blob, usage, cost, the new item or why there is none), and
// MemoryRedistillCompleted, which makes the new generation current. A daemon
// killed midway resumes with ResumeAll(): pairs with a recorded result are
// never asked again; calls that were in flight are asked again (at least
// once, like campaign activities).
//
// At most one re-distillation per bank runs at a time.
//
// Threading: LLM replies arrive on the LLM transport's thread and are
// handed to the io_context; appends happen there. Public methods are
// thread-safe.
#pragma once

#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "daemon/memory_banks.hpp"
#include "llm/client.hpp"
#include "store/event_log.hpp"
#include "workflows/blob_source.hpp"
#include "workflows/campaign_spec.hpp"
#include "workflows/problem.hpp"

namespace accelopt::daemon {

struct RedistillRequest {
  std::string bank;
  workflows::RoleSpec role;             // provider and model REQUIRED
  std::vector<std::string> campaigns;   // empty: those that wrote the current generation;
                                        // {"*"}: every campaign in the log
  int max_pairs = 0;                    // 0: every pair
};

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
  Result<json> Start(const RedistillRequest& request);
  // Resumes every re-distillation the banks hold as running.
  Status ResumeAll();
  // Stops starting calls, cancels those in flight and waits for them.
  void Shutdown();

 private:
  struct Run {
    std::string bank, id;
    int generation = 0;
    workflows::RoleSpec role;
    std::vector<workflows::RedistillPair> pairs;
    std::set<int> done;
    size_t next = 0;
    int in_flight = 0;
    bool finished = false;
    std::vector<std::shared_ptr<std::atomic<bool>>> cancels;
  };

  void Launch(const std::shared_ptr<Run>& run);          // REQUIRES mu_
  void OnReply(const std::shared_ptr<Run>& run, int index, llm::LlmResult r);
  Result<workflows::ProblemInfo> ProblemInfoOf(const std::string& campaign, int problem);
  Result<std::vector<workflows::RedistillPair>> PairsOf(const std::string& campaign);

  Deps d_;
  std::mutex mu_;
  std::condition_variable idle_;
  bool stopping_ = false;
  int calls_in_flight_ = 0;
  std::map<std::string, std::shared_ptr<Run>> runs_;  // bank -> running re-distillation
};

}  // namespace accelopt::daemon
