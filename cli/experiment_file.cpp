// The experiment file and the experiment's campaigns (experiment.hpp).
#include <cstdio>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <set>

#include "base/strict_json.hpp"
#include "cli/commands.hpp"
#include "cli/experiment.hpp"

namespace accelopt::cli {
namespace {

bool ValidName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// Every "{seed}" in every string of `j` (keys stay) becomes `seed`.
void SubstituteSeed(json& j, const std::string& seed) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    for (size_t at = s.find("{seed}"); at != std::string::npos; at = s.find("{seed}", at + seed.size())) {
      s.replace(at, 6, seed);
    }
    j = s;
  } else if (j.is_structured()) {
    for (auto& v : j) SubstituteSeed(v, seed);
  }
}

Result<json> Overlay(const json& holder, const std::string& where) {
  if (!holder.contains("overlay")) return json::object();
  if (!holder["overlay"].is_object()) return InvalidArgument(where + ": 'overlay' must be an object");
  return holder["overlay"];
}

}  // namespace

Result<ExperimentFile> ParseExperimentFile(Env* env, const std::string& path) {
  auto j = env ? ReadJsonFile(env, path) : ReadJsonFile(path);
  if (!j.ok()) return j.status();
  if (!j->is_object()) return InvalidArgument(path + ": an experiment is a JSON object");
  ACCELOPT_RETURN_IF_ERROR(
      CheckKnownKeys(*j, JsonPlace{path, ""}, {"id", "spec", "spec_file", "seeds", "learn", "arms"}));
  ExperimentFile e;
  if (!j->contains("id") || !(*j)["id"].is_string() || !ValidName((*j)["id"].get<std::string>())) {
    return InvalidArgument(path + ": 'id' must be a name of letters, digits, '-', '_' or '.'");
  }
  e.id = (*j)["id"].get<std::string>();
  if (j->contains("spec") == j->contains("spec_file")) {
    return InvalidArgument(path +
                           ": give the campaign spec as 'spec' (an object) or 'spec_file' (a path), one of them");
  }
  if (j->contains("spec")) {
    e.spec = (*j)["spec"];
  } else {
    if (!(*j)["spec_file"].is_string()) return InvalidArgument(path + ": 'spec_file' must be a path");
    std::filesystem::path f = (*j)["spec_file"].get<std::string>();
    if (f.is_relative()) f = std::filesystem::path(path).parent_path() / f;
    auto s = env ? ReadJsonFile(env, f.string()) : ReadJsonFile(f.string());
    if (!s.ok()) return s.status().WithContext(path + ": spec_file");
    e.spec = *s;
  }
  if (!e.spec.is_object()) return InvalidArgument(path + ": the campaign spec must be a JSON object");
  if (!j->contains("seeds") || !(*j)["seeds"].is_array() || (*j)["seeds"].empty()) {
    return InvalidArgument(path + ": 'seeds' must be a non-empty array of integers, e.g. [1, 2, 3]");
  }
  std::set<int64_t> seen;
  for (const auto& s : (*j)["seeds"]) {
    if (!s.is_number_integer() || s.get<int64_t>() < 0)
      return InvalidArgument(path + ": 'seeds' holds a non-integer or negative seed");
    if (!seen.insert(s.get<int64_t>()).second) return InvalidArgument(path + ": seed " + s.dump() + " is listed twice");
    e.seeds.push_back(s.get<int64_t>());
  }
  if (j->contains("learn")) {
    const json& l = (*j)["learn"];
    if (!l.is_object()) return InvalidArgument(path + ": 'learn' must be an object {\"overlay\": {...}}");
    ACCELOPT_RETURN_IF_ERROR(CheckKnownKeys(l, JsonPlace{path, "learn"}, {"overlay"}));
    auto o = Overlay(l, path + ": learn");
    if (!o.ok()) return o.status();
    e.learn_overlay = *o;
  }
  if (!j->contains("arms") || !(*j)["arms"].is_array() || (*j)["arms"].size() < 2) {
    return InvalidArgument(path + ": 'arms' must list at least two arms ({\"name\", \"overlay\"}) to compare");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < (*j)["arms"].size(); ++i) {
    const json& a = (*j)["arms"][i];
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string() || !ValidName(a["name"].get<std::string>())) {
      return InvalidArgument(path + ": every arm needs a 'name' of letters, digits, '-', '_' or '.'");
    }
    ExperimentArm arm{a["name"].get<std::string>()};
    if (arm.name == kLearnArm) {
      return InvalidArgument(path + ": the arm name 'learn' is reserved for the learning phase ('learn' at the top)");
    }
    ACCELOPT_RETURN_IF_ERROR(CheckKnownKeys(a, JsonPlace{path, "arms"}.Index(i), {"name", "overlay", "spend_of"}));
    if (a.contains("spend_of")) {
      if (!a["spend_of"].is_string() || !names.count(a["spend_of"].get<std::string>())) {
        return InvalidArgument(path + ": arm '" + arm.name + "': 'spend_of' must name an arm listed before it");
      }
      arm.spend_of = a["spend_of"].get<std::string>();
    }
    auto o = Overlay(a, path + ": arm '" + arm.name + "'");
    if (!o.ok()) return o.status();
    arm.overlay = *o;
    if (!names.insert(arm.name).second) return InvalidArgument(path + ": arm '" + arm.name + "' is listed twice");
    e.arms.push_back(std::move(arm));
  }
  return e;
}

