// Keeps the slot's cores awake while the runner is stopped. Included once, by
// judge_main.cpp.
//
// Why: between two calls the runner is stopped and the judge works on one
// core; the slot's other cores have nothing to run. On a virtual machine an
// idle vCPU is descheduled by the host after a short halt-poll window, and
// the next call then pays for waking it (measured here: a 25 us kernel took
// 110 us after a 300 us gap and several ms after a long one). The old
// in-process harness never saw this because OpenMP's spinning workers kept
// the cores busy between calls. The warmer spins one judge thread on every
// other slot core while the runner is stopped and puts them to sleep right
// before the runner continues (the host's halt-poll window is far longer than
// the few microseconds until the runner's threads take those cores over).
// It changes no result: it runs only outside the timed interval and only
// judge code.
//
// Thread safety: Warm/Rest/Stop from the judge's main thread only.
#pragma once

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

namespace judge {

class CoreWarmer {
 public:
  // Pins the calling thread to cores[0] and starts one spinner on each other core.
  void Start(const std::vector<int>& cores) {
    if (cores.empty()) return;
    Pin(cores[0]);
    for (size_t k = 1; k < cores.size(); ++k) {
      int core = cores[k];
      threads_.emplace_back([this, core] { Spin(core); });
    }
  }
  void Warm() {
    if (threads_.empty()) return;
    state_.store(kWarm);
    syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAKE_PRIVATE, 1 << 30, nullptr, nullptr, 0);
  }
  void Rest() {
    if (!threads_.empty()) state_.store(kRest);
  }
  void Stop() {
    if (threads_.empty()) return;
    state_.store(kQuit);
    syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAKE_PRIVATE, 1 << 30, nullptr, nullptr, 0);
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  ~CoreWarmer() { Stop(); }

 private:
  static constexpr int kRest = 0, kWarm = 1, kQuit = 2;

  static void Pin(int core) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    sched_setaffinity(0, sizeof set, &set);
  }

  void Spin(int core) {
    Pin(core);
    for (;;) {
      int s = state_.load();
      if (s == kQuit) return;
      if (s == kWarm) {
        while (state_.load(std::memory_order_relaxed) == kWarm) __builtin_ia32_pause();
        continue;
      }
      syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAIT_PRIVATE, kRest, nullptr, nullptr, 0);
    }
  }

  std::atomic<int> state_{kRest};
  std::vector<std::thread> threads_;
};

}  // namespace judge
