#include "daemon/notify.hpp"

#include <systemd/sd-daemon.h>

namespace accelopt::daemon {

void NotifyReady(const std::string& status) {
  std::string msg = "READY=1";
  if (!status.empty()) msg += "\nSTATUS=" + status;
  sd_notify(0, msg.c_str());
}

void NotifyStopping() { sd_notify(0, "STOPPING=1"); }

void NotifyStatus(const std::string& status) { sd_notify(0, ("STATUS=" + status).c_str()); }

void NotifyWatchdog() { sd_notify(0, "WATCHDOG=1"); }

void NotifyExtendTimeout(std::chrono::microseconds extra) {
  sd_notify(0, ("EXTEND_TIMEOUT_USEC=" + std::to_string(extra.count())).c_str());
}

std::optional<std::chrono::microseconds> WatchdogPingInterval() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec / 2);
}

}  // namespace accelopt::daemon
