// Re-distillation as a workflow (workflows/redistill.hpp): the fold of its
// events, the start (campaigns, pairs, id, generation), the decider driven
// to the end with replies in a random order, resumption at every event
// boundary, and the one memory-item builder (workflows/memory_item.hpp),
// which must build exactly the items the campaign's Decide builds.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "workflows/activity_id.hpp"
#include "workflows/memory_item.hpp"
#include "workflows/parse.hpp"
#include "workflows/prompts.hpp"
#include "workflows/redistill.hpp"
#include "workflows/redistill_state.hpp"
#include "test_util.hpp"

namespace accelopt::workflows::testing {
namespace {

namespace be = bank_event;

// --- The one memory-item builder -------------------------------------------

// Every item a campaign's MemoryUpdated added, rebuilt with BuildMemoryItem
// from the inputs Decide had (the summarizer's reply in the log, the pair,
// the ids), is the same JSON. derived_from is an input (Decide reads it
// from the previous iteration's plan), taken from the item itself.
void CheckBuilderMatchesDecide(const CampaignSpec& spec, const Script& script) {
  const World world = MakeWorld();
  Sim sim(spec, script, /*order_seed=*/5);
  REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
  REQUIRE_OK(sim.RunToEnd());
  const CampaignState& st = sim.state();
  int compared = 0;
  for (const Event& e : sim.log()) {
    if (e.type != event_type::kMemoryUpdated) continue;
    const int p = e.data.at("problem").get<int>(), i = e.data.at("iteration").get<int>();
    const std::string pre = activity_id::Iteration(st.campaign_id, p, i);
    const IterationState* it = nullptr;
    for (const auto& x : st.problems[p].iterations) it = x.iteration == i ? &x : it;
    BOOST_REQUIRE(it);
    for (const json& added : e.data.at("added")) {
      int m = -1;
      for (size_t k = 0; k < it->pairs.size(); ++k) {
        if (activity_id::Summarize(pre, static_cast<int>(k)) == added.at("summarizer_activity"))
          m = static_cast<int>(k);
      }
      BOOST_REQUIRE(m >= 0);
      const std::string summ = activity_id::Summarize(pre, m);
      const auto reply = sim.blobs().Get(st.activities.at(summ).response_sha256);
      BOOST_REQUIRE(reply);
      auto summary = ParseSummarizerReply(*reply, /*published_rule=*/spec.mode != kModeDefault);
      REQUIRE_OK(summary.status());
      MemoryItemOrigin origin{activity_id::MemoryItem(pre, m),
                              st.problems[p].info.id,
                              i,
                              summ,
                              it->pairs[m],
                              added.value("derived_from", std::vector<std::string>{})};
      BOOST_TEST(ToJson(BuildMemoryItem(*summary, origin)) == added, "item " << added.at("id"));
      ++compared;
    }
  }
  BOOST_TEST_MESSAGE(spec.mode << ": " << compared << " items compared");
  BOOST_TEST(compared > 0);
}

BOOST_AUTO_TEST_CASE(the_builder_makes_the_items_decide_makes_in_paper_mode) {
  const World w = MakeWorld();
  CheckBuilderMatchesDecide(SmallSpec(w), MakeScript(w));
}

BOOST_AUTO_TEST_CASE(the_builder_makes_the_items_decide_makes_in_default_mode) {
  const World w = MakeWorld();
  CheckBuilderMatchesDecide(DefaultSpec(w), MakeFaultyScript(w));
}

BOOST_AUTO_TEST_CASE(the_builder_copies_every_field) {
  Summary s{"T", "D", "slow();", "fast();", true};
  MemoryPair pair;
  pair.kind = kNegative;
  pair.plan_id = "plan";
  pair.speedup = 1.5;
  const MemoryItem m = BuildMemoryItem(s, {"id1", "suites/cpu/silu", 3, "act", pair, {"a", "b"}});
  BOOST_TEST(m.id == "id1");
  BOOST_TEST(m.kind == kNegative);
  BOOST_TEST(m.title == "T");
  BOOST_TEST(m.description == "D");
  BOOST_TEST(m.slow_snippet == "slow();");
  BOOST_TEST(m.fast_snippet == "fast();");
  BOOST_TEST(m.no_optimization);
  BOOST_TEST(m.problem == "suites/cpu/silu");
  BOOST_TEST(m.iteration == 3);
  BOOST_TEST(m.summarizer_activity == "act");
  BOOST_TEST(ToJson(m.pair) == ToJson(pair));
  BOOST_TEST(m.credit == 0);
  BOOST_TEST(m.last_credited_iteration == -1);
  BOOST_TEST((m.derived_from == std::vector<std::string>{"a", "b"}));
}

// --- A world: a finished campaign whose pairs are re-distilled --------------

// The problems of the campaign in `sim`, as CampaignProblems.
class SimProblems : public CampaignProblems {
 public:
  explicit SimProblems(const CampaignState& st) : st_(st) {}
  Result<ProblemInfo> Get(const std::string& campaign, int problem) const override {
    if (campaign != st_.campaign_id) return NotFound("no campaign '" + campaign + "'");
    if (problem < 0 || problem >= static_cast<int>(st_.problems.size())) return NotFound("no such problem");
    return st_.problems[problem].info;
  }

