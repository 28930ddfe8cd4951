#include "evaluators/dispatcher.hpp"

#include <algorithm>

namespace accelopt::eval {
namespace {
EvalResult CancelledResult() { return EvalResult::Failure(EvalStatus::kCancelled, "cancelled before it ran"); }
}  // namespace

Dispatcher::Dispatcher(std::vector<BackendSlots> backends) {
  for (auto& b : backends) {
    auto pool = std::make_unique<Pool>();
    pool->backend = b.backend;
    Pool* raw = pool.get();
    std::string name = b.backend->name();
    pools_[name] = std::move(pool);
    for (int i = 0; i < std::max(1, b.slots); ++i) {
      std::vector<int> cores = static_cast<size_t>(i) < b.slot_cores.size() ? b.slot_cores[i] : std::vector<int>{};
      raw->workers.emplace_back([this, raw, cores] { WorkerLoop(raw, cores); });
    }
  }
}

std::vector<std::vector<int>> SplitCores(const std::vector<int>& cpus, int slots) {
  std::vector<std::vector<int>> out;
  const int n = static_cast<int>(cpus.size());
  if (n == 0 || slots < 1) return out;
  if (slots > n) {
    for (int i = 0; i < slots; ++i) out.push_back({cpus[static_cast<size_t>(i % n)]});
    return out;
  }
  int at = 0;
  for (int i = 0; i < slots; ++i) {
    int size = n / slots + (i < n % slots ? 1 : 0);
    out.emplace_back(cpus.begin() + at, cpus.begin() + at + size);
    at += size;
  }
  return out;
}

Dispatcher::~Dispatcher() { Shutdown(); }

Result<uint64_t> Dispatcher::Submit(EvalRequest request, std::string client, Callback done, Placement placement) {
  MutexLock lock(&mu_);
  if (stopping_) return FailedPrecondition("dispatcher is shut down");
  auto it = pools_.find(request.backend);
  if (it == pools_.end()) return NotFound("no evaluation backend '" + request.backend + "'");
  Pool* pool = it->second.get();
  uint64_t ticket = next_ticket_++;
  auto& q = pool->queues[client];
  if (q.empty()) pool->turn.push_back(client);
  q.push_back(Job{ticket, std::move(request), std::move(done), std::make_shared<std::atomic<bool>>(false),
                  std::move(placement)});
  cv_.notify_all();
  return ticket;
}

bool Dispatcher::PopLocked(Pool* pool, Job* out) {
  if (pool->turn.empty()) return false;
  std::string client = pool->turn.front();
  pool->turn.pop_front();
  auto& q = pool->queues[client];
  *out = std::move(q.front());
  q.pop_front();
  if (q.empty())
    pool->queues.erase(client);
  else
    pool->turn.push_back(client);  // next job of this client waits for the others' turns
  return true;
}

void Dispatcher::WorkerLoop(Pool* pool, std::vector<int> cores) {
  while (true) {
    Job job;
    {
      MutexLock lock(&mu_);
      while (!stopping_ && pool->turn.empty()) lock.Wait(&cv_);
      if (stopping_) return;
      PopLocked(pool, &job);
      pool->running[job.ticket] = job.cancel;
    }
    if (job.request.settings.cores.empty()) job.request.settings.cores = cores;
    EvalResult result;
    try {
      result = pool->backend->EvaluatePlaced(job.request, job.cancel.get(), job.placement);
    } catch (const std::exception& e) {
      result = EvalResult::Failure(EvalStatus::kInternalError, std::string("backend threw: ") + e.what());
    }
    {
      MutexLock lock(&mu_);
      pool->running.erase(job.ticket);
    }
    if (job.done) job.done(job.ticket, std::move(result));
  }
}

bool Dispatcher::Cancel(uint64_t ticket) {
  Callback done;
  {
    MutexLock lock(&mu_);
    for (auto& [name, pool] : pools_) {
      if (auto r = pool->running.find(ticket); r != pool->running.end()) {
        r->second->store(true);
        return true;
      }
      for (auto qit = pool->queues.begin(); qit != pool->queues.end(); ++qit) {
        auto& q = qit->second;
        auto jit = std::find_if(q.begin(), q.end(), [&](const Job& j) { return j.ticket == ticket; });
        if (jit == q.end()) continue;
        done = std::move(jit->done);
        q.erase(jit);
        if (q.empty()) {
          pool->turn.erase(std::remove(pool->turn.begin(), pool->turn.end(), qit->first), pool->turn.end());
          pool->queues.erase(qit);
        }
        goto found;
      }
    }
    return false;
  }
found:
  if (done) done(ticket, CancelledResult());
  return true;
}

json Dispatcher::Health() const {
  std::vector<std::shared_ptr<Backend>> backends;
  {
    MutexLock lock(&mu_);
    for (const auto& [name, pool] : pools_) backends.push_back(pool->backend);
  }
  json out = json::object();
  for (const auto& b : backends)
    if (json h = b->Health(); !h.is_null()) out[b->name()] = std::move(h);
  return out;
}

size_t Dispatcher::Queued(const std::string& backend) const {
  MutexLock lock(&mu_);
  auto it = pools_.find(backend);
  if (it == pools_.end()) return 0;
  size_t n = 0;
  for (const auto& [c, q] : it->second->queues) n += q.size();
  return n;
}

size_t Dispatcher::Running(const std::string& backend) const {
  MutexLock lock(&mu_);
  auto it = pools_.find(backend);
  return it == pools_.end() ? 0 : it->second->running.size();
}

void Dispatcher::Shutdown() {
  std::vector<std::pair<uint64_t, Callback>> dropped;
  {
    MutexLock lock(&mu_);
    if (stopping_ && pools_.empty()) return;
    stopping_ = true;
    for (auto& [name, pool] : pools_) {
      for (auto& [c, q] : pool->queues)
        for (auto& j : q) dropped.emplace_back(j.ticket, std::move(j.done));
      pool->queues.clear();
      pool->turn.clear();
      for (auto& [t, flag] : pool->running) flag->store(true);
    }
    cv_.notify_all();
  }
  for (auto& [t, done] : dropped)
    if (done) done(t, CancelledResult());
  // Joined without the lock (the workers take it to finish); the pools
  // themselves live as long as the dispatcher.
  std::vector<std::thread*> workers;
  {
    MutexLock lock(&mu_);
    for (auto& [name, pool] : pools_)
      for (auto& w : pool->workers) workers.push_back(&w);
  }
  for (std::thread* w : workers)
    if (w->joinable()) w->join();
}

}  // namespace accelopt::eval
