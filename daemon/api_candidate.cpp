// One candidate of a campaign, for the dashboard's candidate page (docs/api.md,
// "GET /v1/campaigns/{id}/candidate?id=CANDIDATE"): its plan, the executor's
// reply, its code, the verdict with its figures, its parent (the beam member
// it was rewritten from) and children (candidates rewritten from it), and a
// line diff against the parent's code. Everything comes from the folded state
// and the log's blobs.
#include "daemon/api.hpp"

#include "base/line_diff.hpp"
#include "workflows/campaign_request.hpp"

namespace accelopt::daemon {
namespace {

json MeasurementJson(const workflows::Measurement& m) {
  return {{"status", m.status},
          {"correct", m.correct},
          {"latency_us", m.latency_us > 0 ? json(m.latency_us) : json(nullptr)},
          {"spread", m.spread},
          {"percent_of_peak", m.percent_of_peak >= 0 ? json(m.percent_of_peak) : json(nullptr)},
          {"reason", m.reason},
          {"profile", m.profile},
          {"comparison", m.comparison}};
}

}  // namespace

void Api::AddCandidateRoutes() {
  router_.Add(
      http::verb::get, "/v1/campaigns/{id}/candidate",
      [this](const HttpRequest&, const RouteParams& p, Respond respond) {
        auto r = d_.campaigns->Find(p.path.at("id"));
        if (!r) return respond(NotFoundCampaign(p.path.at("id")));
        auto q = p.query.find("id");
        if (q == p.query.end() || q->second.empty())
          return respond(ApiError(http::status::bad_request, "invalid_argument", "query id: required, a candidate id"));
        const std::string cid = q->second;
        const auto state = r->Snapshot();
        const int N = std::max(1, state.spec.search.N), K = std::max(1, state.spec.search.K);
        for (size_t pi = 0; pi < state.problems.size(); ++pi) {
          const auto& ps = state.problems[pi];
          for (const auto& it : ps.iterations) {
            for (size_t idx = 0; idx < it.candidates.size(); ++idx) {
              const auto& c = it.candidates[idx];
              if (c.id != cid) continue;
              const int plan_index = static_cast<int>(idx) / K, beam = plan_index / N, plan = plan_index % N,
                        sample = static_cast<int>(idx) % K;
              auto blob = [this](const std::string& sha) -> json {
                if (sha.empty()) return nullptr;
                auto b = d_.log->GetBlob(sha);
                return b.ok() ? json(*b) : json(nullptr);
              };
              json out = {{"campaign", r->id()},
                          {"problem", ps.info.name},
                          {"problem_id", ps.info.id},
                          {"iteration", it.iteration},
                          {"id", c.id},
                          {"attempt", c.attempt},
                          {"reused", c.reused}};
              const workflows::PlanRecord* pr =
                  plan_index < static_cast<int>(it.plans.size()) ? &it.plans[plan_index] : nullptr;
              out["plan"] = pr ? json{{"title", pr->title},
                                      {"description", pr->description},
                                      {"ok", pr->ok},
                                      {"error", pr->error}}
                               : json(nullptr);
              // The executor's reply: its activity's reply blob.
              out["reply"] = nullptr;
              for (const auto& [aid, a] : state.activities) {
                if (a.purpose == workflows::kPurposeExecute && a.problem == static_cast<int>(pi) &&
                    a.iteration == it.iteration && a.beam == beam && a.plan == plan && a.sample == sample) {
                  out["reply"] = blob(a.response_sha256);
                  out["executor_activity"] = aid;
                }
              }
              out["code"] = c.source_sha256.empty() ? json(nullptr) : blob(c.source_sha256);
              out["verdict"] = {{"ok", c.ok},
                                {"failure", c.failure},
                                {"detail", c.detail},
                                {"evaluated", c.evaluated},
                                {"measurement", MeasurementJson(c.measurement)}};
              // The parent: the beam member this candidate was rewritten from.
              out["parent"] = nullptr;
              out["diff"] = json::array();
              if (beam < static_cast<int>(it.beam.size())) {
                const auto& b = it.beam[beam];
                out["parent"] = {{"beam_id", b.beam_id},
                                 {"origin", b.origin},
                                 {"latency_us", b.latency_us() > 0 ? json(b.latency_us()) : json(nullptr)},
                                 {"source_sha256", b.source_sha256}};
                const json parent_code = blob(b.source_sha256);
                if (parent_code.is_string() && out["code"].is_string()) {
                  for (const auto& l : LineDiff(parent_code.get<std::string>(), out["code"].get<std::string>()))
                    out["diff"].push_back(std::string(1, l.op) + l.text);
                }
              }
              // Children: candidates of later iterations rewritten from this one.
              json children = json::array();
              for (const auto& later : ps.iterations) {
                if (later.iteration <= it.iteration) continue;
                for (size_t j = 0; j < later.candidates.size(); ++j) {
                  const auto& ch = later.candidates[j];
                  const size_t bi = j / static_cast<size_t>(K) / static_cast<size_t>(N);
                  if (ch.proposed && bi < later.beam.size() && later.beam[bi].origin == cid && !later.beam[bi].standin)
                    children.push_back({{"id", ch.id},
                                        {"iteration", later.iteration},
                                        {"correct", ch.ok && ch.evaluated && ch.measurement.correct},
                                        {"latency_us", ch.measurement.latency_us > 0 ? json(ch.measurement.latency_us)
                                                                                     : json(nullptr)}});
                }
              }
              out["children"] = children;
              return respond(ApiOk(out));
            }
          }
        }
        respond(
            ApiError(http::status::not_found, "not_found", "campaign " + r->id() + " has no candidate '" + cid + "'"));
      });
}

}  // namespace accelopt::daemon
