#include "evaluators/nki/core_pool.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "base/log.hpp"

namespace accelopt::eval::nki {

Result<std::vector<int>> ParseCoreList(const std::string& spec) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument(
        "evaluators.nki.cores '" + spec + "': " + why +
        " (expected e.g. \"0-31\", \"0,2,4-7\" or \"auto\": one slot per NeuronCore neuron-ls reports)");
  };
  std::vector<int> out;
  std::set<int> seen;
  if (spec.empty()) return bad("empty");
  std::stringstream ss(spec);
  std::string part;
  auto number = [&](const std::string& s, int* v) {
    if (s.empty() || s.size() > 4) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    *v = std::stoi(s);
    return *v <= 4095;
  };
  while (std::getline(ss, part, ',')) {
    part.erase(std::remove(part.begin(), part.end(), ' '), part.end());
    int lo = 0, hi = 0;
    auto dash = part.find('-');
    if (dash == std::string::npos) {
      if (!number(part, &lo)) return bad("'" + part + "' is not a core id");
      hi = lo;
    } else {
      if (!number(part.substr(0, dash), &lo) || !number(part.substr(dash + 1), &hi)) {
        return bad("'" + part + "' is not a range of core ids");
      }
      if (hi < lo) return bad("range '" + part + "' is descending");
    }
    for (int c = lo; c <= hi; ++c) {
      if (!seen.insert(c).second) return bad("core " + std::to_string(c) + " listed twice");
      out.push_back(c);
    }
  }
  if (out.empty()) return bad("no cores");
  std::sort(out.begin(), out.end());
  return out;
}

NeuronCorePool::NeuronCorePool(std::vector<int> cores, HealthCheck health_check, LogLine log, Env* env)
    : cores_(std::move(cores)),
      check_(std::move(health_check)),
      log_(std::move(log)),
      env_(env ? env : Env::Default()) {
  if (!log_) log_ = [](const std::string& line) { LogWarning(line); };
}

Result<int> NeuronCorePool::Acquire(const std::atomic<bool>* cancel, std::chrono::milliseconds timeout) {
  const int64_t deadline = env_->MonotonicNanos() + std::chrono::nanoseconds(timeout).count();
  MutexLock lock(&mu_);
  for (;;) {
    if (quarantined_.size() == cores_.size()) {
      std::string list;
      for (int c : quarantined_) list += (list.empty() ? "" : ",") + std::to_string(c);
      return FailedPrecondition("every NeuronCore of the nki backend is quarantined (" + list +
                                "): run 'accelopt-eval doctor nki' and restart the daemon");
    }
    int pick = -1;
    for (int c : cores_) {
      if (busy_.count(c) || quarantined_.count(c)) continue;
      if (pick < 0 || (suspect_.count(pick) && !suspect_.count(c))) pick = c;  // prefer cores not in doubt
      if (!suspect_.count(pick)) break;
    }
    if (pick >= 0) {
      busy_.insert(pick);
      if (!suspect_.count(pick)) return pick;
      lock.Unlock();
      Status st = check_ ? check_(pick) : Status::Ok();
      lock.Lock();
      if (st.ok()) {
        suspect_.erase(pick);
        return pick;
      }
      busy_.erase(pick);
      suspect_.erase(pick);
      quarantined_.insert(pick);
      log_("nki: NeuronCore " + std::to_string(pick) +
           " quarantined: its health check failed after a runner failure: " + st.message());
      cv_.notify_all();
      continue;
    }
    if (cancel && cancel->load()) return Status(Code::kCancelled, "cancelled while waiting for a NeuronCore");
    const int64_t left = deadline - env_->MonotonicNanos();
    if (left <= 0) return Status(Code::kTimeout, "no NeuronCore became free in time");
    lock.WaitFor(&cv_,
                 std::min<std::chrono::nanoseconds>(std::chrono::nanoseconds(left), std::chrono::milliseconds(100)));
  }
}

void NeuronCorePool::Release(int core, bool runner_failed) {
  MutexLock lock(&mu_);
  busy_.erase(core);
  if (runner_failed) suspect_.insert(core);
  cv_.notify_all();
}

std::vector<int> NeuronCorePool::Quarantined() const {
  MutexLock lock(&mu_);
  return {quarantined_.begin(), quarantined_.end()};
}

}  // namespace accelopt::eval::nki
