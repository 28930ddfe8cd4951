#include "workflows/memory_item.hpp"

#include <utility>

namespace accelopt::workflows {

MemoryItem BuildMemoryItem(const Summary& summary, MemoryItemOrigin origin) {
  MemoryItem item;
  item.id = std::move(origin.id);
  item.kind = origin.pair.kind;
  item.title = summary.title;
  item.description = summary.description;
  item.slow_snippet = summary.slow_snippet;
  item.fast_snippet = summary.fast_snippet;
  item.no_optimization = summary.no_optimization;
  item.problem = std::move(origin.problem);
  item.iteration = origin.iteration;
  item.summarizer_activity = std::move(origin.summarizer_activity);
  item.pair = std::move(origin.pair);
  item.derived_from = std::move(origin.derived_from);
  return item;
}

}  // namespace accelopt::workflows
