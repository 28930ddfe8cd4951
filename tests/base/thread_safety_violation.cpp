// Not compiled into any test: scripts/thread_safety must refuse this file
// (ctest thread_safety_violation_is_caught), so the check can fail. It reads
// and writes a member guarded by a Mutex without holding it.
#include "base/mutex.hpp"

namespace accelopt {

class Counter {
 public:
  void Bump() { ++count_; }  // the rule broken: count_ without mu_
  int Get() {
    MutexLock lock(&mu_);
    return count_;
  }

 private:
  Mutex mu_;
  int count_ ACCELOPT_GUARDED_BY(mu_) = 0;
};

}  // namespace accelopt