 private:
  const CampaignState& st_;
};

// Blobs with some hidden (code missing from the log).
class HidingBlobs : public BlobSource {
 public:
  HidingBlobs(const BlobSource& blobs, std::set<std::string> hidden) : blobs_(blobs), hidden_(std::move(hidden)) {}
  std::optional<std::string> Get(const std::string& sha) const override {
    if (hidden_.count(sha)) return std::nullopt;
    return blobs_.Get(sha);
  }

 private:
  const BlobSource& blobs_;
  std::set<std::string> hidden_;
};

struct Campaign {
  World world = MakeWorld();
  Sim sim{SmallSpec(world), MakeScript(world), /*order_seed=*/3};
  Campaign() {
    REQUIRE_OK(sim.Start("c1", world.sources, world.hardware));
    REQUIRE_OK(sim.RunToEnd());
  }
};

RoleSpec Summarizer() {
  RoleSpec r;
  r.provider = "other";
  r.model = "other-model";
  r.temperature = 0.5;
  r.max_tokens = 700;
  r.reasoning = "high";
  return r;
}

// A bank that campaign c1 wrote (one item of generation 1), as its view.
BankView BankWrittenBy(const std::string& campaign) {
  json banks = json::object();
  MemoryItem m;
  m.id = campaign + "/p0/it1/mem/m0";
  m.kind = kPositive;
  m.title = "t";
  REQUIRE_OK(ApplyBankEvent(banks, "b", 1, MemoryItemsAddedEvent("campaign", {m}, {{"campaign", campaign}})));
  auto v = ReadBank(banks, "b");
  REQUIRE_OK(v.status());
  return *v;
}

// The reply a summarizer gives for pair i: a summary, "no optimization", an
// error, or nothing usable, by i.
RedistillReply ScriptedSummary(int i) {
  RedistillReply r;
  switch (i % 4) {
    case 0:
    case 1:
      r.ok = true;
      r.text = "**Trick " + std::to_string(i) + "**\nWhy it is faster.\n```cpp\nslow();\n```\n```cpp\nfast();\n```\n";
      r.input_tokens = 100 + i;
      r.output_tokens = 20;
      r.cost_usd = 0.001 * (i + 1);
      return r;
    case 2:
      r.ok = true;
      r.text = "No optimization found.";
      r.input_tokens = 90;
      r.output_tokens = 5;
      return r;
    default:
      r.error = "server_error (HTTP 500): boom";
      r.cost_usd = 0.0;
      return r;
  }
}

// Drives a re-distillation: keeps up to `max_in_flight` calls out, answers
// them in a seeded random order, appends every command in order.
struct Driver {
  const BlobSource& blobs;
  const CampaignProblems& problems;
  RedistillState state;
  std::vector<Event> log;          // the bank's stream
  std::vector<size_t> batch_ends;  // log sizes after each append
  std::map<int, int> asked;        // pair -> calls made
  std::vector<RedistillCall> calls_seen;

