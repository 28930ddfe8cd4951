// Dispatcher: a bounded pool of evaluation slots per backend.
//
// Each registered backend gets `slots` worker threads; submissions wait in a
// fair queue per backend: FIFO within a client (e.g. a campaign id), round
// robin across clients, so one campaign's burst of 100 candidates does not
// starve another's single re-measurement. The callback runs on a worker
// thread once the result is known; it must not block for long and must not
// call Shutdown(). It may call Submit() or Cancel().
//
// Cancel(ticket): a queued evaluation is removed and its callback receives a
// kCancelled result at once; a running one gets its cancel flag set and the
// backend returns kCancelled soon. Shutdown() cancels everything queued and
// running, waits for the workers, and is called by the destructor.
//
// Thread safety: every method is thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.hpp"
#include "evaluators/backend.hpp"

namespace accelopt::eval {

// Splits `cpus` into `slots` contiguous, equal parts (the first parts one
// larger when it does not divide); with more slots than CPUs, slot i gets
// cpus[i % n] alone. One slot gets every CPU.
std::vector<std::vector<int>> SplitCores(const std::vector<int>& cpus, int slots);

class Dispatcher {
 public:
  using Callback = std::function<void(uint64_t ticket, EvalResult)>;

  struct BackendSlots {
    std::shared_ptr<Backend> backend;
    int slots = 1;  // REQUIRES: >= 1
    // Optional: the CPUs each slot owns (slot_cores[i] for worker i). A
    // request whose settings.cores is empty runs on its slot's cores; empty
    // here (the default) leaves every request as it is.
    std::vector<std::vector<int>> slot_cores;
  };

  explicit Dispatcher(std::vector<BackendSlots> backends);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Queues `request` for request.backend under `client` (any string; "" is a
  // client too). Returns a ticket (> 0), or kNotFound for an unknown backend,
  // kFailedPrecondition after Shutdown(). `placement` goes to the backend's
  // EvaluatePlaced (backend.hpp): its `placed` runs on the worker thread.
  Result<uint64_t> Submit(EvalRequest request, std::string client, Callback done, Placement placement = {});

  // True when the ticket was queued or running (and is now being cancelled).
  bool Cancel(uint64_t ticket);

  // {backend name: Backend::Health()} for the backends that report one.
  // Any thread; the backends are asked outside the lock.
  json Health() const;

  // Counts, for metrics and tests.
  size_t Queued(const std::string& backend) const;
  size_t Running(const std::string& backend) const;

  void Shutdown();

 private:
  struct Job {
    uint64_t ticket;
    EvalRequest request;
    Callback done;
    std::shared_ptr<std::atomic<bool>> cancel;
    Placement placement;
  };
  struct Pool {
    std::shared_ptr<Backend> backend;
    std::map<std::string, std::deque<Job>> queues;  // per client
    std::deque<std::string> turn;                   // clients with queued jobs, round robin
    std::map<uint64_t, std::shared_ptr<std::atomic<bool>>> running;
    std::vector<std::thread> workers;
  };

  void WorkerLoop(Pool* pool, std::vector<int> cores) ACCELOPT_EXCLUDES(mu_);
  bool PopLocked(Pool* pool, Job* out) ACCELOPT_REQUIRES(mu_);

  mutable Mutex mu_;
  std::condition_variable cv_;
  bool stopping_ ACCELOPT_GUARDED_BY(mu_) = false;
  uint64_t next_ticket_ ACCELOPT_GUARDED_BY(mu_) = 1;
  std::map<std::string, std::unique_ptr<Pool>> pools_ ACCELOPT_GUARDED_BY(mu_);
};

}  // namespace accelopt::eval
