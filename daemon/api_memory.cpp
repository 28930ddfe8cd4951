// The memory bank routes of the API (docs/api.md, "Memory banks").
#include "daemon/api.hpp"

#include "base/log.hpp"

namespace accelopt::daemon {
namespace {

json ItemJson(const workflows::BankItem& i) {
  json j = workflows::ToJson(i.item);
  j["credit"] = i.item.credit;
  j["generation"] = i.generation;
  j["source"] = i.source;
  j["campaign"] = i.campaign;
  j["added_at_us"] = i.added_at_us;
  j["retired"] = i.retired;
  if (i.retired) j["retired_reason"] = i.retired_reason;
  j["tainted_by"] = i.tainted_by;
  j["speedup"] = i.item.pair.speedup;
  return j;
}

json RedistillJson(const workflows::RedistillRun& r) {
  return {{"redistill_id", r.id},
          {"status", r.status},
          {"from_generation", r.from_generation},
          {"generation", r.generation},
          {"provider", r.role.value("provider", "")},
          {"model", r.role.value("model", "")},
          {"pairs", r.pairs.size()},
          {"done", r.done.size()},
          {"added", r.added},
          {"failed", r.failed},
          {"cost_usd", r.cost_usd}};
}

// ?generation=N, or the bank's current one.
Result<int> GenerationParam(const RouteParams& p, const workflows::BankView& bank) {
  auto it = p.query.find("generation");
  if (it == p.query.end() || it->second.empty()) return bank.generation;
  try {
    size_t used = 0;
    int g = std::stoi(it->second, &used);
    if (used != it->second.size() || g < 1) throw std::invalid_argument("");
    return g;
  } catch (const std::exception&) {
    return InvalidArgument("generation must be a positive integer, not '" + it->second + "'");
  }
}

}  // namespace

void Api::AddMemoryRoutes() {
  using V = http::verb;
  router_.Add(V::get, "/v1/memory", [this](const HttpRequest&, const RouteParams&, Respond respond) {
    auto list = d_.banks->List();
    if (!list.ok()) return respond(ApiError(list.status()));
    // Memory of problem-scope campaigns (the paper's, and the default) lives
    // in the campaign, not in a bank: listed per campaign and problem.
    json problem_scope = json::array();
    for (const auto& r : d_.campaigns->All()) {
      const auto st = r->Snapshot();
      if (st.spec.memory.scope != "problem") continue;
      for (const auto& ps : st.problems) {
        if (ps.memory.empty()) continue;
        int credit = 0;
        for (const auto& m : ps.memory) credit += m.credit;
        problem_scope.push_back({{"campaign", r->id()},
                                 {"problem", ps.info.id},
                                 {"items", ps.memory.size()},
                                 {"credit", credit},
                                 {"iteration", static_cast<int>(ps.iterations.size())}});
      }
    }
    respond(ApiOk({{"banks", *list}, {"problem_scope", problem_scope}}));
  });

  router_.Add(V::get, "/v1/memory/{bank}", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto bank = d_.banks->Read(p.path.at("bank"));
    if (!bank.ok()) return respond(ApiError(bank.status()));
    auto g = GenerationParam(p, *bank);
    if (!g.ok()) return respond(ApiError(g.status()));
    json items = json::array();
    for (const auto& i : bank->items) {
      if (i.generation == *g) items.push_back(ItemJson(i));
    }
    json redistills = json::array();
    for (const auto& r : bank->redistills) redistills.push_back(RedistillJson(r));
    respond(ApiOk({{"bank", bank->name},
                   {"version", bank->version},
                   {"generation", bank->generation},
                   {"shown_generation", *g},
                   {"generations", bank->generations},
                   {"items", items},
                   {"redistills", redistills}}));
  });

