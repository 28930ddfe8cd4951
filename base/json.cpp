#include "base/json.hpp"

#include "base/env.hpp"

namespace accelopt {

std::string Dump(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

namespace {

// nlohmann's DOM parser behind a depth check. Parsing itself is iterative,
// but copying, comparing and dumping a json value recurse once per level: a
// request body of "[[[[..." a few hundred kilobytes long would overflow the
// stack wherever the parsed value is copied. Found by fuzz/config_fuzz.cpp.
class DepthLimitedSax : public nlohmann::detail::json_sax_dom_parser<json> {
  using Base = nlohmann::detail::json_sax_dom_parser<json>;

 public:
  explicit DepthLimitedSax(json& result) : Base(result, /*allow_exceptions=*/true) {}
  bool start_object(std::size_t n) { return Enter() && Base::start_object(n); }
  bool start_array(std::size_t n) { return Enter() && Base::start_array(n); }
  bool end_object() {
    --depth_;
    return Base::end_object();
  }
  bool end_array() {
    --depth_;
    return Base::end_array();
  }
  bool too_deep() const { return too_deep_; }

 private:
  bool Enter() {
    if (++depth_ > kMaxJsonDepth) too_deep_ = true;
    return !too_deep_;
  }
  int depth_ = 0;
  bool too_deep_ = false;
};

}  // namespace

Result<json> ParseJson(std::string_view text, bool allow_comments) {
  try {
    json result;
    DepthLimitedSax sax(result);
    bool ok =
        json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json, /*strict=*/true, allow_comments);
    if (sax.too_deep()) {
      return InvalidArgument("invalid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    if (!ok) return InvalidArgument("invalid JSON");
    return result;
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("invalid JSON: ") + e.what());
  }
}

Result<json> ReadJsonFile(Env* env, const std::string& path) {
  ACCELOPT_ASSIGN_OR_RETURN(std::string text, env->ReadFile(path));
  auto r = ParseJson(text, /*allow_comments=*/true);
  if (!r.ok()) return r.status().WithContext(path);
  return r;
}

Result<json> ReadJsonFile(const std::string& path) { return ReadJsonFile(Env::Default(), path); }

}  // namespace accelopt
