#include "daemon/memory_banks.hpp"

#include <set>

#include "base/sha256.hpp"
#include "daemon/campaign_stream.hpp"

namespace accelopt::daemon {

using workflows::BankView;

std::shared_ptr<const store::Projection> MemoryBanks::MakeProjection() {
  return store::MakeProjection(kProjection, 1, json::object(), [](json& state, const store::EventRecord& r) -> Status {
    auto bank = workflows::BankOfStream(r.stream);
    if (!bank) return Status::Ok();
    return workflows::ApplyBankEvent(state, *bank, r.version, ToWorkflowEvent(r));
  });
}

void MemoryBanks::RegisterEventTypes(store::EventTypeRegistry& registry) {
  for (const auto& t : workflows::MemoryBankEventTypes()) (void)registry.Register(t.name, t.schema_version);
}

Result<json> MemoryBanks::State() const {
  ACCELOPT_ASSIGN_OR_RETURN(store::ProjectionSnapshot snap, log_->ReadProjection(kProjection));
  return std::move(snap.state);
}

Result<BankView> MemoryBanks::Read(const std::string& bank) const {
  ACCELOPT_RETURN_IF_ERROR(workflows::ValidateBankName(bank));
  ACCELOPT_ASSIGN_OR_RETURN(json state, State());
  return workflows::ReadBank(state, bank);
}

Result<BankView> MemoryBanks::ReadOrEmpty(const std::string& bank) const {
  auto v = Read(bank);
  if (v.ok() || v.status().code() != Code::kNotFound) return v;
  BankView empty;
  empty.name = bank;
  return empty;
}

Result<json> MemoryBanks::List() const {
  ACCELOPT_ASSIGN_OR_RETURN(json state, State());
  json out = json::array();
  for (const std::string& name : workflows::BankNames(state)) {
    ACCELOPT_ASSIGN_OR_RETURN(BankView v, workflows::ReadBank(state, name));
    int retired = 0, tainted = 0;
    std::set<std::string> campaigns;
    for (const auto& i : v.items) {
      if (i.generation != v.generation) continue;
      retired += i.retired ? 1 : 0;
      tainted += (!i.retired && !i.tainted_by.empty()) ? 1 : 0;
      if (!i.campaign.empty()) campaigns.insert(i.campaign);
    }
    int running = 0;
    for (const auto& r : v.redistills) running += r.status == "running" ? 1 : 0;
    out.push_back({{"bank", name},
                   {"version", v.version},
                   {"generation", v.generation},
                   {"items", v.ActiveCount()},
                   {"retired", retired},
                   {"tainted", tainted},
                   {"generations", v.generations.size()},
                   {"campaigns", campaigns.size()},
                   {"redistilling", running}});
  }
  return out;
}

Status MemoryBanks::Append(const std::string& bank, std::vector<workflows::Event> events,
                           std::vector<std::string> blobs) {
  ACCELOPT_RETURN_IF_ERROR(workflows::ValidateBankName(bank));
  store::StreamAppend a;
  a.stream = workflows::MemoryBankStream(bank);
  for (auto& e : events) a.events.push_back(store::NewEvent{e.type, 0, std::move(e.data), {}, {}});
  a.blobs = std::move(blobs);
  return log_->Append({std::move(a)}).status();
}

Result<json> MemoryBanks::Import(const std::string& bank, const json& doc, const std::string& format) {
  ACCELOPT_RETURN_IF_ERROR(workflows::ValidateBankName(bank));
  // Ids of imported AccelOpt items derive from the document, so importing
  // the same file twice adds nothing the second time.
  const std::string prefix = bank + "/import-" + Sha256Hex(Dump(doc)).substr(0, 12);
  ACCELOPT_ASSIGN_OR_RETURN(auto items, workflows::ParseImport(doc, format, prefix));
  ACCELOPT_ASSIGN_OR_RETURN(BankView before, ReadOrEmpty(bank));
  std::set<std::string> present;
  for (const auto& i : before.items) present.insert(i.item.id);
  std::vector<workflows::MemoryItem> fresh;
  for (auto& m : items) {
    if (!present.count(m.id)) fresh.push_back(std::move(m));
  }
  const size_t skipped = items.size() - fresh.size();
  if (!fresh.empty()) {
    ACCELOPT_RETURN_IF_ERROR(Append(
        bank, {workflows::MemoryItemsAddedEvent("import", fresh, {{"format", format.empty() ? "auto" : format}})}));
  }
  ACCELOPT_ASSIGN_OR_RETURN(BankView after, ReadOrEmpty(bank));
  return json{{"bank", bank}, {"added", fresh.size()}, {"skipped", skipped}, {"version", after.version}};
}

Result<json> MemoryBanks::Retire(const std::string& bank, const std::vector<std::string>& ids,
                                 const std::string& reason) {
  if (ids.empty()) return InvalidArgument("name at least one item to retire");
  ACCELOPT_ASSIGN_OR_RETURN(BankView before, Read(bank));
  std::set<std::string> known, tainted_before;
  for (const auto& i : before.items) {
    known.insert(i.item.id);
    if (!i.tainted_by.empty()) tainted_before.insert(i.item.id);
  }
  for (const auto& id : ids) {
    if (!known.count(id)) return NotFound("memory bank '" + bank + "' has no item '" + id + "'");
  }
  ACCELOPT_RETURN_IF_ERROR(
      Append(bank, {{workflows::bank_event::kMemoryItemsRetired, {{"items", ids}, {"reason", reason}}}}));
  ACCELOPT_ASSIGN_OR_RETURN(BankView after, Read(bank));
  json tainted = json::array();
  for (const auto& i : after.items) {
    if (!i.tainted_by.empty() && !tainted_before.count(i.item.id)) tainted.push_back(i.item.id);
  }
  return json{{"bank", bank}, {"retired", ids}, {"tainted", tainted}};
}

Result<json> MemoryBanks::Rebuild() {
  ACCELOPT_ASSIGN_OR_RETURN(json live, State());
  ACCELOPT_RETURN_IF_ERROR(log_->RebuildProjection(kProjection));
  ACCELOPT_ASSIGN_OR_RETURN(json rebuilt, State());
  // Events appended meanwhile may make the two differ; compare what both saw.
  bool equal = true;
  for (const auto& [name, bank] : live.items()) {
    if (!rebuilt.contains(name)) {
      equal = false;
      continue;
    }
    if (rebuilt[name].value("version", 0) == bank.value("version", 0)) {
      equal = equal && rebuilt[name] == bank;
    }
  }
  return json{{"rebuilt", true}, {"equal", equal}, {"banks", rebuilt.size()}};
}

}  // namespace accelopt::daemon
