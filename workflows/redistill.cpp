#include "workflows/redistill.hpp"

#include <algorithm>

#include "base/sha256.hpp"
#include "workflows/activity_id.hpp"
#include "workflows/llm_request.hpp"
#include "workflows/memory_item.hpp"
#include "workflows/parse.hpp"
#include "workflows/prompts.hpp"

namespace accelopt::workflows {

namespace {

namespace be = bank_event;

Event Summarized(const RedistillState& st, int pair, json fields) {
  json d = {{"redistill_id", st.id}, {"index", pair}, {"model", st.role.model}};
  d.update(fields);
  return {be::kMemoryRedistillSummarized, std::move(d)};
}

Event Failed(const RedistillState& st, int pair, const std::string& error, double cost_usd) {
  return Summarized(st, pair, {{"ok", false}, {"error", error}, {"cost_usd", cost_usd}});
}

Event Completed(const RedistillState& st) { return {be::kMemoryRedistillCompleted, {{"redistill_id", st.id}}}; }

}  // namespace

Status ValidateRedistillRequest(const RedistillRequest& request) {
  ACCELOPT_RETURN_IF_ERROR(ValidateBankName(request.bank));
  if (request.role.provider.empty() || request.role.model.empty()) {
    return InvalidArgument("re-distillation needs a summarizer provider and model");
  }
  if (request.max_pairs < 0) return InvalidArgument("max_pairs must be >= 0");
  return Status::Ok();
}

bool NamesEveryCampaign(const std::vector<std::string>& campaigns) {
  return campaigns.size() == 1 && campaigns[0] == "*";
}

Result<std::vector<std::string>> RedistillCampaigns(const BankView& bank, const RedistillRequest& request,
                                                    const std::vector<std::string>& every_campaign) {
  for (const auto& r : bank.redistills) {
    if (r.status == kRedistillRunning) {
      return FailedPrecondition("memory bank '" + bank.name + "' is already being re-distilled (" + r.id + ")");
    }
  }
  if (NamesEveryCampaign(request.campaigns)) {
    if (every_campaign.empty()) return FailedPrecondition("there are no campaigns in the log");
    return every_campaign;
  }
  if (!request.campaigns.empty()) return request.campaigns;
  std::vector<std::string> campaigns;
  std::set<std::string> seen;
  for (const auto& i : bank.items) {
    if (i.generation == bank.generation && !i.campaign.empty() && seen.insert(i.campaign).second) {
      campaigns.push_back(i.campaign);
    }
  }
  if (campaigns.empty()) {
    return FailedPrecondition("no campaign wrote to memory bank '" + bank.name + "' (generation " +
                              std::to_string(bank.generation) + "); name the campaigns");
  }
  return campaigns;
}

std::vector<RedistillPair> RecordedPairs(const CampaignState& campaign) {
  std::vector<RedistillPair> out;
  for (size_t p = 0; p < campaign.problems.size(); ++p) {
    for (const auto& it : campaign.problems[p].iterations) {
      for (size_t m = 0; m < it.pairs.size(); ++m) {
        RedistillPair rp;
        rp.campaign = campaign.campaign_id;
        rp.problem_index = static_cast<int>(p);
        rp.problem = campaign.problems[p].info.id;
        rp.iteration = it.iteration;
        rp.pair_index = static_cast<int>(m);
        rp.pair = it.pairs[m];
        out.push_back(std::move(rp));
      }
    }
  }
  return out;
}

Result<Event> StartRedistill(const BankView& bank, const RedistillRequest& request,
                             const std::vector<std::string>& campaigns, std::vector<RedistillPair> pairs) {
  if (request.max_pairs > 0 && static_cast<int>(pairs.size()) > request.max_pairs) pairs.resize(request.max_pairs);
  if (pairs.empty()) return FailedPrecondition("the campaigns named recorded no slow→fast pairs");
  int generation = bank.generation;
  for (const auto& g : bank.generations) generation = std::max(generation, g.value("generation", 1));
  for (const auto& r : bank.redistills) generation = std::max(generation, r.generation);
  ++generation;
  json pj = json::array();
  for (const auto& p : pairs) pj.push_back(ToJson(p));
  return Event{be::kMemoryRedistillStarted,
               {{"redistill_id", "r" + std::to_string(bank.redistills.size() + 1)},
                {"from_generation", bank.generation},
                {"generation", generation},
                {"role", ToJson(request.role)},
                {"campaigns", campaigns},
                {"pairs", std::move(pj)}}};
}

Result<RedistillCommand> DecideRedistill(const RedistillState& state, const BlobSource& blobs,
                                         const CampaignProblems& problems, const std::set<int>& in_flight, int room) {
  RedistillCommand cmd;
  if (!state.started() || state.finished()) return cmd;
  size_t recorded = state.done.size();
  for (int i = 0; i < static_cast<int>(state.pairs.size()); ++i) {
    if (state.done.count(i) || in_flight.count(i)) continue;
    if (static_cast<int>(cmd.calls.size()) >= room) break;
    const RedistillPair& rp = state.pairs[i];
    auto info = problems.Get(rp.campaign, rp.problem_index);
    auto slow = blobs.Get(rp.pair.slow_sha256);
    auto fast = blobs.Get(rp.pair.fast_sha256);
    if (!info.ok() || !slow || !fast) {
      // Nothing to ask: record why, so the re-distillation can finish.
      const std::string why = !info.ok() ? info.status().message() : "the pair's code is missing from the log";
      cmd.events.push_back(Failed(state, i, "invalid_request: " + why, 0.0));
      ++recorded;
      continue;
    }
    const ChatPrompt prompt = SummarizerPrompt(*info, *slow, *fast, rp.pair.speedup);
    cmd.calls.push_back({i, ActivityRequest{activity_id::RedistillCall(state.bank, state.id, i), ActivityKind::kLlm,
                                            kRoleSummarizer, LlmRequestJson(state.role, prompt)}});
  }
  if (recorded == state.pairs.size()) cmd.events.push_back(Completed(state));
  return cmd;
}

Result<RedistillCommand> RecordReply(const RedistillState& state, int pair, const RedistillReply& reply) {
  if (!state.started() || state.finished()) {
    return FailedPrecondition("re-distillation " + state.id + " is not running");
  }
  if (pair < 0 || pair >= static_cast<int>(state.pairs.size()) || state.done.count(pair)) {
    return FailedPrecondition("re-distillation " + state.id + ": pair " + std::to_string(pair) +
                              " is out of range or has a result");
  }
  RedistillCommand cmd;
  if (!reply.ok) {
    cmd.events.push_back(Failed(state, pair, reply.error, reply.cost_usd));
  } else {
    const RedistillPair& rp = state.pairs[pair];
    json d = {{"response_sha256", Sha256Hex(reply.text)},
              {"usage", {{"input_tokens", reply.input_tokens}, {"output_tokens", reply.output_tokens}}},
              {"cost_usd", reply.cost_usd}};
    auto summary = ParseSummarizerReply(reply.text);
    if (!summary.ok()) {
      d["ok"] = false;
      d["error"] = summary.status().message();
    } else if (summary->no_optimization) {
      d["ok"] = false;
      d["error"] = "no optimization found";
    } else {
      const MemoryItem item = BuildMemoryItem(*summary, {activity_id::RedistillItem(state.bank, state.id, pair),
                                                         rp.problem,
                                                         rp.iteration,
                                                         activity_id::RedistillSummarizer(state.id, pair),
                                                         rp.pair,
                                                         {}});
      d["ok"] = true;
      d["item"] = ToJson(item);
    }
    cmd.blobs.push_back(reply.text);
    cmd.events.push_back(Summarized(state, pair, std::move(d)));
  }
  if (state.done.size() + 1 == state.pairs.size()) cmd.events.push_back(Completed(state));
  return cmd;
}

}  // namespace accelopt::workflows