  Status Append(const RedistillCommand& cmd) {
    if (cmd.events.empty()) return Status::Ok();
    for (const Event& e : cmd.events) {
      ACCELOPT_RETURN_IF_ERROR(ApplyRedistill(state, e));
      log.push_back(e);
    }
    batch_ends.push_back(log.size());
    return Status::Ok();
  }

  Status RunToEnd(int max_in_flight, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<RedistillCall> out;
    std::set<int> in_flight;
    for (int step = 0; step < 10000 && !state.finished(); ++step) {
      ACCELOPT_ASSIGN_OR_RETURN(auto cmd, DecideRedistill(state, blobs, problems, in_flight,
                                                          max_in_flight - static_cast<int>(in_flight.size())));
      ACCELOPT_RETURN_IF_ERROR(Append(cmd));
      for (auto& c : cmd.calls) {
        if (!in_flight.insert(c.pair).second) return Internal("pair asked twice at once");
        ++asked[c.pair];
        calls_seen.push_back(c);
        out.push_back(std::move(c));
      }
      if (static_cast<int>(in_flight.size()) > max_in_flight) return Internal("too many calls in flight");
      if (state.finished()) break;
      if (out.empty()) return Internal("stuck: nothing in flight and not finished");
      const size_t k = std::uniform_int_distribution<size_t>(0, out.size() - 1)(rng);
      const RedistillCall c = out[k];
      out.erase(out.begin() + static_cast<long>(k));
      in_flight.erase(c.pair);
      ACCELOPT_ASSIGN_OR_RETURN(auto rec, RecordReply(state, c.pair, ScriptedSummary(c.pair)));
      ACCELOPT_RETURN_IF_ERROR(Append(rec));
    }
    if (!state.finished()) return Internal("did not finish");
    return Status::Ok();
  }
};

RedistillRequest Request(int max_pairs = 0) {
  RedistillRequest r;
  r.bank = "b";
  r.role = Summarizer();
  r.max_pairs = max_pairs;
  return r;
}

// The started event of a re-distillation of c1's pairs into bank "b".
Event Started(const Campaign& c, int max_pairs = 0) {
  const BankView bank = BankWrittenBy("c1");
  auto campaigns = RedistillCampaigns(bank, Request(max_pairs), {});
  REQUIRE_OK(campaigns.status());
  auto e = StartRedistill(bank, Request(max_pairs), *campaigns, RecordedPairs(c.sim.state()));
  REQUIRE_OK(e.status());
  return *e;
}

// --- The start ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(requests_are_checked) {
  BOOST_TEST(ValidateRedistillRequest(Request()).ok());
  RedistillRequest r = Request();
  r.bank = ".hidden";
  BOOST_TEST(ValidateRedistillRequest(r).code() == Code::kInvalidArgument);
  r = Request();
  r.role.model.clear();
  BOOST_TEST(ValidateRedistillRequest(r).code() == Code::kInvalidArgument);
  BOOST_TEST(ValidateRedistillRequest(Request(-1)).code() == Code::kInvalidArgument);
}

BOOST_AUTO_TEST_CASE(the_campaigns_are_named_every_one_or_those_that_wrote_the_bank) {
  const BankView bank = BankWrittenBy("c1");
  RedistillRequest r = Request();
  BOOST_TEST((*RedistillCampaigns(bank, r, {}) == std::vector<std::string>{"c1"}));
  r.campaigns = {"c7", "c8"};
  BOOST_TEST((*RedistillCampaigns(bank, r, {"c1"}) == std::vector<std::string>{"c7", "c8"}));
  r.campaigns = {"*"};
  BOOST_TEST((*RedistillCampaigns(bank, r, {"c1", "c2"}) == std::vector<std::string>{"c1", "c2"}));
  BOOST_TEST(RedistillCampaigns(bank, r, {}).status().code() == Code::kFailedPrecondition);
  // A bank no campaign wrote needs named campaigns.
  json banks = json::object();
  REQUIRE_OK(ApplyBankEvent(banks, "i", 1, MemoryItemsAddedEvent("import", {MemoryItem{"x", kPositive, "t"}})));
  auto imported = ReadBank(banks, "i");
  REQUIRE_OK(imported.status());
  BOOST_TEST(RedistillCampaigns(*imported, Request(), {}).status().code() == Code::kFailedPrecondition);
}

BOOST_AUTO_TEST_CASE(a_start_takes_the_recorded_pairs_into_the_next_generation) {
  Campaign c;
  const std::vector<RedistillPair> pairs = RecordedPairs(c.sim.state());
  BOOST_REQUIRE(pairs.size() >= 4u);
  size_t in_state = 0;
  for (const auto& p : c.sim.state().problems) {
    for (const auto& it : p.iterations) in_state += it.pairs.size();
  }
  BOOST_TEST(pairs.size() == in_state);
  for (const auto& p : pairs) {
    BOOST_TEST(p.campaign == "c1");
    BOOST_TEST(p.problem == c.sim.state().problems[p.problem_index].info.id);
  }
  const Event e = Started(c);
  BOOST_TEST(e.type == be::kMemoryRedistillStarted);
  BOOST_TEST(e.data["redistill_id"] == "r1");
  BOOST_TEST(e.data["from_generation"] == 1);
  BOOST_TEST(e.data["generation"] == 2);
  BOOST_TEST(e.data["campaigns"] == json::array({"c1"}));
  BOOST_TEST(e.data["pairs"].size() == pairs.size());
  BOOST_TEST(e.data["role"] == ToJson(Summarizer()));
  BOOST_TEST(Started(c, 2).data["pairs"].size() == 2u);
  BOOST_TEST(StartRedistill(BankWrittenBy("c1"), Request(), {"c1"}, {}).status().code() == Code::kFailedPrecondition);

  // The projection agrees; a second one is refused while it runs, and the
  // next one is r2 into generation 3.
  json banks = json::object();
  REQUIRE_OK(ApplyBankEvent(
      banks, "b", 1, MemoryItemsAddedEvent("campaign", {MemoryItem{"x", kPositive, "t"}}, {{"campaign", "c1"}})));
  REQUIRE_OK(ApplyBankEvent(banks, "b", 2, e));
  BankView running = *ReadBank(banks, "b");
  BOOST_TEST(RedistillCampaigns(running, Request(), {}).status().code() == Code::kFailedPrecondition);
  REQUIRE_OK(ApplyBankEvent(banks, "b", 3, {be::kMemoryRedistillCompleted, {{"redistill_id", "r1"}}}));
  const Event next = *StartRedistill(*ReadBank(banks, "b"), Request(), {"c1"}, pairs);
  BOOST_TEST(next.data["redistill_id"] == "r2");
  BOOST_TEST(next.data["from_generation"] == 2);
  BOOST_TEST(next.data["generation"] == 3);
}

// --- The fold -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_fold_follows_one_redistillation_and_refuses_contradictions) {
  Campaign c;
  const Event started = Started(c, 3);
  auto summarized = [](const char* id, int i, bool item) {
    json d = {{"redistill_id", id}, {"index", i}, {"ok", item}, {"cost_usd", 0.5}, {"model", "m"}};
    if (item) d["item"] = ToJson(MemoryItem{"it" + std::to_string(i), kPositive, "t"});
    return Event{be::kMemoryRedistillSummarized, d};
  };
  const Event completed{be::kMemoryRedistillCompleted, {{"redistill_id", "r1"}}};
  const Event other = summarized("r9", 0, true);  // another re-distillation's
  const Event items = MemoryItemsAddedEvent("import", {MemoryItem{"x", kPositive, "t"}});

