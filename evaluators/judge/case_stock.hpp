// The stock of never-used timing cases of one problem
// (<cache>/harness/<problem>-<key>/stock/): case files (inputs and
// reference, harness/job.hpp WriteCaseFile) made ahead of time from fresh
// secret-keyed seeds, each given to one evaluation at most, ever. An
// evaluation claims its timing cases by renaming them out of the stock into
// its own work folder, which is removed when it ends; the cases it could not
// claim it makes itself (judge_main.cpp, within pool_make_budget_s). The
// stock is refilled by HarnessCache::RefillStock, which the cpu backend runs
// only while no evaluation is running (cpu_backend.hpp, refill_stock), so
// the references' cost stays off the critical path when the evaluator has
// idle time (an LLM call between evaluations).
//
// Why: a case used in one evaluation only is worth nothing to learn — by
// any channel a runner might find, in that evaluation or any later one
// (docs/evaluation.md, "Inputs").
//
// Thread safety: reentrant. Claims are renames: two evaluations (threads or
// processes) never get the same file.
#pragma once

#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::eval::judge {

// Whether `name` is a finished case file of a stock (not a writer's
// temporary file).
bool IsStockCaseName(const std::string& name);

// The finished case files in `stock_dir` (0 when it does not exist).
size_t StockCount(Env* env, const std::string& stock_dir);

// Moves up to `n` case files from `stock_dir` into `dest_dir` (created),
// keeping their names; returns their new paths. A file another claimer took
// first is skipped.
Result<std::vector<std::string>> ClaimStock(Env* env, const std::string& stock_dir, size_t n,
                                            const std::string& dest_dir);

// A fresh case file name (hex), for a case made from a fresh seed.
std::string FreshCaseName(Env* env);

}  // namespace accelopt::eval::judge
