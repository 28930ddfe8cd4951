// The suite routes of the API (docs/api.md, "Suites" and "Importing
// problems"): the list of configured and imported suites, and the upload of
// one problem into an imported suite (daemon/suite_import.hpp).
#include "daemon/api.hpp"

#include "daemon/suite_dirs.hpp"
#include "daemon/suite_import.hpp"
#include "evaluators/suites.hpp"

namespace accelopt::daemon {
namespace {

// The upload's body: {"files": {"problem.json": "...", ...}, "force": false}.
Result<UploadedProblem> UploadedProblemFromBody(const json& body, const RouteParams& p) {
  for (const auto& [k, v] : body.items())
    if (k != "files" && k != "force") return InvalidArgument("body." + k + ": unknown key (expected files, force)");
  UploadedProblem up;
  up.suite = p.path.at("suite");
  up.name = p.path.at("name");
  if (!body.contains("files") || !body["files"].is_object())
    return InvalidArgument("body.files: required, an object of file name -> contents");
  for (const auto& [file, text] : body["files"].items()) {
    if (!text.is_string()) return InvalidArgument("body.files." + file + ": must be a string (the file's contents)");
    up.files[file] = text.get<std::string>();
  }
  if (body.contains("force")) {
    if (!body["force"].is_boolean()) return InvalidArgument("body.force: must be true or false");
    up.force = body["force"].get<bool>();
  }
  return up;
}

}  // namespace

void Api::AddSuiteRoutes() {
  using V = http::verb;
  CampaignManager* campaigns = d_.campaigns;
  importer_ = std::make_shared<SuiteImporter>(d_.config, d_.env, [campaigns](const std::string& problem_id) {
    for (const auto& r : campaigns->All()) {
      const auto state = r->Snapshot();
      if (state.finished()) continue;
      for (const auto& ps : state.problems)
        if (ps.info.id == problem_id) return r->id();
    }
    return std::string();
  });

  router_.Add(V::get, "/v1/suites", [this](const HttpRequest&, const RouteParams&, Respond respond) {
    json suites = json::array();
    for (const auto& [name, loc] : AllSuites(*d_.config, d_.env)) {
      json problems = json::array();
      auto listed = eval::ListSuite(name, loc.dir, d_.env);
      for (const auto& sp : listed.ok() ? *listed : std::vector<eval::SuiteProblem>{}) {
        json p = {{"name", sp.name}, {"id", sp.id}};
        if (sp.error.ok()) {
          p["backend"] = sp.spec.backend.empty() ? "cpu" : sp.spec.backend;
          p["bound"] = sp.spec.bound;
          p["workload"] = sp.spec.workload;
          p["description"] = sp.spec.description;
        } else {
          p["error"] = sp.error.message();
        }
        problems.push_back(p);
      }
      suites.push_back({{"name", name}, {"dir", loc.dir}, {"imported", loc.imported}, {"problems", problems}});
    }
    respond(ApiOk({{"suites", suites}}));
  });

  router_.Add(
      V::put, "/v1/suites/{suite}/problems/{name}",
      [this](const HttpRequest& req, const RouteParams& p, Respond respond) {
        if (!d_.config->suite_uploads) {
          return respond(ApiError(http::status::forbidden, "uploads_disabled",
                                  "this daemon does not accept problem uploads: set \"suite_uploads\": true "
                                  "in its config to allow them (an uploaded reference.py runs as the "
                                  "daemon's user, outside the candidates' sandbox)"));
        }
        auto body = ParseBody(req);
        if (!body.ok()) return respond(ApiError(body.status()));
        auto up = UploadedProblemFromBody(*body, p);
        if (!up.ok()) return respond(ApiError(up.status()));
        // Checks and writes files: off the io thread.
        net::post(*d_.ioc, [this, up = std::move(*up), respond] {
          auto r = importer_->Put(up);
          if (!r.ok()) return respond(ApiError(r.status()));
          respond(
              ApiOk({{"id", r->id}, {"suite", up.suite}, {"name", up.name}, {"dir", r->dir}, {"replaced", r->replaced}},
                    r->replaced ? http::status::ok : http::status::created));
        });
      });
}

}  // namespace accelopt::daemon
