#include "sim.hpp"

#include "base/sha256.hpp"
#include "scripted_completion.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/rng.hpp"

namespace accelopt::workflows::testing {

Sim::Sim(CampaignSpec spec, Script script, uint64_t order_seed, size_t max_in_flight)
    : spec_(std::move(spec)), script_(std::move(script)), order_seed_(order_seed), max_in_flight_(max_in_flight) {}

void Sim::PutBlob(const std::string& content) {
  if (!blobs_.Get(Sha256Hex(content))) blob_log_.emplace_back(log_.size(), content);
  blobs_.Put(content);
}

Status Sim::Append(Event e) {
  clock_us_ += 1000;
  e.recorded_at_us = clock_us_;
  ACCELOPT_RETURN_IF_ERROR(Apply(state_, e));
  log_.push_back(std::move(e));
  return Status::Ok();
}

Status Sim::AppendSide(const SideEvent& se) {
  auto bank = BankOfStream(se.stream);
  if (!bank) return Internal("side event for a stream that is not a bank: " + se.stream);
  Event e = se.event;
  e.recorded_at_us = clock_us_;
  ACCELOPT_RETURN_IF_ERROR(ApplyBankEvent(banks_, *bank, ++bank_versions_[se.stream], e));
  side_log_.emplace_back(log_.size(), SideEvent{se.stream, e});
  return Status::Ok();
}

Status Sim::AppendToBank(const std::string& bank, const Event& e) {
  if (banks_.contains(bank)) bank_versions_[MemoryBankStream(bank)] = banks_[bank]["version"].get<uint64_t>();
  return AppendSide({MemoryBankStream(bank), e});
}

Status Sim::Start(const std::string& campaign_id, const std::vector<ProblemSource>& sources, const json& hardware) {
  ACCELOPT_ASSIGN_OR_RETURN(Command start, StartCampaign(campaign_id, spec_, sources, hardware));
  for (const Blob& b : start.blobs) PutBlob(b.content);
  return Append(start.event);
}

Status Sim::ResumeFrom(const Sim& other, size_t n) {
  for (const auto& [at, content] : other.blob_log_) {
    if (at < n) PutBlob(content);
  }
  banks_ = json::object();
  size_t next_side = 0;
  for (size_t i = 0; i < n; ++i) {
    ACCELOPT_RETURN_IF_ERROR(Append(other.log_[i]));
    // Side events were appended in the same batch as event i.
    while (next_side < other.side_log_.size() && other.side_log_[next_side].first <= i + 1) {
      ACCELOPT_RETURN_IF_ERROR(AppendSide(other.side_log_[next_side++].second));
    }
  }
  clock_us_ = other.clock_us_;
  ACCELOPT_ASSIGN_OR_RETURN(auto pending, PendingActivities(state_, blobs_));
  in_flight_ = std::move(pending);
  return Status::Ok();
}

Status Sim::RunOne(const ActivityRequest& a) {
  if (a.kind == ActivityKind::kMemory) {
    const std::string bank = a.request.at("bank").get<std::string>();
    BankView view;
    view.name = bank;
    if (auto read = ReadBank(banks_, bank); read.ok()) view = std::move(*read);
    json items = json::array();
    for (const MemoryItem& m :
         SelectForPrompt(view, a.request.at("problem").get<std::string>(), a.request.at("limit").get<int>())) {
      items.push_back(ToJson(m));
    }
    return Append(MemorySnapshotTakenEvent(a.activity_id, bank, view.version, view.generation, items));
  }
  if (a.kind == ActivityKind::kLlm) ++llm_requests_[a.activity_id];
  ScriptedOutcome done = ScriptedCompletion(spec_, script_, a);
  if (done.reply) PutBlob(*done.reply);
  return Append(std::move(done.event));
}

Status Sim::RunToEnd(const std::function<void(const CampaignState&)>& on_event) {
  for (int guard = 0; guard < 1'000'000; ++guard) {
    // Decide until nothing more can be decided without a completion.
    while (!state_.finished()) {
      const auto t0 = std::chrono::steady_clock::now();
      auto decided = Decide(state_, blobs_);
      if (on_decide) {
        on_decide(state_,
                  std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
      }
      ACCELOPT_ASSIGN_OR_RETURN(std::vector<Command> cmds, std::move(decided));
      if (cmds.empty()) break;
      ++decide_rounds_;
      for (Command& c : cmds) {
        for (const Blob& b : c.blobs) PutBlob(b.content);
        ACCELOPT_RETURN_IF_ERROR(Append(c.event));
        for (const SideEvent& se : c.side_events) ACCELOPT_RETURN_IF_ERROR(AppendSide(se));
        if (on_event) on_event(state_);
        if (c.run) in_flight_.push_back(*c.run);
      }
    }
    max_seen_in_flight_ = std::max(max_seen_in_flight_, in_flight_.size());
    if (in_flight_.empty()) {
      if (state_.finished()) return Status::Ok();
      return Internal("stuck: nothing in flight and Decide returned nothing");
    }
    // Complete one activity, chosen at random among those in flight (the
    // oldest ones only, when max_in_flight_ is small).
    Rng rng(order_seed_, std::to_string(draws_++));
    const size_t window = std::min(in_flight_.size(), max_in_flight_);
    const size_t pick = rng.Uniform(window);
    ActivityRequest a = in_flight_[pick];
    in_flight_.erase(in_flight_.begin() + static_cast<long>(pick));
    ACCELOPT_RETURN_IF_ERROR(RunOne(a));
    if (on_event) on_event(state_);
  }
  return Internal("did not finish");
}

}  // namespace accelopt::workflows::testing
