#include "base/strict_json.hpp"

#include <algorithm>
#include <cctype>

#include "base/text.hpp"

namespace accelopt {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

JsonPlace JsonPlace::Key(std::string_view key) const {
  return {file, path.empty() ? std::string(key) : path + "." + std::string(key)};
}

JsonPlace JsonPlace::Index(size_t i) const { return {file, path + "[" + std::to_string(i) + "]"}; }

std::string JsonPlace::ToString() const {
  if (file.empty()) return path;
  if (path.empty()) return file;
  return file + ": " + path;
}

std::string JsonPlace::Say(std::string_view message) const {
  const std::string where = ToString();
  return where.empty() ? std::string(message) : where + ": " + std::string(message);
}

Status UnknownKey(const JsonPlace& place, const std::string& key, const std::vector<std::string>& known) {
  std::vector<std::string> sorted = known;
  std::sort(sorted.begin(), sorted.end());
  std::string hint, near;
  for (const std::string& k : sorted)
    if (near.empty() && Lower(k) == Lower(key)) near = k;  // "topk" for "TopK"
  if (near.empty()) near = ClosestMatch(key, sorted);
  if (!near.empty()) {
    hint = "did you mean `" + near + "`?";
  } else {
    hint = "known: ";
    for (size_t i = 0; i < sorted.size(); ++i) hint += (i ? ", " : "") + sorted[i];
  }
  return InvalidArgument(place.Say("unknown key `" + key + "` (" + hint + ")"));
}

Status CheckKnownKeys(const json& obj, const JsonPlace& place, const std::vector<std::string>& known) {
  if (!obj.is_object()) return InvalidArgument(place.Say("must be an object"));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) return UnknownKey(place, it.key(), known);
  }
  return Status::Ok();
}

Status CheckKnownKeys(const json& obj, const JsonPlace& place, const std::set<std::string>& known) {
  return CheckKnownKeys(obj, place, std::vector<std::string>(known.begin(), known.end()));
}

Status CheckKnownKeys(const json& obj, const JsonPlace& place, std::initializer_list<const char*> known) {
  return CheckKnownKeys(obj, place, std::vector<std::string>(known.begin(), known.end()));
}

}  // namespace accelopt
