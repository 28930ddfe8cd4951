#include "workflows/memory_bank.hpp"

#include "workflows/accelopt_import.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace accelopt::workflows {

namespace {

namespace b = bank_event;

Status BadBankEvent(const Event& e, const std::string& why) { return Corruption(e.type + ": " + why); }

// An item an event carries, decoded; a wrong shape is the event's corruption.
Result<MemoryItem> ValidItem(const Event& e, const json& j) {
  auto m = MemoryItem::FromJson(j);
  if (!m.ok()) return BadBankEvent(e, m.status().message());
  return m;
}

json NewBank() {
  return {{"version", 0},
          {"generation", 1},
          {"next_seq", 0},
          {"generations", json::array({{{"generation", 1}, {"source", "live"}}})},
          {"items", json::object()},
          {"redistills", json::object()}};
}

// Recomputes tainted_by of one item from its sources (which come earlier).
void Taint(json& items, json& entry) {
  std::set<std::string> tainted;
  const json& item = entry["item"];
  if (item.contains("derived_from")) {
    for (const json& d : item["derived_from"]) {
      const std::string id = d.get<std::string>();
      auto src = items.find(id);
      if (src == items.end()) continue;
      if ((*src)["retired"].get<bool>()) tainted.insert(id);
      for (const json& t : (*src)["tainted_by"]) tainted.insert(t.get<std::string>());
    }
  }
  entry["tainted_by"] = std::vector<std::string>(tainted.begin(), tainted.end());
}

std::vector<json*> InSeqOrder(json& items) {
  std::vector<json*> order;
  for (auto& [id, entry] : items.items()) order.push_back(&entry);
  std::sort(order.begin(), order.end(),
            [](const json* x, const json* y) { return (*x)["seq"].get<int64_t>() < (*y)["seq"].get<int64_t>(); });
  return order;
}

Status AddItems(json& bank, const Event& e, const json& items, int generation, const std::string& source) {
  json& all = bank["items"];
  for (const json& j : items) {
    ACCELOPT_ASSIGN_OR_RETURN(MemoryItem m, ValidItem(e, j));
    if (all.contains(m.id)) continue;  // an import of the same item again
    json entry = {{"item", ToJson(m)},
                  {"generation", generation},
                  {"seq", bank["next_seq"].get<int64_t>()},
                  {"source", source},
                  {"campaign", e.data.value("campaign", "")},
                  {"added_at_us", e.recorded_at_us},
                  {"retired", false},
                  {"retired_reason", ""},
                  {"tainted_by", json::array()}};
    bank["next_seq"] = bank["next_seq"].get<int64_t>() + 1;
    Taint(all, entry);
    all[m.id] = std::move(entry);
  }
  return Status::Ok();
}

Status ApplyOne(json& bank, const Event& e) {
  const json& d = e.data;
  if (e.type == b::kMemoryItemsAdded) {
    const int generation = d.contains("generation") ? d.at("generation").get<int>() : bank["generation"].get<int>();
    return AddItems(bank, e, d.at("items"), generation, d.at("source").get<std::string>());
  }
  if (e.type == b::kMemoryItemsCredited) {
    json& items = bank["items"];
    for (const json& c : d.at("credits")) {
      auto it = items.find(c.at("item_id").get<std::string>());
      if (it == items.end()) continue;
      json& item = (*it)["item"];
      item["credit"] = item.value("credit", 0) + 1;
      item["last_credited_iteration"] = item.value("last_credited_iteration", -1);
      (*it)["last_credited_at_us"] = e.recorded_at_us;
    }
    return Status::Ok();
  }
  if (e.type == b::kMemoryItemsRetired) {
    json& items = bank["items"];
    const std::string reason = d.value("reason", "");
    for (const json& id : d.at("items")) {
      auto it = items.find(id.get<std::string>());
      if (it == items.end() || (*it)["retired"].get<bool>()) continue;
      (*it)["retired"] = true;
      (*it)["retired_reason"] = reason;
      (*it)["retired_at_us"] = e.recorded_at_us;
    }
    for (json* entry : InSeqOrder(items)) Taint(items, *entry);
    return Status::Ok();
  }
  if (e.type == b::kMemoryRedistillStarted) {
    const std::string id = d.at("redistill_id").get<std::string>();
    if (bank["redistills"].contains(id)) return BadBankEvent(e, "re-distillation " + id + " started twice");
    for (const json& p : d.at("pairs")) {
      if (auto pair = RedistillPair::FromJson(p); !pair.ok()) return BadBankEvent(e, pair.status().message());
    }
    bank["redistills"][id] = {{"status", "running"},
                              {"from_generation", d.at("from_generation").get<int>()},
                              {"generation", d.at("generation").get<int>()},
                              {"role", d.at("role")},
                              {"pairs", d.at("pairs")},
                              {"done", json::array()},
                              {"added", 0},
                              {"failed", 0},
                              {"cost_usd", 0.0},
                              {"started_at_us", e.recorded_at_us}};
    return Status::Ok();
  }
  if (e.type == b::kMemoryRedistillSummarized || e.type == b::kMemoryRedistillCompleted) {
    const std::string id = d.at("redistill_id").get<std::string>();
    auto run = bank["redistills"].find(id);
    if (run == bank["redistills"].end()) return BadBankEvent(e, "unknown re-distillation " + id);
    if ((*run)["status"] != "running") return BadBankEvent(e, "re-distillation " + id + " already completed");
    if (e.type == b::kMemoryRedistillCompleted) {
      const int generation = (*run)["generation"].get<int>();
      (*run)["status"] = "completed";
      (*run)["completed_at_us"] = e.recorded_at_us;
      bank["generation"] = generation;
      bank["generations"].push_back(
          {{"generation", generation}, {"source", "redistill"}, {"redistill_id", id}, {"at_us", e.recorded_at_us}});
      return Status::Ok();
    }
    const int index = d.at("index").get<int>();
    if (index < 0 || index >= static_cast<int>((*run)["pairs"].size())) {
      return BadBankEvent(e, "pair index out of range");
    }
    for (const json& done : (*run)["done"]) {
      if (done.get<int>() == index) return BadBankEvent(e, "pair " + std::to_string(index) + " summarized twice");
    }
    (*run)["done"].push_back(index);
    (*run)["cost_usd"] = (*run)["cost_usd"].get<double>() + d.value("cost_usd", 0.0);
    if (d.contains("item") && d["item"].is_object()) {
      (*run)["added"] = (*run)["added"].get<int>() + 1;
      return AddItems(bank, e, json::array({d["item"]}), (*run)["generation"].get<int>(), "redistill");
    }
    (*run)["failed"] = (*run)["failed"].get<int>() + 1;
    return Status::Ok();
  }
  return BadBankEvent(e, "unknown memory bank event type");
}

}  // namespace