  auto st = FoldRedistill("b", "r1", {items, started, other, summarized("r1", 2, true), summarized("r1", 0, false)});
  REQUIRE_OK(st.status());
  BOOST_TEST(st->status == kRedistillRunning);
  BOOST_TEST(st->generation == 2);
  BOOST_TEST(st->role.model == "other-model");
  BOOST_TEST(st->role.reasoning == "high");
  BOOST_TEST(st->pairs.size() == 3u);
  BOOST_TEST((st->done == std::set<int>{0, 2}));
  BOOST_TEST(st->added == 1);
  BOOST_TEST(st->failed == 1);
  BOOST_TEST(st->cost_usd == 1.0);
  BOOST_TEST(!st->all_done());
  BOOST_TEST(FoldRedistill("b", "r1", {items}).value().status.empty());

  auto corrupt = [&](std::vector<Event> events) {
    return FoldRedistill("b", "r1", events).status().code() == Code::kCorruption;
  };
  BOOST_TEST(corrupt({summarized("r1", 0, true)}));                                            // before the start
  BOOST_TEST(corrupt({started, started}));                                                     // twice
  BOOST_TEST(corrupt({started, summarized("r1", 3, true)}));                                   // out of range
  BOOST_TEST(corrupt({started, summarized("r1", 1, true), summarized("r1", 1, false)}));       // twice
  BOOST_TEST(corrupt({started, summarized("r1", 1, true), completed}));                        // pairs left
  BOOST_TEST(corrupt({started, {be::kMemoryRedistillSummarized, {{"redistill_id", "r1"}}}}));  // no index
  std::vector<Event> all = {started, summarized("r1", 0, true), summarized("r1", 1, true), summarized("r1", 2, true),
                            completed};
  BOOST_TEST(FoldRedistill("b", "r1", all).value().finished());
  all.push_back(summarized("r1", 0, true));
  BOOST_TEST(corrupt(all));  // after the completion
}