json EqualSpendOverlay(const json& overlay, const json& spend, std::string* what) {
  json o = overlay;
  if (!o.contains("budget") || !o["budget"].is_object()) o["budget"] = json::object();
  json& b = o["budget"];
  b.erase("max_cost_usd");
  b.erase("max_tokens");
  const double cost = spend.value("cost_usd", 0.0);
  const int64_t tokens = spend.value("tokens", int64_t{0});
  if (cost > 0) {
    b["max_cost_usd"] = cost;
    char buf[64];
    std::snprintf(buf, sizeof buf, "$%.6f", cost);
    *what = std::string(buf);
  } else {
    b["max_tokens"] = std::max<int64_t>(tokens, 1);
    *what = std::to_string(std::max<int64_t>(tokens, 1)) + " tokens (it cost $0)";
  }
  b["max_llm_calls"] = 1000000;
  return o;
}

json ExperimentCampaignSpec(const ExperimentFile& e, const std::string& arm, const json& overlay, int64_t seed) {
  json spec = e.spec;
  spec.merge_patch(overlay);
  SubstituteSeed(spec, std::to_string(seed));
  spec["seed"] = seed;
  spec["experiment"] = {{"id", e.id}, {"arm", arm}};
  return spec;
}

std::string ExperimentKey(const std::string& id, const std::string& arm, int64_t seed) {
  return "experiment:" + id + ":" + arm + ":" + std::to_string(seed);
}

std::optional<std::vector<json>> ExperimentCampaigns(ApiClient& api, const std::string& id, int* exit_code,
                                                     bool must_exist) {
  auto r = Ask(api, "GET", "/v1/campaigns");
  if (!r.ok()) {
    *exit_code = r.exit_code;
    return std::nullopt;
  }
  std::vector<json> out;
  for (const auto& c : r.body.value("campaigns", json::array())) {
    const json& t = c.value("experiment", json());
    if (t.is_object() && t.value("id", "") == id) out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return a.value("started_at_us", int64_t{0}) < b.value("started_at_us", int64_t{0});
  });
  if (must_exist && out.empty()) {
    std::cerr << "acceloptctl experiment: no experiment '" << id << "' (no campaign is tagged with it)\n";
    *exit_code = kExitNotFound;
    return std::nullopt;
  }
  return out;
}

bool CampaignEnded(const json& c) {
  const std::string s = c.value("state", "");
  return s != "running" && s != "paused";
}

}  // namespace accelopt::cli
