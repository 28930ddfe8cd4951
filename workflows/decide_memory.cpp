#include "workflows/decide_memory.hpp"
#include "workflows/memory_item.hpp"

#include <cctype>
#include <set>

#include "workflows/activity_id.hpp"
#include "workflows/memory_bank.hpp"
#include "workflows/parse.hpp"
#include "workflows/prompts.hpp"

namespace accelopt::workflows {

namespace {

// Content of a memory item for de-duplication: title and description,
// lower-cased, runs of white space as one space.
std::string ContentKey(const std::string& title, const std::string& description) {
  std::string out;
  bool space = true;
  for (char ch : title + "\n" + description) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isspace(c)) {
      if (!space) out += ' ';
      space = true;
    } else {
      out += static_cast<char>(std::tolower(c));
      space = false;
    }
  }
  return out;
}

// The experiences the plan `plan_id` of iteration i named ("default" mode).
std::vector<std::string> UsedExperiences(const Round& round, int p, int i, const std::string& plan_id) {
  if (i < 0) return {};
  const IterationState& it = round.It(p, i);
  const std::string pre = round.Prefix(p, i);
  for (size_t b = 0; b < it.beam.size(); ++b) {
    for (int n = 0; n < round.spec().search.N; ++n) {
      if (activity_id::Plan(pre, static_cast<int>(b), n) != plan_id) continue;
      return it.plans[PlanIndex(round.spec(), static_cast<int>(b), n)].used_experiences;
    }
  }
  return {};
}

// The item of pair m of iteration i (the one builder: workflows/memory_item.hpp).
MemoryItem ItemFromSummary(const Round& round, int p, int i, int m, const Summary& summary) {
  const IterationState& it = round.It(p, i);
  MemoryItemOrigin origin;
  origin.id = activity_id::MemoryItem(round.Prefix(p, i), m);
  origin.problem = round.Problem(p).info.id;
  origin.iteration = i;
  origin.summarizer_activity = activity_id::Summarize(round.Prefix(p, i), m);
  origin.pair = it.pairs[m];
  origin.derived_from = UsedExperiences(round, p, i - 1, origin.pair.plan_id);
  return BuildMemoryItem(summary, std::move(origin));
}

// The id of an item in memory, or added just now, with the content of
// `summary`; "" when there is none.
std::string SameContent(const std::vector<MemoryItem>& memory, const json& added, const Summary& summary) {
  const std::string content = ContentKey(summary.title, summary.description);
  std::string same;
  for (const MemoryItem& old : memory) {
    if (ContentKey(old.title, old.description) == content) same = old.id;
  }
  for (const json& a : added) {
    if (ContentKey(a.value("title", ""), a.value("description", "")) == content) same = a.value("id", "");
  }
  return same;
}

}  // namespace

Status CreditExperiences(Round& round, int p, int i) {
  const IterationState& prev = round.It(p, i - 1);
  const auto groups = BuildGroups(round.spec(), prev);
  json credits = json::array();
  for (const Group& g : groups) {
    const Sample* s = g.Fastest();
    if (!s || (g.parent_contended && !s->contended) ||  // a contended parent's figure is inflated
        !FasterBeyondNoise(s->latency_us, s->spread, g.parent_latency_us, g.parent_spread)) {
      continue;
    }
    const PlanRecord& plan = prev.plans[PlanIndex(round.spec(), g.parent_index, g.plan_index)];
    for (const std::string& item : plan.used_experiences) {
      credits.push_back({{"item_id", item},
                         {"plan_id", g.plan_id},
                         {"candidate_id", s->candidate_id},
                         {"child_speedup", g.parent_latency_us / s->latency_us}});
    }
  }
  Command c;
  c.event.type = event_type::kExperiencesCredited;
  c.event.data = {{"problem", p}, {"iteration", i}, {"credits", credits}};
  if (!round.bank().empty() && !credits.empty() && round.rules().learn_memory) {
    c.side_events.push_back({MemoryBankStream(round.bank()),
                             {bank_event::kMemoryItemsCredited,
                              {{"campaign", round.state().campaign_id},
                               {"problem", round.Problem(p).info.id},
                               {"iteration", i},
                               {"credits", credits}}}});
  }
  round.Emit(std::move(c));
  return Status::Ok();
}

Status SelectMemoryPairs(Round& round, int p, int i) {
  const ProblemState& ps = round.Problem(p);
  const bool skip = round.rules().skip_summarized_pairs;
  // "sampling" has no memory, a frozen bank learns nothing: no pairs, so no
  // summaries and no items.
  const auto groups = round.rules().learn_memory ? BuildGroups(round.spec(), round.It(p, i - 1)) : std::vector<Group>{};
  json pairs = json::array(), duplicates = json::array();
  // A pair already summarized (same kind, slow and fast code) in an earlier
  // iteration, or behind an item in memory, is not summarized again.
  std::set<std::string> seen;
  auto key = [](const MemoryPair& m) { return m.kind + "/" + m.slow_sha256 + "/" + m.fast_sha256; };
  if (skip) {
    for (int j = 0; j < i; ++j) {
      for (const MemoryPair& m : round.It(p, j).pairs) seen.insert(key(m));
    }
    for (const MemoryItem& m : ps.memory) seen.insert(key(m.pair));
  }
  for (const MemoryPair& pair : MemoryPolicyFor(round.spec().mode).SelectPairs(groups, round.spec().search)) {
    if (skip && !seen.insert(key(pair)).second) {
      duplicates.push_back({{"slow_id", pair.slow_id}, {"fast_id", pair.fast_id}, {"kind", pair.kind}});
      continue;
    }
    pairs.push_back(ToJson(pair));
  }
  json d = {{"problem", p}, {"iteration", i}, {"pairs", pairs}};
  if (skip) d["duplicates"] = duplicates;
  return round.EmitEvent(event_type::kMemoryPairsSelected, std::move(d));
}

