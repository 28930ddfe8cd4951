// RecordedReplies: one recorded campaign's LLM replies by activity path, for
// a replay (workflows::ReplaySpec; acceloptctl submit --replay-from). A
// replay's LLM activity at path P (activity_id::WithinCampaign, e.g.
// "p0/it1/exec/b0/n2/k0") takes the reply recorded at P in the recorded
// campaign — not keyed by the campaign id, and not by the prompt, which
// embeds this host's calibration — but only when the call builds on what the
// recorded one built on:
//   plan, exec, fix at (p, it, b): the beam member b of iteration it has the
//     same source (sha256) in both runs;
//   summ m at (p, it): memory pair m has the same slow and fast sources.
// Anything else (another beam because this host measured differently, a
// path the recorded run never reached, a call that failed there) is a miss,
// with the reason in words.
//
// Contract:
// - Load folds the recorded campaign's stream once (its LlmCallCompleted
//   events and its state); kNotFound when it has no events.
// - Find reads the reply's blob (the full response JSON) from the log; a
//   blob that cannot be read is a miss with that reason.
// - Immutable after Load: Find is thread-safe. The log must outlive it.
#pragma once

#include <map>
#include <string>
#include <variant>

#include "base/status.hpp"
#include "store/event_log.hpp"
#include "workflows/campaign_state.hpp"

namespace accelopt::daemon {

class RecordedReplies {
 public:
  static Result<RecordedReplies> Load(const store::EventLog* log, const std::string& campaign_id);

  struct Hit {
    std::string response_json;  // llm::ToJson(LlmResponse) as recorded
    std::string recorded_activity_id;
  };
  struct Miss {
    std::string reason;  // e.g. "the recorded run has no reply at p0/it3/plan/b0/n0"
  };
  // `activity_id`: the replay's activity id; `replay`: the replay's state
  // now (the beam and pairs its call builds on).
  std::variant<Hit, Miss> Find(const std::string& activity_id, const workflows::CampaignState& replay) const;

  const std::string& campaign_id() const { return campaign_id_; }
  size_t size() const { return replies_.size(); }

 private:
  const store::EventLog* log_ = nullptr;
  std::string campaign_id_;
  workflows::CampaignState recorded_;
  std::map<std::string, std::pair<std::string, std::string>> replies_;  // path -> (activity id, response blob sha256)
};

}  // namespace accelopt::daemon