// --- The decider ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_decider_asks_every_pair_once_and_completes_with_the_last_result) {
  Campaign c;
  const Event started = Started(c);
  const auto pairs = RecordedPairs(c.sim.state());
  // Pair 0's fast kernel is missing from the log: it is recorded as such.
  HidingBlobs blobs(c.sim.blobs(), {pairs[0].pair.fast_sha256});
  SimProblems problems(c.sim.state());
  Driver d{blobs, problems, NewRedistillState("b", "r1")};
  REQUIRE_OK(d.Append({{started}, {}, {}}));
  REQUIRE_OK(d.RunToEnd(/*max_in_flight=*/3, /*seed=*/1));

  std::set<int> unaskable;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].pair.fast_sha256 == pairs[0].pair.fast_sha256 ||
        pairs[i].pair.slow_sha256 == pairs[0].pair.fast_sha256) {
      unaskable.insert(static_cast<int>(i));
    }
  }
  BOOST_TEST(unaskable.size() < pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    BOOST_TEST(d.asked[static_cast<int>(i)] == (unaskable.count(static_cast<int>(i)) ? 0 : 1), "pair " << i);
  }
  // The calls: the campaign's LLM request shape, with the summarizer's prompt.
  for (const RedistillCall& call : d.calls_seen) {
    const RedistillPair& rp = pairs[call.pair];
    BOOST_TEST(call.activity.activity_id == "redistill/b/r1/" + std::to_string(call.pair));
    BOOST_TEST(call.activity.role == kRoleSummarizer);
    BOOST_TEST((call.activity.kind == ActivityKind::kLlm));
    const ChatPrompt prompt =
        SummarizerPrompt(c.sim.state().problems[rp.problem_index].info, *c.sim.blobs().Get(rp.pair.slow_sha256),
                         *c.sim.blobs().Get(rp.pair.fast_sha256), rp.pair.speedup);
    BOOST_TEST(call.activity.request == (json{{"provider", "other"},
                                              {"model", "other-model"},
                                              {"temperature", 0.5},
                                              {"max_tokens", 700},
                                              {"reasoning", "high"},
                                              {"system", prompt.system},
                                              {"user", prompt.user}}));
  }
  // One result per pair; the completion is last, in the batch of the last result.
  BOOST_REQUIRE(d.log.size() == pairs.size() + 2);
  BOOST_TEST(d.log.back().type == be::kMemoryRedistillCompleted);
  BOOST_TEST(d.batch_ends.back() == d.log.size());
  BOOST_TEST(d.log[d.log.size() - 2].type == be::kMemoryRedistillSummarized);
  for (size_t k = 1; k + 1 < d.log.size(); ++k) {
    const json& e = d.log[k].data;
    const int i = e.at("index").get<int>();
    BOOST_TEST(e["model"] == "other-model");
    if (unaskable.count(i)) {
      BOOST_TEST(e["ok"] == false);
      BOOST_TEST(e["error"] == "invalid_request: the pair's code is missing from the log");
      BOOST_TEST(e["cost_usd"] == 0.0);
      BOOST_TEST(!e.contains("response_sha256"));
      continue;
    }
    const RedistillReply r = ScriptedSummary(i);
    BOOST_TEST(e["cost_usd"] == r.cost_usd);
    if (!r.ok) {
      BOOST_TEST(e["ok"] == false);
      BOOST_TEST(e["error"] == r.error);
      continue;
    }
    BOOST_TEST(e["response_sha256"] == Sha256Hex(r.text));
    BOOST_TEST(e["usage"] == (json{{"input_tokens", r.input_tokens}, {"output_tokens", r.output_tokens}}));
    if (i % 4 == 2) {
      BOOST_TEST(e["ok"] == false);
      BOOST_TEST(e["error"] == "no optimization found");
      continue;
    }
    BOOST_TEST(e["ok"] == true);
    auto decoded = MemoryItem::FromJson(e["item"]);
    BOOST_TEST_REQUIRE(decoded.ok(), decoded.status().ToString());
    const MemoryItem& item = *decoded;
    BOOST_TEST(item.id == "redistill/b/r1/m" + std::to_string(i));
    BOOST_TEST(item.summarizer_activity == "redistill/r1/" + std::to_string(i));
    BOOST_TEST(item.title == "Trick " + std::to_string(i));
    BOOST_TEST(item.problem == pairs[i].problem);
    BOOST_TEST(item.iteration == pairs[i].iteration);
    BOOST_TEST(item.kind == pairs[i].pair.kind);
    BOOST_TEST(ToJson(item.pair) == ToJson(pairs[i].pair));
    BOOST_TEST(item.derived_from.empty());
  }
  // The bank's projection folds the same events into generation 2.
  json banks = json::object();
  REQUIRE_OK(ApplyBankEvent(
      banks, "b", 1, MemoryItemsAddedEvent("campaign", {MemoryItem{"x", kPositive, "t"}}, {{"campaign", "c1"}})));
  for (size_t k = 0; k < d.log.size(); ++k) REQUIRE_OK(ApplyBankEvent(banks, "b", k + 2, d.log[k]));
  const BankView v = *ReadBank(banks, "b");
  BOOST_TEST(v.generation == 2);
  BOOST_TEST(v.redistills.at(0).added == d.state.added);
  BOOST_TEST(v.redistills.at(0).failed == d.state.failed);
  BOOST_TEST(v.redistills.at(0).cost_usd == d.state.cost_usd);
  BOOST_TEST(v.ActiveCount() == d.state.added);
  // Nothing more to decide, and no reply to record.
  BOOST_TEST(DecideRedistill(d.state, blobs, problems, {}, 10)->empty());
  BOOST_TEST(RecordReply(d.state, 1, ScriptedSummary(1)).status().code() == Code::kFailedPrecondition);
}

