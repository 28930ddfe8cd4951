// The built-in backend modules (daemon/backend_module.hpp): each backend's
// config section (<name>_section.cpp: keys and parse, start left empty) and
// its module (<name>_module.cpp: the section plus the start); builtin.cpp
// lists the modules. The fuzz build lists the sections alone
// (fuzz/backend_sections.cpp): parsing a config needs no backend.
#pragma once

#include "daemon/backend_module.hpp"

namespace accelopt::daemon::backends {

BackendModule CpuSection();
BackendModule CudaSection();
BackendModule NkiSection();
BackendModule TritonSection();

BackendModule CpuModule();     // cpu_module.cpp: local (calibrated here) or a Slurm executor
BackendModule CudaModule();    // cuda_module.cpp: one slot per GPU, calibrated with nvcc at start
BackendModule NkiModule();     // nki_module.cpp: one slot per NeuronCore, the Neuron SDK resolved at start
BackendModule TritonModule();  // triton_module.cpp: one slot per GPU, torch and triton probed at start

}  // namespace accelopt::daemon::backends
