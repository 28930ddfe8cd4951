#include "daemon/metrics.hpp"

#include <cmath>
#include <sstream>

namespace accelopt::daemon {

std::string Metrics::Key(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ",";
    out += labels[i].first + "=\"";
    for (char c : labels[i].second) {
      if (c == '\\' || c == '"') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    out += "\"";
  }
  return out + "}";
}

void Metrics::Describe(const std::string& name, const std::string& type, const std::string& help) {
  MutexLock lock(&mu_);
  auto& f = families_[name];
  f.type = type;
  f.help = help;
}

void Metrics::Add(const std::string& name, const Labels& labels, double delta) {
  MutexLock lock(&mu_);
  families_[name].series[Key(labels)] += delta;
}

void Metrics::Set(const std::string& name, const Labels& labels, double value) {
  MutexLock lock(&mu_);
  families_[name].series[Key(labels)] = value;
}

double Metrics::Get(const std::string& name, const Labels& labels) const {
  MutexLock lock(&mu_);
  auto f = families_.find(name);
  if (f == families_.end()) return 0;
  auto s = f->second.series.find(Key(labels));
  return s == f->second.series.end() ? 0 : s->second;
}

std::string Metrics::Render() const {
  MutexLock lock(&mu_);
  std::ostringstream os;
  os.precision(17);
  for (const auto& [name, f] : families_) {
    if (!f.help.empty()) os << "# HELP " << name << " " << f.help << "\n";
    os << "# TYPE " << name << " " << f.type << "\n";
    for (const auto& [labels, v] : f.series) {
      os << name << labels << " ";
      if (std::isnan(v))
        os << "NaN";
      else
        os << v;
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace accelopt::daemon
