// Prometheus text-format metrics: counters and gauges with labels.
//
// Thread-safe (one mutex; updates are rare compared to the work they count).
// Label values must not carry secrets; names follow Prometheus conventions
// (accelopt_<what>_<unit>).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/mutex.hpp"

namespace accelopt::daemon {

class Metrics {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;

  // Registers help text and type ("counter" or "gauge") once per name.
  void Describe(const std::string& name, const std::string& type, const std::string& help);
  void Add(const std::string& name, const Labels& labels, double delta);
  void Set(const std::string& name, const Labels& labels, double value);
  double Get(const std::string& name, const Labels& labels) const;

  // The whole registry in Prometheus text exposition format 0.0.4.
  std::string Render() const;

 private:
  static std::string Key(const Labels& labels);
  struct Family {
    std::string type = "gauge";
    std::string help;
    std::map<std::string, double> series;  // rendered label set -> value
  };
  mutable Mutex mu_;
  std::map<std::string, Family> families_ ACCELOPT_GUARDED_BY(mu_);
};

}  // namespace accelopt::daemon
