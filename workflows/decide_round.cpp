#include "workflows/decide_round.hpp"

#include "base/sha256.hpp"
#include "workflows/activity_id.hpp"
#include "workflows/llm_request.hpp"

namespace accelopt::workflows {

namespace {

// The mode's rules, less memory learning for a campaign with a test
// stand-in's figures: memory learns only from measurements
// (campaign_state.hpp).
ModeRules RulesFor(const CampaignState& state) {
  ModeRules r = ModeRulesOf(state.spec);
  if (state.stand_in_results > 0) r.learn_memory = false;
  return r;
}

}  // namespace

Round::Round(const CampaignState& state, const BlobSource& blobs)
    : st_(state), blobs_(blobs), rules_(RulesFor(state)), bank_(MemoryBankOf(state)), budget_(state.budget) {}

std::string Round::Prefix(int p, int i) const { return activity_id::Iteration(st_.campaign_id, p, i); }

Result<std::string> Round::Text(const std::string& sha256) const {
  if (auto text = blobs_.Get(sha256)) return std::move(*text);
  return Corruption("blob " + sha256 + " is missing");
}

Result<const ActivityRecord*> Round::Activity(const std::string& id) const {
  auto it = st_.activities.find(id);
  if (it == st_.activities.end()) return Internal("activity " + id + " is not in the state");
  return &it->second;
}

Status Round::EmitEvent(const char* type, json data) {
  Command c;
  c.event.type = type;
  c.event.data = std::move(data);
  Emit(std::move(c));
  return Status::Ok();
}

json Round::Header(const std::string& id, const char* kind, const std::string& role, const char* purpose, int p, int i,
                   const json& indices, const Amounts& reservation, const json& payload) const {
  json d = {{"activity_id", id},
            {"kind", kind},
            {"role", role},
            {"purpose", purpose},
            {"problem", p},
            {"iteration", i},
            {"reservation", ToJson(reservation)},
            {"payload", payload}};
  for (const auto& [k, v] : indices.items()) d[k] = v;
  return d;
}

bool Round::Reserve(const Amounts& amounts) {
  if (auto blocked = budget_.Blocks(spec().budget, amounts)) {
    if (!blocked_) blocked_ = *blocked;
    return false;
  }
  budget_.Reserve(amounts);
  return true;
}

Status Round::ScheduleLlm(const std::string& id, const std::string& role, const char* purpose, int p, int i,
                          const json& indices, const ChatPrompt& prompt) {
  const RoleSpec& r = spec().Role(role);
  const Amounts reservation = LlmReservation(r, prompt.bytes());
  if (!Reserve(reservation)) return Status::Ok();
  Command c;
  const std::string sys = Sha256Hex(prompt.system), user = Sha256Hex(prompt.user);
  json request = LlmRequestJson(r, prompt);
  // The event records the prompt by its blobs' hashes, not its text.
  json payload = request;
  payload.erase("system");
  payload.erase("user");
  payload["system_sha256"] = sys;
  payload["user_sha256"] = user;
  payload["prompt_bytes"] = prompt.bytes();
  c.event.type = event_type::kActivityScheduled;
  c.event.data = Header(id, "llm", role, purpose, p, i, indices, reservation, payload);
  c.blobs.push_back({sys, prompt.system});
  if (user != sys) c.blobs.push_back({user, prompt.user});
  c.run = ActivityRequest{id, ActivityKind::kLlm, role, std::move(request)};
  Emit(std::move(c));
  return Status::Ok();
}

Status Round::ScheduleEvaluation(const std::string& id, const char* purpose, int p, int i, const json& indices,
                                 const std::string& source_sha256, const std::string& compare_sha256) {
  const Amounts reservation = EvaluationReservation();
  if (!Reserve(reservation)) return Status::Ok();
  ACCELOPT_ASSIGN_OR_RETURN(std::string source, Text(source_sha256));
  const ProblemInfo& info = Problem(p).info;
  json payload = {{"backend", info.backend},
                  {"problem", info.id},
                  {"source_sha256", source_sha256},
                  {"settings", spec().evaluation}};
  if (!compare_sha256.empty()) payload["compare_source_sha256"] = compare_sha256;
  json request = payload;
  request.erase("source_sha256");
  request.erase("compare_source_sha256");
  request["source"] = std::move(source);
  if (!compare_sha256.empty()) {
    ACCELOPT_ASSIGN_OR_RETURN(std::string compare, Text(compare_sha256));
    request["compare_source"] = std::move(compare);
  }
  Command c;
  c.event.type = event_type::kActivityScheduled;
  c.event.data = Header(id, "evaluation", kRoleEvaluator, purpose, p, i, indices, reservation, payload);
  c.run = ActivityRequest{id, ActivityKind::kEvaluation, kRoleEvaluator, std::move(request)};
  Emit(std::move(c));
  return Status::Ok();
}

void Round::ScheduleMemory(const std::string& id, const char* purpose, int p, int i, const json& payload) {
  Command c;
  c.event.type = event_type::kActivityScheduled;
  c.event.data = Header(id, "memory", kRoleMemory, purpose, p, i, json::object(), Amounts{}, payload);
  c.run = ActivityRequest{id, ActivityKind::kMemory, kRoleMemory, payload};
  Emit(std::move(c));
}

}  // namespace accelopt::workflows