BOOST_AUTO_TEST_CASE(the_decider_keeps_to_its_room_and_skips_calls_in_flight) {
  Campaign c;
  SimProblems problems(c.sim.state());
  auto st = FoldRedistill("b", "r1", {Started(c)});
  REQUIRE_OK(st.status());
  auto cmd = DecideRedistill(*st, c.sim.blobs(), problems, {0, 2}, 2);
  REQUIRE_OK(cmd.status());
  BOOST_TEST(cmd->events.empty());
  BOOST_REQUIRE(cmd->calls.size() == 2u);
  BOOST_TEST(cmd->calls[0].pair == 1);
  BOOST_TEST(cmd->calls[1].pair == 3);
  BOOST_TEST(DecideRedistill(*st, c.sim.blobs(), problems, {}, 0)->empty());
  BOOST_TEST(RecordReply(*st, -1, ScriptedSummary(0)).status().code() == Code::kFailedPrecondition);
  BOOST_TEST(DecideRedistill(NewRedistillState("b", "r1"), c.sim.blobs(), problems, {}, 5)->empty());
  // A campaign that is gone: every pair is recorded without a call.
  MapBlobSource none;
  class NoProblems : public CampaignProblems {
    Result<ProblemInfo> Get(const std::string& campaign, int) const override {
      return NotFound("no campaign '" + campaign + "'");
    }
  } gone;
  auto all = DecideRedistill(*st, none, gone, {}, 2);
  REQUIRE_OK(all.status());
  BOOST_TEST(all->calls.empty());
  BOOST_REQUIRE(all->events.size() == st->pairs.size() + 1);
  BOOST_TEST(all->events[0].data["error"] == "invalid_request: no campaign 'c1'");
  BOOST_TEST(all->events.back().type == be::kMemoryRedistillCompleted);
}

