// Boost.Test helpers shared by the workflow tests.
#pragma once

#include "world.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#define REQUIRE_OK(expr)                             \
  do {                                               \
    ::accelopt::Status _st = (expr);                 \
    BOOST_REQUIRE_MESSAGE(_st.ok(), _st.ToString()); \
  } while (0)

namespace accelopt::workflows::testing {

// True when `text` contains `what` (logs both when not).
inline bool Mentions(const std::string& text, const std::string& what) {
  const bool ok = text.find(what) != std::string::npos;
  if (!ok) BOOST_TEST_MESSAGE("'" << text << "' does not mention '" << what << "'");
  return ok;
}

// Runs Decide rounds on `st` (storing blobs, applying events) until nothing
// more is decided without a completion; returns every command.
inline std::vector<Command> DecideAll(CampaignState& st, MapBlobSource& blobs) {
  std::vector<Command> all;
  for (int round = 0; round < 100; ++round) {
    auto cmds = Decide(st, blobs);
    BOOST_REQUIRE_MESSAGE(cmds.ok(), cmds.status().ToString());
    if (cmds->empty()) break;
    for (Command& c : *cmds) {
      for (const Blob& b : c.blobs) blobs.Put(b.content);
      REQUIRE_OK(Apply(st, c.event));
      all.push_back(std::move(c));
    }
  }
  return all;
}

// The log as a multiset of (type, data): the same things happened, in any
// order.
inline std::vector<std::string> Canonical(const std::vector<Event>& log) {
  std::vector<std::string> out;
  for (const Event& e : log) out.push_back(e.type + " " + Dump(e.data));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace accelopt::workflows::testing
