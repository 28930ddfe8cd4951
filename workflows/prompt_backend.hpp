// The registry of the backends' prompt sets (the interface and what a set
// holds: backend_prompts.hpp): the set for a backend name, or the generic
// set for a backend with none of its own.
//
// Thread safety: the sets are immutable; the function is pure.
#pragma once

#include <string>

#include "workflows/backend_prompts.hpp"

namespace accelopt::workflows {

// The set for `backend` ("cpu", ...; any other name: the generic set).
const BackendPrompts& BackendPromptsFor(const std::string& backend);

}  // namespace accelopt::workflows
