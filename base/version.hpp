// The version of every accelopt program (acceloptd, acceloptctl,
// accelopt-eval, accelopt-store) and of what they record (DaemonStarted):
// one constant, CMake's project version (the top CMakeLists.txt), defined
// for accelopt_base and everything that links it.
#pragma once

#ifndef ACCELOPT_VERSION
#error "ACCELOPT_VERSION is defined by base/CMakeLists.txt for accelopt_base and its users"
#endif

namespace accelopt {

inline constexpr const char kVersion[] = ACCELOPT_VERSION;

}  // namespace accelopt
