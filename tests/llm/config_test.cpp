#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/log.hpp"
#include "llm/client.hpp"
#include "llm/config.hpp"
#include "llm/secrets.hpp"

namespace accelopt::llm {
namespace {

json Example() {
  return json::parse(R"({"providers": {"local": {"kind": "openai", "base_url": "http://127.0.0.1:8000/v1",
    "api_key_env": "ACCELOPT_TEST_KEY_UNSET_X", "max_concurrency": 16,
    "timeouts": {"connect_ms": 1000, "total_ms": 60000, "stall_ms": 5000},
    "retry": {"max_attempts": 6, "base_ms": 500, "cap_ms": 30000},
    "models": {"gpt-oss-120b": {"input_per_mtok": 0.1, "output_per_mtok": 0.5, "cached_input_per_mtok": 0.05}}}}})");
}

std::string ErrorOf(const json& section) {
  auto r = ParseProvidersConfig(section);
  return r.ok() ? "" : r.status().message();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config)

BOOST_AUTO_TEST_CASE(parses_the_documented_example) {
  auto r = ParseProvidersConfig(Example());
  BOOST_REQUIRE(r.ok());
  BOOST_REQUIRE(r->size() == 1u);
  const ProviderConfig& c = (*r)[0];
  BOOST_TEST(c.name == "local");
  BOOST_TEST(c.kind == ProviderKind::kOpenAi);
  BOOST_TEST(c.max_concurrency == 16);
  BOOST_TEST(c.timeouts.stall.count() == 5000);
  BOOST_TEST(c.retry.max_attempts == 6);
  BOOST_TEST(c.retry.cap.count() == 30000);
  BOOST_TEST(c.models.at("gpt-oss-120b").cached_input_per_mtok == 0.05);
}

BOOST_AUTO_TEST_CASE(errors_name_the_bad_field) {
  json j = Example();
  j["providers"]["local"]["retry"]["max_atempts"] = 3;
  BOOST_TEST(ErrorOf(j) == "providers.local.retry: unknown key `max_atempts` (did you mean `max_attempts`?)");

  j = Example();
  j["providers"]["local"]["max_concurrency"] = "many";
  BOOST_TEST(ErrorOf(j).find("providers.local.max_concurrency: wrong type") == 0u);

  j = Example();
  j["providers"]["local"]["kind"] = "gemini";
  BOOST_TEST(ErrorOf(j).find("providers.local.kind: unknown provider kind 'gemini'") == 0u);

  j = Example();
  j["providers"]["local"].erase("base_url");
  BOOST_TEST(ErrorOf(j) == "providers.local.base_url: required for openai");

  j = Example();
  j["providers"]["local"]["models"]["gpt-oss-120b"]["input_per_mtok"] = -1;
  BOOST_TEST(ErrorOf(j) == "providers.local.models.gpt-oss-120b: prices must be >= 0");

  j = Example();
  j["providers"]["local"]["argv"] = json::array({"x"});  // a command key on an openai provider
  BOOST_TEST(ErrorOf(j).find("providers.local: unknown key `argv` (") == 0u, ErrorOf(j));

  j = json{{"providers", {{"c", {{"kind", "command"}}}}}};
  BOOST_TEST(ErrorOf(j) == "providers.c.argv: required");
  j = json{{"providers", {{"r", {{"kind", "replay"}, {"retry", {{"max_attempts", 0}}}}}}}};
  BOOST_TEST(ErrorOf(j) == "providers.r.retry.max_attempts: must be in 1..100");
}