Status ScheduleSummaries(Round& round, int p, int i) {
  const IterationState& it = round.It(p, i);
  const std::string pre = round.Prefix(p, i);
  for (size_t m = 0; m < it.pairs.size(); ++m) {
    if (it.pair_scheduled[m]) continue;
    const MemoryPair& pair = it.pairs[m];
    ACCELOPT_ASSIGN_OR_RETURN(std::string slow, round.Text(pair.slow_sha256));
    ACCELOPT_ASSIGN_OR_RETURN(std::string fast, round.Text(pair.fast_sha256));
    const std::optional<double> told =
        round.rules().tell_summarizer_speedup ? std::optional<double>(pair.speedup) : std::nullopt;
    ChatPrompt prompt = SummarizerPrompt(round.Problem(p).info, slow, fast, told, round.rules().prompts);
    ACCELOPT_RETURN_IF_ERROR(round.ScheduleLlm(activity_id::Summarize(pre, static_cast<int>(m)), kRoleSummarizer,
                                               kPurposeSummarize, p, i, {{"pair", static_cast<int>(m)}}, prompt));
  }
  return Status::Ok();
}

bool AllPairsSummarized(const IterationState& it) {
  for (bool done : it.pair_done) {
    if (!done) return false;
  }
  return true;
}

Status UpdateMemory(Round& round, int p, int i) {
  const IterationState& it = round.It(p, i);
  const ProblemState& ps = round.Problem(p);
  const ModeRules& rules = round.rules();
  const std::string pre = round.Prefix(p, i);
  json added = json::array(), failed = json::array(), dropped = json::array();
  for (size_t m = 0; m < it.pairs.size(); ++m) {
    const std::string id = activity_id::Summarize(pre, static_cast<int>(m));
    ACCELOPT_ASSIGN_OR_RETURN(const ActivityRecord* a, round.Activity(id));
    if (a->status != ActivityStatus::kCompleted) {
      failed.push_back({{"pair", m}, {"error", a->completion.value("error", "llm call failed")}});
      continue;
    }
    ACCELOPT_ASSIGN_OR_RETURN(std::string reply, round.Text(a->response_sha256));
    auto summary = ParseSummarizerReply(reply, rules.published_summary_rule);
    if (!summary.ok()) {
      failed.push_back({{"pair", m}, {"error", summary.status().message()}});
      continue;
    }
    if (rules.drop_unhelpful_items) {
      if (summary->no_optimization) {
        dropped.push_back({{"pair", m}, {"reason", "no_optimization"}});
        continue;
      }
      // An item with the content of one in memory (or one added just now)
      // is that item again; the one in memory keeps its credit.
      const std::string same = SameContent(ps.memory, added, *summary);
      if (!same.empty()) {
        dropped.push_back({{"pair", m}, {"reason", "duplicate"}, {"of", same}});
        continue;
      }
    }
    added.push_back(ToJson(ItemFromSummary(round, p, i, static_cast<int>(m), *summary)));
  }
  const size_t cap = static_cast<size_t>(round.spec().search.ExpN);
  while (added.size() > cap) added.erase(added.size() - 1);
  json d = {{"problem", p}, {"iteration", i}, {"added", added}};
  Command c;
  if (round.bank().empty()) {
    Rng rng(round.spec().seed, activity_id::MemoryRetainKey(pre));
    json retained = json::array();
    for (size_t idx :
         MemoryPolicyFor(round.spec().mode).RetainItems(ps.memory, added.size(), round.spec().search, rng)) {
      retained.push_back(ps.memory[idx].id);
    }
    d["retained"] = retained;
  } else {
    // The bank keeps every item; what planners see is its selection.
    d["bank"] = round.bank();
    d["retained"] = json::array();
    if (!added.empty()) {
      c.side_events.push_back({MemoryBankStream(round.bank()),
                               {bank_event::kMemoryItemsAdded,
                                {{"source", "campaign"},
                                 {"campaign", round.state().campaign_id},
                                 {"problem", ps.info.id},
                                 {"iteration", i},
                                 {"items", added}}}});
    }
  }
  d["failed"] = failed;
  if (rules.drop_unhelpful_items) d["dropped"] = dropped;
  c.event.type = event_type::kMemoryUpdated;
  c.event.data = std::move(d);
  round.Emit(std::move(c));
  return Status::Ok();
}

bool MemoryReady(Round& round, int p, int i) {
  const IterationState& it = round.It(p, i);
  if (i > 0 && !it.memory_updated) return false;
  if (round.bank().empty()) return true;
  if (!it.snapshot_scheduled) {
    const std::string id = activity_id::MemorySnapshot(round.Prefix(p, i));
    round.ScheduleMemory(
        id, kPurposeMemorySnapshot, p, i,
        {{"bank", round.bank()}, {"problem", round.Problem(p).info.id}, {"limit", round.spec().search.ExpN}});
  }
  return it.snapshot_taken;
}

}  // namespace accelopt::workflows
