// evaluators.nki.python "auto" (the default): the newest Neuron PyTorch
// virtual environment of a Deep Learning AMI, /opt/aws_neuronx_venv_pytorch*
// (the AMIs' venvs are versioned: ..._2_7, ..._2_9, ...; an unversioned
// /opt/aws_neuronx_venv_pytorch counts as the oldest). Versions compare by
// their numbers (2_10 is newer than 2_9); a folder without bin/python is
// skipped. All file access through the Env.
//
// Thread safety: reentrant when the Env is.
#pragma once

#include <string>
#include <vector>

#include "base/env.hpp"
#include "base/status.hpp"

namespace accelopt::eval::nki {

inline constexpr const char* kVenvPrefix = "aws_neuronx_venv_pytorch";

// The interpreter of the newest venv under `root` (default /opt), or
// kNotFound naming the pattern looked for.
Result<std::string> FindNeuronVenvPython(Env* env, const std::string& root = "/opt");

struct NkiConfig;
// When config->python is "auto": sets it to FindNeuronVenvPython's answer.
Status ResolvePython(NkiConfig* config, Env* env, const std::string& root = "/opt");

}  // namespace accelopt::eval::nki
