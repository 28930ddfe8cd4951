// Re-distillation as a workflow: re-writes a memory bank's generation from
// recorded slow→fast pairs with another summarizer model. Pure and
// deterministic like the campaign's Decide (campaign.hpp): no I/O, no clock,
// no threads; what it reads beyond the state comes through BlobSource and
// CampaignProblems, whose answers never change.
//
// The runtime's loop (daemon/redistiller.hpp):
//
//   ValidateRedistillRequest(request)
//   campaigns = RedistillCampaigns(bank, request, every campaign in the log)
//   pairs = RecordedPairs(Fold(campaign)) for each campaign, in order
//   started = StartRedistill(bank, request, campaigns, pairs)
//   append started; state = NewRedistillState(bank, id); ApplyRedistill(state, started)
//   (after a restart: state = FoldRedistill(bank, id, the bank's stream))
//   until state.finished():
//     cmd = DecideRedistill(state, blobs, problems, in_flight, room)
//     append cmd.events with cmd.blobs (one batch); ApplyRedistill each
//     start cmd.calls (in_flight += their pairs)
//     when a call answers (not cancelled): in_flight -= its pair;
//       cmd = RecordReply(state, pair, reply); append and apply it as above
//
// What is decided here: which campaigns and pairs a re-distillation takes,
// its id and generation, the summarizer prompt and LLM request of each pair,
// the memory item a reply makes (memory_item.hpp) or why there is none, and
// when it is done (MemoryRedistillCompleted in the batch of the last
// result). The runtime decides only how many calls run at once (`room`).
// A pair with a recorded result is never asked again; a call that was in
// flight when the daemon stopped is asked again (at least once).
//
// Thread safety and ownership: pure functions of their arguments; the
// sources are only read during the call and never kept, and results are
// plain values owned by the caller.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "workflows/blob_source.hpp"
#include "workflows/campaign.hpp"
#include "workflows/campaign_request.hpp"
#include "workflows/campaign_state.hpp"
#include "workflows/event.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/problem.hpp"
#include "workflows/redistill_state.hpp"

namespace accelopt::workflows {

struct RedistillRequest {
  std::string bank;
  RoleSpec role;                       // provider and model REQUIRED
  std::vector<std::string> campaigns;  // empty: those that wrote the current generation;
                                       // {"*"}: every campaign in the log
  int max_pairs = 0;                   // 0: every pair
};

// kInvalidArgument for a bad bank name, a role without provider or model,
// or max_pairs < 0.
Status ValidateRedistillRequest(const RedistillRequest& request);
// True for {"*"}: every campaign in the log.
bool NamesEveryCampaign(const std::vector<std::string>& campaigns);

// The campaigns whose pairs `request` takes from `bank`: those it names;
// `every_campaign` for {"*"}; by default the campaigns that added items to
// the bank's current generation (in the order of their first item).
// kFailedPrecondition when a re-distillation of the bank is running, or
// there is no campaign to take.
Result<std::vector<std::string>> RedistillCampaigns(const BankView& bank, const RedistillRequest& request,
                                                    const std::vector<std::string>& every_campaign);

// Every pair a campaign recorded (its MemoryPairsSelected), in problem,
// iteration, pair order.
std::vector<RedistillPair> RecordedPairs(const CampaignState& campaign);

// MemoryRedistillStarted of a new re-distillation of `bank` over `pairs`
// (the first max_pairs of them when set): id "r<n+1>" for the bank's n-th,
// the generation after every one the bank has or has started.
// kFailedPrecondition when there are no pairs.
Result<Event> StartRedistill(const BankView& bank, const RedistillRequest& request,
                             const std::vector<std::string>& campaigns, std::vector<RedistillPair> pairs);

// The problems as the campaigns' CampaignStarted recorded them.
class CampaignProblems {
 public:
  virtual ~CampaignProblems() = default;
  // Problem `problem_index` of `campaign`; an error names why there is none
  // (its message goes into the pair's result as it is: the implementation
  // scrubs secrets).
  virtual Result<ProblemInfo> Get(const std::string& campaign, int problem_index) const = 0;
};

// One LLM call to make: the summarizer over pair `pair`. activity.request
// has the campaign's LLM request shape: {provider, model, temperature,
// max_tokens, reasoning, system, user}; activity.activity_id is the call's
// id (activity_id::RedistillCall), to be sent as the request id.
struct RedistillCall {
  int pair = 0;
  ActivityRequest activity;
};

struct RedistillCommand {
  std::vector<Event> events;         // to the bank's stream, in order, in one batch
  std::vector<std::string> blobs;    // contents stored with them (replies)
  std::vector<RedistillCall> calls;  // to start after the events are appended
  bool empty() const { return events.empty() && calls.empty(); }
};

// What a call returned, in the workflow's terms.
struct RedistillReply {
  bool ok = false;
  std::string text;  // ok: the reply
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0;  // ok: the call's; else what a failed call cost
  std::string error;    // !ok: why (scrubbed by the runtime)
};

// The next steps of a running re-distillation: up to `room` calls for the
// pairs, in order, that have no result and are not in `in_flight`; a pair
// that cannot be asked (its problem or code is missing) gets its result
// (ok false, error "invalid_request: <why>") in `events` instead; when every
// pair then has a result, MemoryRedistillCompleted. Empty for a
// re-distillation not started or completed.
Result<RedistillCommand> DecideRedistill(const RedistillState& state, const BlobSource& blobs,
                                         const CampaignProblems& problems, const std::set<int>& in_flight, int room);

// The result of pair `pair`'s call: MemoryRedistillSummarized (the reply as
// a blob, usage, cost, and the item the reply makes, or why there is none:
// a reply that does not parse, "no optimization found", the call's error),
// followed by MemoryRedistillCompleted when it is the last pair without a
// result. kFailedPrecondition when the state is not running or the pair is
// out of range or has a result.
Result<RedistillCommand> RecordReply(const RedistillState& state, int pair, const RedistillReply& reply);

}  // namespace accelopt::workflows