// Stopped after every event boundary, folded back from that prefix and
// driven on (calls that were in flight are asked again, replies in another
// order): nothing with a result in the prefix is asked again, and the log
// ends with the same events as the uninterrupted run.
BOOST_AUTO_TEST_CASE(resume_at_every_event_never_asks_a_pair_with_a_result_again) {
  Campaign c;
  const auto pairs = RecordedPairs(c.sim.state());
  HidingBlobs blobs(c.sim.blobs(), {pairs[1].pair.fast_sha256});
  SimProblems problems(c.sim.state());
  Driver full{blobs, problems, NewRedistillState("b", "r1")};
  REQUIRE_OK(full.Append({{Started(c)}, {}, {}}));
  REQUIRE_OK(full.RunToEnd(/*max_in_flight=*/3, /*seed=*/7));
  const std::vector<std::string> want = Canonical(full.log);

  for (size_t cut = 1; cut <= full.log.size(); ++cut) {
    const std::vector<Event> prefix(full.log.begin(), full.log.begin() + static_cast<long>(cut));
    auto st = FoldRedistill("b", "r1", prefix);
    REQUIRE_OK(st.status());
    // Decide on the prefix alone: exactly the pairs without a result.
    auto cmd = DecideRedistill(*st, blobs, problems, {}, 1 << 20);
    REQUIRE_OK(cmd.status());
    std::set<int> next;
    for (const auto& call : cmd->calls) next.insert(call.pair);
    for (const Event& e : cmd->events) {
      if (e.type == be::kMemoryRedistillSummarized) next.insert(e.data.at("index").get<int>());
    }
    for (int i : next) BOOST_TEST(!st->done.count(i), "cut " << cut << ": pair " << i << " asked again");
    BOOST_TEST(next.size() + st->done.size() == (st->finished() ? st->done.size() : pairs.size()), "cut " << cut);
    size_t recorded = st->done.size();
    for (const Event& e : cmd->events) recorded += e.type == be::kMemoryRedistillSummarized ? 1 : 0;
    const bool completes = !cmd->events.empty() && cmd->events.back().type == be::kMemoryRedistillCompleted;
    BOOST_TEST(completes == (!st->finished() && recorded == pairs.size()), "cut " << cut);
    if (st->finished()) BOOST_TEST(cmd->empty());

    // Driven on from the prefix: the same events in the end.
    Driver resumed{blobs, problems, *st, prefix};
    REQUIRE_OK(resumed.RunToEnd(/*max_in_flight=*/2, /*seed=*/100 + cut));
    const std::vector<std::string> got = Canonical(resumed.log);
    BOOST_TEST((got == want), "cut " << cut);
    for (int i : st->done) BOOST_TEST(resumed.asked[i] == 0, "cut " << cut << ": pair " << i << " asked again");
  }
}

}  // namespace
}  // namespace accelopt::workflows::testing