const std::vector<EventTypeInfo>& MemoryBankEventTypes() {
  static const std::vector<EventTypeInfo> kTypes = {
      {b::kMemoryItemsAdded, 1},       {b::kMemoryItemsCredited, 1},       {b::kMemoryItemsRetired, 1},
      {b::kMemoryRedistillStarted, 1}, {b::kMemoryRedistillSummarized, 1}, {b::kMemoryRedistillCompleted, 1},
  };
  return kTypes;
}

std::string MemoryBankStream(const std::string& bank) { return "memory-" + bank; }

std::optional<std::string> BankOfStream(const std::string& stream) {
  static const std::string kPrefix = "memory-";
  if (stream.size() <= kPrefix.size() || stream.compare(0, kPrefix.size(), kPrefix) != 0) {
    return std::nullopt;
  }
  return stream.substr(kPrefix.size());
}

Status ApplyBankEvent(json& banks, const std::string& bank, uint64_t version, const Event& e) {
  if (e.schema_version != 1) {
    return Corruption(e.type + ": schema version " + std::to_string(e.schema_version) + " is not known (expected 1)");
  }
  if (!banks.is_object()) banks = json::object();
  if (!banks.contains(bank)) banks[bank] = NewBank();
  // In place: a bank holds many items, and a failed fold stops the whole
  // projection until it is rebuilt anyway (store/projection.hpp).
  json& state = banks[bank];
  try {
    ACCELOPT_RETURN_IF_ERROR(ApplyOne(state, e));
  } catch (const std::exception& ex) {
    return Corruption(e.type + " in " + MemoryBankStream(bank) + ": malformed data: " + ex.what());
  }
  state["version"] = version;
  return Status::Ok();
}

