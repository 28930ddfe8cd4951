#include "workflows/activity_id.hpp"

#include <cctype>
#include <utility>

namespace accelopt::workflows::activity_id {

namespace {
std::string N(int v) { return std::to_string(v); }
}  // namespace

std::string Problem(const std::string& campaign_id, int problem) { return campaign_id + "/p" + N(problem); }

std::string Iteration(const std::string& campaign_id, int problem, int iteration) {
  return Problem(campaign_id, problem) + "/it" + N(iteration);
}

std::string SampleSuffix(int beam, int plan, int sample) { return "/b" + N(beam) + "/n" + N(plan) + "/k" + N(sample); }

std::string BeamMember(const std::string& it, int member) { return it + "/beam/b" + N(member); }
std::string Measure(const std::string& it, int member) { return it + "/measure/b" + N(member); }
std::string MemorySnapshot(const std::string& it) { return it + "/memsnap"; }
std::string Summarize(const std::string& it, int pair) { return it + "/summ/m" + N(pair); }
std::string MemoryItem(const std::string& it, int pair) { return it + "/mem/m" + N(pair); }
std::string Plan(const std::string& it, int beam, int plan) { return it + "/plan/b" + N(beam) + "/n" + N(plan); }
std::string Execute(const std::string& it, const std::string& s) { return it + "/exec" + s; }
std::string Candidate(const std::string& it, const std::string& s) { return it + "/cand" + s; }
std::string Evaluate(const std::string& it, const std::string& s, int attempt) {
  return it + "/eval" + s + (attempt > 0 ? "/f" + N(attempt) : "");
}
std::string Fix(const std::string& it, const std::string& s, int attempt) {
  return it + "/fix" + s + "/f" + N(attempt);
}
std::string FinalMeasure(const std::string& it) { return it + "/final"; }

std::string RedistillCall(const std::string& bank, const std::string& redistill_id, int pair) {
  return "redistill/" + bank + "/" + redistill_id + "/" + std::to_string(pair);
}
std::string RedistillItem(const std::string& bank, const std::string& redistill_id, int pair) {
  return "redistill/" + bank + "/" + redistill_id + "/m" + std::to_string(pair);
}
std::string RedistillSummarizer(const std::string& redistill_id, int pair) {
  return "redistill/" + redistill_id + "/" + std::to_string(pair);
}

std::string ProfileShuffleKey(const std::string& beam_member) { return beam_member + "/profile"; }
std::string MemoryRetainKey(const std::string& it) { return it + "/memory"; }

namespace {
// Where the "/it<n>" part of `id` starts and ends; npos when it has none.
std::pair<size_t, size_t> IterationPart(const std::string& id) {
  const size_t at = id.find("/it");
  if (at == std::string::npos) return {at, at};
  size_t end = at + 3;
  while (end < id.size() && std::isdigit(static_cast<unsigned char>(id[end]))) ++end;
  return {at, end};
}
}  // namespace

int IterationOf(const std::string& id) {
  const auto [at, end] = IterationPart(id);
  if (at == std::string::npos) return 0;
  int v = 0;
  for (size_t i = at + 3; i < end; ++i) v = v * 10 + (id[i] - '0');
  return v;
}

std::string IterationPrefixOf(const std::string& id) {
  const auto [at, end] = IterationPart(id);
  return at == std::string::npos ? id : id.substr(0, end);
}

std::string WithinCampaign(const std::string& id) {
  for (size_t at = id.find("/p"); at != std::string::npos; at = id.find("/p", at + 1)) {
    size_t end = at + 2;
    while (end < id.size() && std::isdigit(static_cast<unsigned char>(id[end]))) ++end;
    if (end > at + 2 && (end == id.size() || id[end] == '/')) return id.substr(at + 1);
  }
  return id;
}

}  // namespace accelopt::workflows::activity_id