BOOST_AUTO_TEST_CASE(api_key_from_env_file_and_credentials_directory) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("llm_cfg_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string key = "sk-test-FILEKEY-0123456789abcdef";
  std::ofstream(dir / "openai.key") << "  " << key << "\n";

  ProviderConfig c;
  c.name = "p";
  c.api_key_file = "openai.key";
  ::setenv("CREDENTIALS_DIRECTORY", dir.c_str(), 1);
  auto k = LoadApiKey(Env::Default(), c);
  ::unsetenv("CREDENTIALS_DIRECTORY");
  BOOST_REQUIRE(k.ok());
  BOOST_TEST(*k == key);
  // Registered as a secret the moment it was loaded.
  BOOST_TEST(Redact("key=" + key) == "key=[REDACTED]");

  c.api_key_file.clear();
  c.api_key_env = "ACCELOPT_TEST_KEY_ENV";
  ::setenv("ACCELOPT_TEST_KEY_ENV", "sk-env-ABCDEFGHIJKLMNOP", 1);
  k = LoadApiKey(Env::Default(), c);
  BOOST_REQUIRE(k.ok());
  BOOST_TEST(*k == "sk-env-ABCDEFGHIJKLMNOP");
  ::unsetenv("ACCELOPT_TEST_KEY_ENV");
  k = LoadApiKey(Env::Default(), c);
  BOOST_TEST(!k.ok());
  BOOST_TEST(k.status().message().find("ACCELOPT_TEST_KEY_ENV") != std::string::npos);

  c.api_key_env.clear();
  c.api_key_file = (dir / "missing.key").string();
  BOOST_TEST(!LoadApiKey(Env::Default(), c).ok());
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(aws_credentials_from_the_shared_file) {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("llm_aws_" + std::to_string(::getpid()));
  std::ofstream(file) << "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = secretdefault\n"
                         "[work]\naws_access_key_id=AKIDWORK\naws_secret_access_key=secretwork123\n"
                         "aws_session_token = tokenwork456\n";
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  ProviderConfig c;
  c.name = "b";
  c.credentials_file = file.string();
  c.profile = "work";
  auto cr = LoadAwsCredentials(Env::Default(), c);
  BOOST_REQUIRE(cr.ok());
  BOOST_TEST(cr->access_key_id == "AKIDWORK");
  BOOST_TEST(cr->secret_access_key == "secretwork123");
  BOOST_TEST(cr->session_token == "tokenwork456");
  BOOST_TEST(Redact("secretwork123") == "[REDACTED]");
  c.profile = "nope";
  BOOST_TEST(!LoadAwsCredentials(Env::Default(), c).ok());
  fs::remove(file);
}

BOOST_AUTO_TEST_CASE(provider_set_errors_never_show_a_secret) {
  // A missing key: the error names the variable only.
  auto set = ProviderSet::Create(Example(), {});
  BOOST_REQUIRE(!set.ok());
  BOOST_TEST(set.status().message().find("ACCELOPT_TEST_KEY_UNSET_X") != std::string::npos);
  // Replay without a lookup is refused.
  auto replay = ProviderSet::Create(json{{"providers", {{"r", {{"kind", "replay"}}}}}}, {});
  BOOST_TEST(!replay.ok());
}

BOOST_AUTO_TEST_CASE(scrub_removes_key_shaped_text) {
  const std::string s = ScrubSecrets(
      "Incorrect API key provided: sk-proj-abc123XYZ789. Authorization: Bearer tok_99887766\nline2 "
      "AKIAIOSFODNN7EXAMPLE");
  BOOST_TEST(s.find("sk-proj-abc123XYZ789") == std::string::npos);
  BOOST_TEST(s.find("tok_99887766") == std::string::npos);
  BOOST_TEST(s.find("AKIAIOSFODNN7EXAMPLE") == std::string::npos);
  BOOST_TEST(s.find('\n') == std::string::npos);
  BOOST_TEST(s.find("Incorrect API key provided") != std::string::npos);
  BOOST_TEST(ScrubSecrets(std::string(5000, 'a')).size() <= 603u);
}

BOOST_AUTO_TEST_CASE(integer_fields_refuse_out_of_range_numbers) {
  // These were a float-to-int cast (undefined behaviour) or a silent wrap.
  auto parse = [](json extra) {
    json j = {{"kind", "openai"}, {"base_url", "http://127.0.0.1:8000/v1"}};
    j.update(extra);
    return ParseProviderConfig("local", j, "providers.local");
  };
  BOOST_TEST(!parse({{"max_concurrency", 1e300}}).ok());
  BOOST_TEST(!parse({{"max_concurrency", 4294967297LL}}).ok());
  BOOST_TEST(!parse({{"max_concurrency", 2.5}}).ok());
  BOOST_TEST(!parse({{"timeouts", {{"total_ms", 1e300}}}}).ok());
  BOOST_TEST(!parse({{"retry", {{"max_attempts", -1e30}}}}).ok());
  auto four = parse({{"max_concurrency", 4.0}});
  BOOST_REQUIRE(four.ok());
  BOOST_TEST(four->max_concurrency == 4);
  BOOST_TEST(parse({{"max_concurrency", 16}})->max_concurrency == 16);
}

BOOST_AUTO_TEST_CASE(scrub_survives_huge_key_shaped_runs) {
  // std::regex recurses per matched character; these used to overflow the stack.
  for (const std::string& prefix : {"sk-", "Bearer ", "api_key=", "AKIA"}) {
    const std::string s = ScrubSecrets("HTTP 500: " + prefix + std::string(300000, 'A') + " tail");
    BOOST_TEST(s.size() <= 603u);
    BOOST_TEST(s.find("AAAAAAAA") == std::string::npos, prefix);
    BOOST_TEST(s.find("[REDACTED]") != std::string::npos, prefix);
  }
  // A key that starts just before the cut is still redacted.
  const std::string s = ScrubSecrets(std::string(590, '.') + " sk-" + std::string(5000, 'x'));
  BOOST_TEST(s.find("xxxxxx") == std::string::npos);
  BOOST_TEST(ScrubSecrets(std::string(100000, 'x'), 100000).size() <= kMaxScrubbedLength + 3);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace accelopt::llm
