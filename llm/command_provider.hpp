// The "command" provider: an external program (a CLI people already use)
// gets the request on stdin and prints the reply on stdout.
//
// stdin: ToJson(LlmRequest) plus "request_hash", one JSON object.
// stdout: the reply text (output "text"; surrounding whitespace trimmed), or
//   one JSON object (output "json") {"text", "reasoning"?, "finish_reason"?,
//   "input_tokens"?, "output_tokens"?, "cached_tokens"?}.
// The child runs in its own process group with timeouts.total as its
// timeout; cancelling the call kills the group. Exit code != 0 or a signal
// is kCommandFailed (stderr's last line, scrubbed, in the message); a
// timeout is kTimeout (retryable); bad output kMalformed / kEmptyReply.
//
// Threading: Call() is thread-safe; max_concurrency worker threads run the
// children and invoke the callbacks. A watcher thread forwards external
// cancel flags to running children every ~50 ms.
#pragma once

#include <memory>

#include "base/env.hpp"
#include "llm/provider.hpp"

namespace accelopt::llm {

std::unique_ptr<Provider> MakeCommandProvider(const ProviderConfig& config, Env* env);

}  // namespace accelopt::llm
