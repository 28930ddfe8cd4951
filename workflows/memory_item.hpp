// The memory item a summarizer's reply makes of a slow→fast pair: the one
// builder, for the campaign's memory step (Decide's MemoryUpdated) and for
// re-distillation (workflows/redistill.hpp's MemoryRedistillSummarized).
// What to do with the reply before (which parse rule, whether "no
// optimization" or a duplicate is dropped) is the caller's policy; this only
// assembles the item.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <string>
#include <vector>

#include "workflows/memory_policy.hpp"
#include "workflows/parse.hpp"

namespace accelopt::workflows {

// Everything of an item that is not the summary's text.
struct MemoryItemOrigin {
  std::string id;                         // the item's id
  std::string problem;                    // the problem's id
  int iteration = 0;                      // the iteration whose pair it summarizes
  std::string summarizer_activity;        // the call that wrote the summary
  MemoryPair pair;                        // the item's kind is the pair's
  std::vector<std::string> derived_from;  // empty when unknown
};

// The item: the summary's title, description, snippets and no_optimization,
// the origin's provenance; credit 0, never credited.
MemoryItem BuildMemoryItem(const Summary& summary, MemoryItemOrigin origin);

}  // namespace accelopt::workflows
