// systemd notification (sd_notify) and watchdog timing.
//
// All functions are no-ops when NOTIFY_SOCKET is unset (not run by systemd).
// Thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace accelopt::daemon {

void NotifyReady(const std::string& status = "");
void NotifyStopping();
void NotifyStatus(const std::string& status);
void NotifyWatchdog();
// Asks systemd for more start-up time (a long replay): EXTEND_TIMEOUT_USEC.
void NotifyExtendTimeout(std::chrono::microseconds extra);

// The interval at which to ping the watchdog (half of WatchdogSec), or
// nullopt when no watchdog is configured for this process.
std::optional<std::chrono::microseconds> WatchdogPingInterval();

}  // namespace accelopt::daemon
