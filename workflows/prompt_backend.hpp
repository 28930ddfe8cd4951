// The registry of the backends' prompt sets (the interface and what a set
// holds: backend_prompts.hpp): the set for a backend name, or the generic
// set for a backend with none of its own. A backend added outside this
// file (a daemon module registered with RegisterBackendModule) registers
// its set with RegisterBackendPrompts (the generic one, renamed, will do);
// the daemon refuses a configured backend without a set at its start
// (daemon/config.cpp, ParseEvaluators).
//
// Thread safety: the sets are immutable once registered;
// RegisterBackendPrompts must run before any lookup (in main, before the
// config is parsed), on one thread. The lookups are then pure.
#pragma once

#include <string>

#include "workflows/backend_prompts.hpp"

namespace accelopt::workflows {

// The set for `backend` ("cpu", ...; any other name: the generic set).
const BackendPrompts& BackendPromptsFor(const std::string& backend);
// The set of `backend`, registered or built in; nullptr for a name without one.
const BackendPrompts* FindBackendPrompts(const std::string& backend);
// The generic set: no rules beyond the shared ones, hardware as a list of
// facts, every numeric profile field shown without a glossary.
const BackendPrompts& GenericBackendPrompts();
// Adds a set under its `name` (a name already registered is replaced; a
// registered set comes before a built-in one of the same name).
void RegisterBackendPrompts(BackendPrompts set);

}  // namespace accelopt::workflows
