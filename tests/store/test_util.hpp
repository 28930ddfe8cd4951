// Helpers shared by the store tests: temporary directories, a registry of
// test event types, event builders, and the stress scale.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "store/event_log.hpp"
#include "store/event_types.hpp"

namespace accelopt::store::testing {

// A fresh directory, removed (with its contents) on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/accelopt-store-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) std::abort();
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Event types used by the tests: Tick (v1), Pair (v1), Renamed (v3, with
// upcasters 1->2 adding "unit" and 2->3 renaming "n" to "count").
inline const EventTypeRegistry& TestRegistry() {
  static const EventTypeRegistry* reg = [] {
    auto* r = new EventTypeRegistry;
    (void)r->Register("Tick");
    (void)r->Register("Pair");
    (void)r->Register("Renamed", 3,
                      {{1,
                        [](json d) {
                          d["unit"] = "ms";
                          return d;
                        }},
                       {2, [](json d) {
                          d["count"] = d.at("n");
                          d.erase("n");
                          return d;
                        }}});
    return r;
  }();
  return *reg;
}

inline NewEvent Ev(const std::string& type, json data = json::object()) {
  NewEvent e;
  e.type = type;
  e.data = std::move(data);
  return e;
}

inline StreamAppend To(const std::string& stream, int64_t expected, std::vector<NewEvent> events) {
  StreamAppend a;
  a.stream = stream;
  a.expected_version = expected;
  a.events = std::move(events);
  return a;
}

inline EventLog::Options DefaultOptions() {
  EventLog::Options o;
  o.create_if_missing = true;
  o.registry = &TestRegistry();
  return o;
}

// The first problem of a VerifyReport, or "" (for messages).
template <typename Report>
std::string FirstProblem(const Report& r) {
  return r.problems.empty() ? std::string() : r.problems.front();
}

inline int StressScale() {
  const char* v = std::getenv("ACCELOPT_STRESS_SCALE");
  int s = v && *v ? std::atoi(v) : 1;
  return s < 1 ? 1 : s;
}

}  // namespace accelopt::store::testing