json ToJson(const RedistillPair& p) {
  return {{"campaign", p.campaign},   {"problem_index", p.problem_index}, {"problem", p.problem},
          {"iteration", p.iteration}, {"pair_index", p.pair_index},       {"pair", ToJson(p.pair)}};
}

Result<RedistillPair> RedistillPair::FromJson(const json& j) {
  RedistillPair p;
  const json* pair = nullptr;
  ACCELOPT_RETURN_IF_ERROR(DecodeJsonFields("re-distillation pair", [&] {
    p.campaign = j.at("campaign").get<std::string>();
    p.problem_index = j.at("problem_index").get<int>();
    p.problem = j.at("problem").get<std::string>();
    p.iteration = j.at("iteration").get<int>();
    p.pair_index = j.at("pair_index").get<int>();
    pair = &j.at("pair");
  }));
  ACCELOPT_ASSIGN_OR_RETURN(p.pair, MemoryPair::FromJson(*pair));
  return p;
}

int BankView::ActiveCount() const {
  int n = 0;
  for (const BankItem& i : items) n += (i.generation == generation && !i.retired) ? 1 : 0;
  return n;
}

Result<BankView> ReadBank(const json& banks, const std::string& bank) {
  if (!banks.is_object() || !banks.contains(bank)) return NotFound("no memory bank '" + bank + "'");
  const json& j = banks.at(bank);
  BankView v;
  auto malformed = [&](const std::string& why) {
    return Corruption("memory bank '" + bank + "' projection is malformed: " + why);
  };
  try {
    v.name = bank;
    v.version = j.at("version").get<uint64_t>();
    v.generation = j.at("generation").get<int>();
    v.generations = j.at("generations");
    for (const auto& [id, e] : j.at("items").items()) {
      BankItem it;
      auto item = MemoryItem::FromJson(e.at("item"));
      if (!item.ok()) return malformed(item.status().message());
      it.item = std::move(*item);
      it.generation = e.at("generation").get<int>();
      it.seq = e.at("seq").get<int64_t>();
      it.source = e.at("source").get<std::string>();
      it.campaign = e.value("campaign", "");
      it.added_at_us = e.value("added_at_us", int64_t{0});
      it.retired = e.at("retired").get<bool>();
      it.retired_reason = e.value("retired_reason", "");
      it.tainted_by = e.at("tainted_by").get<std::vector<std::string>>();
      v.items.push_back(std::move(it));
    }
    std::sort(v.items.begin(), v.items.end(), [](const BankItem& x, const BankItem& y) { return x.seq < y.seq; });
    for (const auto& [id, r] : j.at("redistills").items()) {
      RedistillRun run;
      run.id = id;
      run.status = r.at("status").get<std::string>();
      run.from_generation = r.at("from_generation").get<int>();
      run.generation = r.at("generation").get<int>();
      run.role = r.at("role");
      for (const json& p : r.at("pairs")) {
        auto pair = RedistillPair::FromJson(p);
        if (!pair.ok()) return malformed(pair.status().message());
        run.pairs.push_back(std::move(*pair));
      }
      run.done = r.at("done").get<std::vector<int>>();
      run.added = r.at("added").get<int>();
      run.failed = r.at("failed").get<int>();
      run.cost_usd = r.at("cost_usd").get<double>();
      v.redistills.push_back(std::move(run));
    }
  } catch (const std::exception& ex) {
    return malformed(ex.what());
  }
  return v;
}

