#include "llm/provider.hpp"

#include <future>

namespace accelopt::llm {

LlmResult WaitForCall(const std::function<CallHandle(LlmCallback)>& call) {
  auto promise = std::make_shared<std::promise<LlmResult>>();
  auto future = promise->get_future();
  call([promise](LlmResult r) { promise->set_value(std::move(r)); });
  return future.get();
}

LlmResult Provider::CallBlocking(LlmRequest request, const std::atomic<bool>* cancel) {
  return WaitForCall([&](LlmCallback cb) { return Call(std::move(request), std::move(cb), cancel); });
}

}  // namespace accelopt::llm
