// The one strict reader of human-written JSON's keys (base/strict_json.hpp).
#include <boost/test/unit_test.hpp>

#include "base/strict_json.hpp"

using namespace accelopt;

BOOST_AUTO_TEST_SUITE(strict_json)

BOOST_AUTO_TEST_CASE(places_name_the_file_and_the_path) {
  const JsonPlace top{"c.json", ""};
  BOOST_TEST(top.ToString() == "c.json");
  BOOST_TEST(top.Key("evaluators").Key("cpu").ToString() == "c.json: evaluators.cpu");
  BOOST_TEST(top.Key("params").Index(1).Key("shape").ToString() == "c.json: params[1].shape");
  BOOST_TEST(JsonPlace{}.Key("roles").ToString() == "roles");
  BOOST_TEST(JsonPlace{}.ToString() == "");
  BOOST_TEST(JsonPlace{}.Say("must be an object") == "must be an object");
}

BOOST_AUTO_TEST_CASE(an_unknown_key_says_the_near_one) {
  auto st = CheckKnownKeys(json{{"state_dir", "/x"}, {"stat_dir", "/y"}}, JsonPlace{"c.json", ""},
                           {"state_dir", "listen", "providers"});
  BOOST_TEST(st.code() == Code::kInvalidArgument);
  BOOST_TEST(st.message() == "c.json: unknown key `stat_dir` (did you mean `state_dir`?)");
  // Nested: the path to the object, the key apart.
  json j = json::parse(R"({"evaluators": {"cpu": {"slotz": 1}}})");
  st = CheckKnownKeys(j["evaluators"]["cpu"], JsonPlace{"c.json", "evaluators.cpu"}, {"slots", "slot_cores"});
  BOOST_TEST(st.message() == "c.json: evaluators.cpu: unknown key `slotz` (did you mean `slots`?)");
  // A key that differs only in case is the suggestion.
  st = UnknownKey(JsonPlace{"spec.json", "search"}, "topk", {"T", "TopK", "ExpN"});
  BOOST_TEST(st.message() == "spec.json: search: unknown key `topk` (did you mean `TopK`?)");
}

BOOST_AUTO_TEST_CASE(with_no_near_key_it_lists_the_known_ones) {
  auto st = CheckKnownKeys(json{{"colour", "red"}}, JsonPlace{"", "arms[0]"}, {"overlay", "name", "spend_of"});
  BOOST_TEST(st.message() == "arms[0]: unknown key `colour` (known: name, overlay, spend_of)");
}

BOOST_AUTO_TEST_CASE(known_keys_and_non_objects) {
  BOOST_TEST(CheckKnownKeys(json{{"a", 1}}, JsonPlace{"f", "x"}, {"a", "b"}).ok());
  BOOST_TEST(CheckKnownKeys(json::object(), JsonPlace{}, std::vector<std::string>{}).ok());
  auto st = CheckKnownKeys(json::array(), JsonPlace{"f", "x"}, {"a"});
  BOOST_TEST(st.message() == "f: x: must be an object");
}

BOOST_AUTO_TEST_SUITE_END()
