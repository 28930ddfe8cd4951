// Test-only, in-memory runtime for the campaign workflow: an event log, a
// blob map, scripted LLM replies and evaluation results, and a driver loop
// that keeps several activities in flight and completes them in a seeded
// random order (as slow replies would). Counts LLM requests per activity.
// Memory banks live in `banks()` (the projection state of
// workflows/memory_bank.hpp), fed by the commands' side events; memory
// activities read it.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "workflows/campaign.hpp"

namespace accelopt::workflows::testing {

struct ScriptedReply {
  bool ok = true;
  std::string text;
  std::string error;
  // A failed call's reply cut at max_tokens (error kind "truncated"): kept
  // as a blob and named by the event's partial_sha256, as the daemon does.
  std::string partial;
};

struct Script {
  // Reply for an LLM request (role, activity id and prompts available).
  std::function<ScriptedReply(const ActivityRequest&)> llm;
  // Evaluation result JSON for an evaluation request.
  std::function<json(const ActivityRequest&)> evaluate;
  // Usage of a reply: by default bytes/4 in and out; worst_case uses the
  // reservation's bounds exactly (the most a provider could bill).
  bool worst_case_usage = false;
};

class Sim {
 public:
  Sim(CampaignSpec spec, Script script, uint64_t order_seed, size_t max_in_flight = 1000);

  // Starts a fresh campaign (StartCampaign + append).
  Status Start(const std::string& campaign_id, const std::vector<ProblemSource>& sources, const json& hardware);
  // Continues from the first `n` events of `other` (and the blobs stored with
  // them): folds them, then re-runs PendingActivities like a restarted daemon.
  Status ResumeFrom(const Sim& other, size_t n);
  // Starts with these memory banks (another Sim's banks(), an import...).
  void SeedBanks(json banks) { banks_ = std::move(banks); }
  // Appends an event to a bank's stream (a person retiring an item, ...).
  Status AppendToBank(const std::string& bank, const Event& e);
  // Drives until the campaign finishes. `on_event` (may be empty) sees the
  // state after every appended event.
  Status RunToEnd(const std::function<void(const CampaignState&)>& on_event = {});

  // Called after every Decide call with its duration (benchmarks).
  std::function<void(const CampaignState&, int64_t nanos)> on_decide;

  const std::vector<Event>& log() const { return log_; }
  const CampaignState& state() const { return state_; }
  const MapBlobSource& blobs() const { return blobs_; }
  const std::map<std::string, int>& llm_requests() const { return llm_requests_; }
  const json& banks() const { return banks_; }
  // Every bank event, in order, with the campaign log's size when appended.
  const std::vector<std::pair<size_t, SideEvent>>& side_log() const { return side_log_; }
  size_t max_seen_in_flight() const { return max_seen_in_flight_; }
  int64_t decide_rounds() const { return decide_rounds_; }

 private:
  Status Append(Event e);
  Status AppendSide(const SideEvent& se);
  void PutBlob(const std::string& content);
  Status RunOne(const ActivityRequest& a);

  CampaignSpec spec_;
  Script script_;
  uint64_t order_seed_;
  size_t max_in_flight_;
  std::vector<Event> log_;
  json banks_ = json::object();
  std::map<std::string, uint64_t> bank_versions_;
  std::vector<std::pair<size_t, SideEvent>> side_log_;
  // Blobs in the order they were stored, with the log size at that moment.
  std::vector<std::pair<size_t, std::string>> blob_log_;
  MapBlobSource blobs_;
  CampaignState state_;
  std::vector<ActivityRequest> in_flight_;
  std::map<std::string, int> llm_requests_;
  int64_t clock_us_ = 1'700'000'000'000'000;
  uint64_t draws_ = 0;
  size_t max_seen_in_flight_ = 0;
  int64_t decide_rounds_ = 0;
};

}  // namespace accelopt::workflows::testing
