#!/usr/bin/env python3
"""Checks and figures of a campaign driven by a real model (scripts/real-model-check).

usage: real_model_check.py STATE_DIR CAMPAIGN_WALL_S DOM_RENDERED
Reads STATE_DIR/events.jsonl (acceloptctl -o json events ID), STATE_DIR/demo-report.txt,
STATE_DIR/report.dom.html; prints the figures and writes STATE_DIR/real-model-check.json.
Exit 0 when every check holds, 1 otherwise (each failed check is printed).
Standard library only.
"""
import collections
import json
import os
import re
import sys

# Named outcomes (llm/types.cpp LlmErrorKindName; workflows/parse.hpp failures).
LLM_ERROR_KINDS = {
    "config", "invalid_request", "auth", "client_error", "rate_limited", "server_error", "network",
    "timeout", "malformed", "empty_reply", "truncated", "too_large", "cancelled", "command_failed",
    "replay_miss", "context_overflow"}
PROPOSAL_FAILURES = {"no_code_block", "truncated_code_block", "missing_function", "llm_failed",
                     "reasoning_only", "refused", "skipped_after_timeout"}


def main():
    state, wall_s, dom_rendered = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
    events = []
    with open(os.path.join(state, "events.jsonl")) as f:
        for line in f:
            line = line.strip()
            if line:
                events.append(json.loads(line))
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    by_type = collections.defaultdict(list)
    for e in events:
        by_type[e.get("type")].append(e.get("data", {}))
    roles = {}
    for d in by_type["ActivityScheduled"]:
        if "role" in d:
            roles[d.get("activity_id")] = d["role"]
        elif isinstance(d.get("payload"), dict) and "role" in d["payload"]:
            roles[d.get("activity_id")] = d["payload"]["role"]

    # Answered = the server replied with a completion (HTTP 200): the
    # completed calls and those failed for what the reply was (cut at
    # max_tokens, empty), which carry the reply's usage, model and latency.
    answered_kinds = ("truncated", "empty_reply")
    failed = by_type["LlmCallFailed"]
    completed = by_type["LlmCallCompleted"] + [d for d in failed if d.get("error_kind") in answered_kinds]
    failed_unanswered = [d for d in failed if d.get("error_kind") not in answered_kinds]
    models = collections.Counter(d.get("model", "") for d in completed)
    usage_sources = collections.Counter(d.get("usage_source", "") for d in completed)
    cost_sources = collections.Counter(d.get("cost_source", "") for d in completed)
    finish = collections.Counter(d.get("finish_reason", "") for d in completed)
    prompt_tokens = sum(d.get("usage", {}).get("input_tokens", 0) for d in completed + failed_unanswered)
    completion_tokens = sum(d.get("usage", {}).get("output_tokens", 0) for d in completed + failed_unanswered)
    latency = sum(d.get("latency_s", 0.0) for d in completed)
    out_completed = sum(d.get("usage", {}).get("output_tokens", 0) for d in completed)
    by_role = collections.Counter(roles.get(d.get("activity_id"), "?") for d in completed)
    failed_kinds = collections.Counter()
    for d in failed:
        kind = re.split(r"[ :(]", d.get("error", ""), maxsplit=1)[0]
        failed_kinds[kind] += 1
        check(kind in LLM_ERROR_KINDS, "LLM call %s failed without a named kind: %r"
              % (d.get("activity_id"), d.get("error", "")[:200]))

    expected_model = os.environ.get("ACCELOPT_EXPECT_MODEL", "")
    check(len(completed) > 0, "no LLM call was answered")
    for d in completed:
        if expected_model:
            check(d.get("model") == expected_model,
                  "call %s answered by %r, not %r" % (d.get("activity_id"), d.get("model"), expected_model))
        check(d.get("usage_source") == "provider",
              "call %s: usage not from the server (%s)" % (d.get("activity_id"), d.get("usage_source")))
        check(d.get("cost_source") == "zero_price",
              "call %s: cost source %s, not zero_price" % (d.get("activity_id"), d.get("cost_source")))
        check(not d.get("replayed_from"), "call %s was replayed" % d.get("activity_id"))

    proposals = by_type["CandidateProposed"] + by_type["FixProposed"]
    outcomes = collections.Counter()
    for d in proposals:
        if d.get("ok"):
            outcomes["usable_code"] += 1
        else:
            f = d.get("failure", "")
            outcomes[f] += 1
            check(f in PROPOSAL_FAILURES, "proposal %s: unnamed failure %r" % (d.get("candidate_id"), f))
    plans = by_type["PlanProposed"]
    plan_ok = sum(1 for d in plans if d.get("ok"))

    eval_status = collections.Counter()
    for d in by_type["EvaluationCompleted"]:
        r = d.get("result", {})
        eval_status[r.get("status", "?") if isinstance(r, dict) else "?"] += 1
    eval_status["evaluation_failed"] += len(by_type["EvaluationFailed"])
    if not eval_status["evaluation_failed"]:
        del eval_status["evaluation_failed"]
    reused = len(by_type["EvaluationReused"])
    fixes = len(by_type["FixProposed"])

    memory_items = []
    for d in by_type["MemoryUpdated"]:
        for it in d.get("added", []) or d.get("items", []) or []:
            if isinstance(it, dict):
                memory_items.append(it.get("title", ""))
    summarizer_calls = by_role.get("summarizer", 0)

    ended = [e.get("type") for e in events if e.get("type") in
             ("CampaignCompleted", "CampaignFailed", "CampaignCancelled", "BudgetExhausted")]
    # The loop must reach its end through the daemon. A campaign whose every
    # candidate was unusable ends CampaignFailed with that reason: the model's
    # doing, reported as such (figures "end" and "end_reason"), not a failure
    # of the check; any other failure is.
    end_reason = ""
    for d in by_type["CampaignFailed"]:
        end_reason = d.get("reason", "")
    model_caused = "no candidate was evaluated" in end_reason
    check("CampaignCompleted" in ended or ("CampaignFailed" in ended and model_caused),
          "the campaign did not reach its end (%s %s)" % (ended or "no end event", end_reason[:300]))

    report_text = ""
    try:
        with open(os.path.join(state, "demo-report.txt")) as f:
            report_text = f.read()
    except OSError:
        pass
    check(len(report_text.strip()) > 0, "the text report is empty")
    dom = ""
    if dom_rendered:
        try:
            with open(os.path.join(state, "report.dom.html")) as f:
                dom = f.read()
        except OSError:
            pass
        problems = set(os.environ.get("ACCELOPT_DEMO_PROBLEMS", "silu").split())
        check(len(dom) > 1000, "the HTML report did not render in Chromium (%d bytes of DOM)" % len(dom))
        for p in problems:
            check(str(p) in dom, "the rendered report does not name problem %s" % p)

    best = [d for d in by_type["BestSelected"]]
    figures = {
        "events": len(events),
        "campaign_wall_s": wall_s,
        "llm_calls": len(completed) + len(failed_unanswered),
        "llm_calls_answered": len(completed),
        "llm_calls_completed": len(by_type["LlmCallCompleted"]),
        "llm_calls_failed": dict(failed_kinds),
        "calls_by_role": dict(by_role),
        "models": dict(models),
        "usage_sources": dict(usage_sources),
        "cost_sources": dict(cost_sources),
        "finish_reasons": dict(finish),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "llm_latency_s": round(latency, 1),
        "completion_tokens_per_s": round(out_completed / latency, 1) if latency > 0 else None,
        "plans": len(plans), "plans_ok": plan_ok,
        "proposals": len(proposals), "proposal_outcomes": dict(outcomes), "fixes": fixes,
        "evaluations": dict(eval_status), "evaluations_reused": reused,
        "memory_items": memory_items, "summarizer_calls": summarizer_calls,
        "best_selected": best,
        "end": ended,
        "end_reason": end_reason,
        "report_dom_bytes": len(dom),
        "checks_failed": failures,
    }
    with open(os.path.join(state, "real-model-check.json"), "w") as f:
        json.dump(figures, f, indent=2)
    print(json.dumps(figures, indent=2))
    if failures:
        print("real-model-check: FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    print("real-model-check: passed (%d calls answered by %s)" % (len(completed), ", ".join(models)),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
