// Round: what the policy files of Decide (campaign.hpp) share during one
// call: the state as given, the round's commands so far, and the budget
// ledger of the round. Internal to workflows/: decide.cpp (the round and its
// structural steps), decide_samples.cpp (the sample loop), decide_memory.cpp
// (the memory steps) and select.cpp (beam and best) are its only users.
//
// Contract:
//  * Pure: a Round reads the state and blobs and writes nothing but its own
//    members; no I/O, clock, threads or randomness other than Rng keyed by
//    the seed and ids. The same state and blobs give the same commands.
//  * Ownership: it borrows `state` and `blobs` (never copied, never changed;
//    both must outlive it) and owns the commands it collects, the ledger
//    (the state's ledger plus this round's reservations, so that the round
//    as a whole keeps every cap) and the first reason a reservation was
//    refused.
//  * Thread safety: none; one Round per Decide call, used by one thread.
//    Concurrent Decide calls each have their own.
//  * Steps append commands in the order they decide them; the round's
//    commands are appended to the log in that order (campaign.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"
#include "workflows/blob_source.hpp"
#include "workflows/budget.hpp"
#include "workflows/campaign.hpp"
#include "workflows/campaign_state.hpp"
#include "workflows/mode_rules.hpp"
#include "workflows/prompts.hpp"  // ChatPrompt

namespace accelopt::workflows {

class Round {
 public:
  Round(const CampaignState& state, const BlobSource& blobs);

  const CampaignState& state() const { return st_; }
  const BlobSource& blobs() const { return blobs_; }
  const CampaignSpec& spec() const { return st_.spec; }
  const ModeRules& rules() const { return rules_; }
  // MemoryBankOf(state): "" for per-problem memory.
  const std::string& bank() const { return bank_; }
  const ProblemState& Problem(int p) const { return st_.problems[p]; }
  const IterationState& It(int p, int i) const { return st_.problems[p].iterations[i]; }
  // IterationPrefix(campaign, p, i): the prefix of the iteration's ids.
  std::string Prefix(int p, int i) const;

  // The text of a blob; kCorruption when it is missing.
  Result<std::string> Text(const std::string& sha256) const;
  // REQUIRES: the activity was scheduled (the state says its call is done);
  // kInternal otherwise.
  Result<const ActivityRecord*> Activity(const std::string& id) const;

  void Emit(Command c) { out_.push_back(std::move(c)); }
  Status EmitEvent(const char* type, json data);

  // ActivityScheduled for an LLM call (prompt texts as blobs), unless the
  // budget says no: then records why (blocked()) and returns Ok.
  Status ScheduleLlm(const std::string& id, const std::string& role, const char* purpose, int p, int i,
                     const json& indices, const ChatPrompt& prompt);
  // ActivityScheduled for an evaluation of `source_sha256`, likewise.
  // compare_sha256: optional second kernel (the problem's baseline) that the
  // evaluator times interleaved with this one (EvalRequest.compare_source).
  Status ScheduleEvaluation(const std::string& id, const char* purpose, int p, int i, const json& indices,
                            const std::string& source_sha256, const std::string& compare_sha256 = "");
  // ActivityScheduled for a memory activity (no reservation).
  void ScheduleMemory(const std::string& id, const char* purpose, int p, int i, const json& payload);

  bool empty() const { return out_.empty(); }
  // The first resource that refused a reservation this round, if any.
  const std::optional<std::string>& blocked() const { return blocked_; }
  std::vector<Command> Take() { return std::move(out_); }

 private:
  json Header(const std::string& id, const char* kind, const std::string& role, const char* purpose, int p, int i,
              const json& indices, const Amounts& reservation, const json& payload) const;
  // Reserves `amounts`, or records why not and returns false.
  bool Reserve(const Amounts& amounts);

  const CampaignState& st_;
  const BlobSource& blobs_;
  const ModeRules rules_;
  const std::string bank_;
  BudgetLedger budget_;  // the state's ledger plus this round's reservations
  std::vector<Command> out_;
  std::optional<std::string> blocked_;
};

}  // namespace accelopt::workflows
