#include "daemon/recorded_replies.hpp"

#include <vector>

#include "daemon/campaign_stream.hpp"
#include "workflows/activity_id.hpp"
#include "workflows/event.hpp"

namespace accelopt::daemon {

namespace {

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    parts.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return parts;
}

// "b3" with prefix 'b' -> 3; -1 when it is not of that form.
int IndexOf(const std::string& part, const std::string& prefix) {
  if (part.size() <= prefix.size() || part.compare(0, prefix.size(), prefix) != 0) return -1;
  int v = 0;
  for (size_t i = prefix.size(); i < part.size(); ++i) {
    if (part[i] < '0' || part[i] > '9' || v > 1000000) return -1;
    v = v * 10 + (part[i] - '0');
  }
  return v;
}

const workflows::IterationState* IterationAt(const workflows::CampaignState& s, int p, int i) {
  if (p < 0 || i < 0 || p >= static_cast<int>(s.problems.size())) return nullptr;
  const auto& its = s.problems[p].iterations;
  if (i >= static_cast<int>(its.size())) return nullptr;
  return &its[i];
}

// Why the call at `parts` does not build on what the recorded one built on;
// "" when it does.
std::string Divergence(const std::vector<std::string>& parts, const workflows::CampaignState& recorded,
                       const workflows::CampaignState& replay) {
  if (parts.size() < 4) return "";
  const int p = IndexOf(parts[0], "p"), i = IndexOf(parts[1], "it");
  const std::string& kind = parts[2];
  const workflows::IterationState* a = IterationAt(recorded, p, i);
  const workflows::IterationState* b = IterationAt(replay, p, i);
  if (!a || !b) return "iteration " + parts[1] + " of problem " + parts[0] + " is missing in one of the runs";
  if (kind == "plan" || kind == "exec" || kind == "fix") {
    const int m = IndexOf(parts[3], "b");
    if (m < 0) return "";
    if (m >= static_cast<int>(a->beam.size()) || m >= static_cast<int>(b->beam.size())) {
      return "beam member " + parts[3] + " exists in only one of the runs";
    }
    if (a->beam[m].source_sha256 != b->beam[m].source_sha256) {
      return "beam member " + parts[3] + " differs (recorded " + a->beam[m].source_sha256.substr(0, 12) + ", here " +
             b->beam[m].source_sha256.substr(0, 12) + ")";
    }
  } else if (kind == "summ") {
    const int m = IndexOf(parts[3], "m");
    if (m < 0) return "";
    if (m >= static_cast<int>(a->pairs.size()) || m >= static_cast<int>(b->pairs.size())) {
      return "memory pair " + parts[3] + " exists in only one of the runs";
    }
    if (a->pairs[m].slow_sha256 != b->pairs[m].slow_sha256 || a->pairs[m].fast_sha256 != b->pairs[m].fast_sha256) {
      return "memory pair " + parts[3] + " differs";
    }
  }
  return "";
}

}  // namespace

Result<RecordedReplies> RecordedReplies::Load(const store::EventLog* log, const std::string& campaign_id) {
  const std::string stream = workflows::CampaignStream(campaign_id);
  auto records = log->ReadStream(stream);
  if (!records.ok()) return records.status().WithContext("reading " + stream);
  if (records->empty()) return NotFound("no recorded campaign " + campaign_id + " to replay");
  RecordedReplies r;
  r.log_ = log;
  r.campaign_id_ = campaign_id;
  ACCELOPT_ASSIGN_OR_RETURN(r.recorded_, FoldCampaignRecords(*records));
  for (const auto& rec : *records) {
    if (rec.type != workflows::event_type::kLlmCallCompleted) continue;
    const std::string id = rec.data.value("activity_id", "");
    const std::string blob = rec.data.value("response_json_sha256", "");
    if (id.empty() || blob.empty()) continue;
    r.replies_.emplace(workflows::activity_id::WithinCampaign(id), std::make_pair(id, blob));
  }
  return r;
}

std::variant<RecordedReplies::Hit, RecordedReplies::Miss> RecordedReplies::Find(
    const std::string& activity_id, const workflows::CampaignState& replay) const {
  const std::string path = workflows::activity_id::WithinCampaign(activity_id);
  auto it = replies_.find(path);
  if (it == replies_.end()) {
    return Miss{"campaign " + campaign_id_ + " has no recorded reply at " + path};
  }
  const std::string why = Divergence(Split(path), recorded_, replay);
  if (!why.empty()) return Miss{"the run diverged from campaign " + campaign_id_ + " at " + path + ": " + why};
  auto blob = log_->GetBlob(it->second.second);
  if (!blob.ok()) {
    return Miss{"the recorded reply at " + path + " cannot be read: " + blob.status().message()};
  }
  return Hit{std::move(*blob), it->second.first};
}

}  // namespace accelopt::daemon
