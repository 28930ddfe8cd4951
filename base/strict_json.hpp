// The one strict reader of human-written JSON's keys (configs, campaign
// specs, experiment files, problem.json, provider and executor sections):
// every reader of a document a person wrote refuses an unknown key with the
// same message,
//   "<file>: <path>: unknown key `k` (did you mean `near`?)"
// and, with no close known key, "(known: a, b, c)" instead of the
// suggestion. <file> is left out (with its ": ") where the reader is not
// given one (a section parsed on its own, a request body), <path> at the
// document's top level. The suggestion is a known key that differs only in
// case, else ClosestMatch's (base/text.hpp).
//
// Thread safety: pure functions and plain values.
#pragma once

#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt {

// Where in a human-written document a value is: its file ("" when unknown)
// and its path ("" at the top level; "evaluators.cpu", "params[1].shape").
struct JsonPlace {
  std::string file;
  std::string path;

  // This place's member `key` ("a" + "b" -> "a.b") or element `i` ("a[2]").
  JsonPlace Key(std::string_view key) const;
  JsonPlace Index(size_t i) const;
  // "<file>: <path>", either part left out when empty ("" when both are).
  std::string ToString() const;
  // "<ToString()>: <message>" (just the message when ToString() is "").
  std::string Say(std::string_view message) const;
};

// kInvalidArgument "<place>: unknown key `key` (did you mean `near`?)" (or
// "(known: ...)", the known keys sorted).
Status UnknownKey(const JsonPlace& place, const std::string& key, const std::vector<std::string>& known);

// The first key of `obj` outside `known` as UnknownKey; "<place>: must be
// an object" when `obj` is not one. Ok otherwise.
Status CheckKnownKeys(const json& obj, const JsonPlace& place, const std::vector<std::string>& known);
Status CheckKnownKeys(const json& obj, const JsonPlace& place, const std::set<std::string>& known);
Status CheckKnownKeys(const json& obj, const JsonPlace& place, std::initializer_list<const char*> known);

}  // namespace accelopt