  router_.Add(V::get, "/v1/memory/{bank}/export", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto bank = d_.banks->Read(p.path.at("bank"));
    if (!bank.ok()) return respond(ApiError(bank.status()));
    auto g = GenerationParam(p, *bank);
    if (!g.ok()) return respond(ApiError(g.status()));
    respond(ApiOk(workflows::ExportBank(*bank, *g)));
  });

  router_.Add(
      V::post, "/v1/memory/{bank}/import", [this](const HttpRequest& req, const RouteParams& p, Respond respond) {
        auto body = ParseBody(req);
        if (!body.ok()) return respond(ApiError(body.status()));
        if (!body->contains("data"))
          return respond(ApiError(InvalidArgument("request body: 'data' (the document to import) is required")));
        const json format = body->value("format", json("auto"));
        if (!format.is_string()) return respond(ApiError(InvalidArgument("request body: 'format' must be a string")));
        auto r = d_.banks->Import(p.path.at("bank"), (*body)["data"], format.get<std::string>());
        if (!r.ok()) return respond(ApiError(r.status()));
        LogInfo("memory bank " + p.path.at("bank") + ": imported " + std::to_string((*r)["added"].get<size_t>()) +
                " items");
        respond(ApiOk(*r));
      });

  router_.Add(V::post, "/v1/memory/{bank}/retire",
              [this](const HttpRequest& req, const RouteParams& p, Respond respond) {
                auto body = ParseBody(req);
                if (!body.ok()) return respond(ApiError(body.status()));
                std::vector<std::string> ids;
                const json items = body->value("items", json::array());
                if (!items.is_array())
                  return respond(ApiError(InvalidArgument("request body: 'items' must be an array of item ids")));
                for (const auto& i : items) {
                  if (!i.is_string())
                    return respond(ApiError(InvalidArgument("request body: 'items' must be an array of item ids")));
                  ids.push_back(i.get<std::string>());
                }
                const json reason = body->value("reason", json(""));
                if (!reason.is_string())
                  return respond(ApiError(InvalidArgument("request body: 'reason' must be a string")));
                auto r = d_.banks->Retire(p.path.at("bank"), ids, reason.get<std::string>());
                if (!r.ok()) return respond(ApiError(r.status()));
                respond(ApiOk(*r));
              });

  // Every bank lives in one projection: rebuilding one rebuilds them all.
  router_.Add(V::post, "/v1/memory/{bank}/rebuild", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto bank = d_.banks->Read(p.path.at("bank"));
    if (!bank.ok()) return respond(ApiError(bank.status()));
    auto r = d_.banks->Rebuild();
    if (!r.ok()) return respond(ApiError(r.status()));
    (*r)["bank"] = p.path.at("bank");
    respond(ApiOk(*r));
  });

  router_.Add(
      V::post, "/v1/memory/{bank}/redistill", [this](const HttpRequest& req, const RouteParams& p, Respond respond) {
        auto body = ParseBody(req);
        if (!body.ok()) return respond(ApiError(body.status()));
        for (const auto& [k, v] : body->items()) {
          if (k != "summarizer" && k != "campaigns" && k != "max_pairs") {
            return respond(ApiError(
                InvalidArgument("request body: unknown key '" + k + "' (known: summarizer, campaigns, max_pairs)")));
          }
        }
        RedistillRequest rr;
        rr.bank = p.path.at("bank");
        auto role = d_.campaigns->ResolveRole(workflows::kRoleSummarizer, body->value("summarizer", json::object()));
        if (!role.ok()) return respond(ApiError(role.status()));
        auto spec = workflows::ParseRoleSpec(*role, workflows::kRoleSummarizer);
        if (!spec.ok()) return respond(ApiError(spec.status()));
        rr.role = *spec;
        const json campaigns = body->value("campaigns", json::array());
        if (!campaigns.is_array())
          return respond(ApiError(InvalidArgument("request body: 'campaigns' must be an array of campaign ids")));
        for (const auto& c : campaigns) {
          if (!c.is_string())
            return respond(ApiError(InvalidArgument("request body: 'campaigns' must be an array of campaign ids")));
          rr.campaigns.push_back(c.get<std::string>());
        }
        const json max_pairs = body->value("max_pairs", json(0));
        if (!max_pairs.is_number_integer())
          return respond(ApiError(InvalidArgument("request body: 'max_pairs' must be an integer")));
        rr.max_pairs = max_pairs.get<int>();
        auto r = d_.redistiller->Start(rr);
        if (!r.ok()) return respond(ApiError(r.status()));
        respond(ApiOk(*r, http::status::accepted));
      });
}

}  // namespace accelopt::daemon
