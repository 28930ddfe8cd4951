#include "workflows/redistill_state.hpp"

namespace accelopt::workflows {

namespace {

namespace be = bank_event;

Status Bad(const RedistillState& st, const Event& e, const std::string& why) {
  return Corruption(e.type + " in " + MemoryBankStream(st.bank) + ": re-distillation " + st.id + ": " + why);
}

bool IsRedistillEvent(const std::string& type) {
  return type == be::kMemoryRedistillStarted || type == be::kMemoryRedistillSummarized ||
         type == be::kMemoryRedistillCompleted;
}

Status ApplyOne(RedistillState& st, const Event& e) {
  const json& d = e.data;
  if (e.type == be::kMemoryRedistillStarted) {
    if (st.started()) return Bad(st, e, "started twice");
    auto role = ParseRoleSpec(d.at("role"), kRoleSummarizer);
    if (!role.ok()) return Bad(st, e, role.status().message());
    st.status = kRedistillRunning;
    st.from_generation = d.at("from_generation").get<int>();
    st.generation = d.at("generation").get<int>();
    st.role = *role;
    st.campaigns = d.value("campaigns", std::vector<std::string>{});
    st.pairs.clear();
    for (const json& p : d.at("pairs")) {
      auto pair = RedistillPair::FromJson(p);
      if (!pair.ok()) return Bad(st, e, pair.status().message());
      st.pairs.push_back(std::move(*pair));
    }
    return Status::Ok();
  }
  if (!st.started()) return Bad(st, e, "not started");
  if (st.finished()) return Bad(st, e, "already completed");
  if (e.type == be::kMemoryRedistillCompleted) {
    if (!st.all_done()) return Bad(st, e, "completed with pairs left");
    st.status = kRedistillCompleted;
    return Status::Ok();
  }
  const int index = d.at("index").get<int>();
  if (index < 0 || index >= static_cast<int>(st.pairs.size())) return Bad(st, e, "pair index out of range");
  if (!st.done.insert(index).second) return Bad(st, e, "pair " + std::to_string(index) + " summarized twice");
  st.cost_usd += d.value("cost_usd", 0.0);
  if (d.contains("item") && d["item"].is_object()) {
    if (auto item = MemoryItem::FromJson(d["item"]); !item.ok()) return Bad(st, e, item.status().message());
    ++st.added;
  } else {
    ++st.failed;
  }
  return Status::Ok();
}

}  // namespace

RedistillState NewRedistillState(const std::string& bank, const std::string& id) {
  RedistillState st;
  st.bank = bank;
  st.id = id;
  return st;
}

Status ApplyRedistill(RedistillState& state, const Event& event) {
  if (!IsRedistillEvent(event.type)) return Status::Ok();
  try {
    if (event.data.at("redistill_id").get<std::string>() != state.id) return Status::Ok();
    return ApplyOne(state, event);
  } catch (const std::exception& ex) {
    return Bad(state, event, std::string("malformed data: ") + ex.what());
  }
}

Result<RedistillState> FoldRedistill(const std::string& bank, const std::string& id, const std::vector<Event>& events) {
  RedistillState st = NewRedistillState(bank, id);
  for (const Event& e : events) ACCELOPT_RETURN_IF_ERROR(ApplyRedistill(st, e));
  return st;
}

}  // namespace accelopt::workflows