std::vector<std::string> BankNames(const json& banks) {
  std::vector<std::string> names;
  if (!banks.is_object()) return names;
  for (const auto& [name, _] : banks.items()) names.push_back(name);
  return names;  // json objects iterate in key order
}

std::vector<MemoryItem> SelectForPrompt(const BankView& bank, const std::string& problem, int limit) {
  std::vector<const BankItem*> pool;
  for (const BankItem& i : bank.items) {
    if (i.generation != bank.generation || i.retired || i.item.no_optimization) continue;
    pool.push_back(&i);
  }
  std::stable_sort(pool.begin(), pool.end(), [&](const BankItem* x, const BankItem* y) {
    if (x->item.credit != y->item.credit) return x->item.credit > y->item.credit;
    const bool xs = x->item.problem == problem, ys = y->item.problem == problem;
    if (xs != ys) return xs;
    return x->seq > y->seq;
  });
  std::vector<MemoryItem> out;
  for (const BankItem* i : pool) {
    if (static_cast<int>(out.size()) >= limit) break;
    out.push_back(i->item);
  }
  return out;
}

json ExportBank(const BankView& bank, std::optional<int> generation) {
  const int g = generation.value_or(bank.generation);
  json items = json::array();
  for (const BankItem& i : bank.items) {
    if (i.generation != g) continue;
    json j = ToJson(i.item);
    j["credit"] = i.item.credit;
    j["generation"] = i.generation;
    j["source"] = i.source;
    j["campaign"] = i.campaign;
    j["retired"] = i.retired;
    if (i.retired) j["retired_reason"] = i.retired_reason;
    if (!i.tainted_by.empty()) j["tainted_by"] = i.tainted_by;
    items.push_back(std::move(j));
  }
  return {{"format", "accelopt-memory-bank"},
          {"format_version", 1},
          {"bank", bank.name},
          {"generation", g},
          {"items", std::move(items)}};
}

Result<std::vector<MemoryItem>> ParseImport(const json& doc, const std::string& format, const std::string& id_prefix) {
  std::string f = format.empty() ? "auto" : format;
  if (f != "auto" && f != "bank" && f != "accelopt") {
    return InvalidArgument("import format must be auto, bank or accelopt, not '" + f + "'");
  }
  if (f == "auto") {
    f = doc.is_object() && doc.value("format", "") == "accelopt-memory-bank" ? "bank" : "accelopt";
  }
  std::vector<MemoryItem> out;
  if (f == "bank") {
    if (!doc.is_object() || doc.value("format", "") != "accelopt-memory-bank" || !doc.contains("items") ||
        !doc["items"].is_array()) {
      return InvalidArgument("not an accelopt memory bank export (format \"accelopt-memory-bank\" with items)");
    }
    for (size_t i = 0; i < doc["items"].size(); ++i) {
      const json& j = doc["items"][i];
      if (j.is_object() && j.value("retired", false)) continue;
      auto m = MemoryItem::FromJson(j);
      if (!m.ok()) return InvalidArgument("items[" + std::to_string(i) + "]: " + m.status().message());
      m->credit = 0;  // credit is earned in the bank that uses it
      m->last_credited_iteration = -1;
      out.push_back(std::move(*m));
    }
    return out;
  }
  const json* list = &doc;
  if (doc.is_object()) {
    for (const char* key : {"experiences", "memory", "items"}) {
      if (doc.contains(key) && doc[key].is_array()) {
        list = &doc[key];
        break;
      }
    }
  }
  return ParseAccelOptExperiences(*list, id_prefix);
}

Event MemoryItemsAddedEvent(const std::string& source, const std::vector<MemoryItem>& items, const json& extra) {
  json list = json::array();
  for (const MemoryItem& m : items) list.push_back(ToJson(m));
  json d = extra.is_object() ? extra : json::object();
  d["source"] = source;
  d["items"] = std::move(list);
  return {bank_event::kMemoryItemsAdded, std::move(d)};
}

}  // namespace accelopt::workflows
