// Record and key encoding: round trips, and every damaged form is detected.
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <random>

#include "store/json_codec.hpp"
#include "store/record_codec.hpp"

using namespace accelopt;
using namespace accelopt::store;

namespace {

// RocksDB's default order: bytewise, unsigned.
bool Less(const std::string& a, const std::string& b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  return c < 0 || (c == 0 && a.size() < b.size());
}

std::string SampleRecord(std::string* data_bin, const std::string* cause = nullptr) {
  json data = {{"n", 3},
               {"neg", -7},
               {"big", 18446744073709551615ull},
               {"pi", 3.25},
               {"s", "h\xc3\xa9llo\n\"q\""},
               {"arr", {1, "two", nullptr, false, json::object()}},
               {"nested", {{"deep", {{"x", 1.5e300}}}}}};
  data_bin->clear();
  BOOST_REQUIRE(EncodeJsonBinary(data, data_bin).ok());
  RecordFields f;
  f.type = "Tick";
  f.schema_version = 2;
  f.stream = "campaign-7";
  f.version = 300;
  f.global_position = 1ull << 40;
  f.recorded_at_us = 1'700'000'000'123'456;
  f.data = *data_bin;
  f.causation_id = cause;
  std::string out;
  EncodeRecord(f, &out);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(codec)

BOOST_AUTO_TEST_CASE(big_endian_keys_sort_numerically) {
  std::vector<uint64_t> vs = {0, 1, 255, 256, 65535, 1ull << 32, (1ull << 63) + 5, UINT64_MAX};
  for (size_t i = 0; i + 1 < vs.size(); ++i) {
    BOOST_TEST(Less(BigEndian64(vs[i]), BigEndian64(vs[i + 1])));
    BOOST_TEST(Less(StreamKey("s", vs[i]), StreamKey("s", vs[i + 1])));
    BOOST_TEST(GetBigEndian64(BigEndian64(vs[i])) == vs[i]);
  }
  // A stream's keys never interleave with a stream whose id extends it.
  BOOST_TEST(Less(StreamKey("a", UINT64_MAX), StreamKey("a-b", 0)));
  std::string s;
  uint64_t v = 0;
  BOOST_REQUIRE(ParseStreamKey(StreamKey("campaign-1", 42), &s, &v).ok());
  BOOST_TEST(s == "campaign-1");
  BOOST_TEST(v == 42u);
  BOOST_TEST(ParseStreamKey("short", &s, &v).code() == Code::kCorruption);
}

BOOST_AUTO_TEST_CASE(crc32c_matches_the_standard_check_value) {
  BOOST_TEST(Crc32c("123456789") == 0xE3069283u);
  BOOST_TEST(Crc32c("") == 0u);
}

BOOST_AUTO_TEST_CASE(record_round_trips) {
  std::string bin, cause = "activity-9";
  std::string bytes = SampleRecord(&bin, &cause);
  auto e = DecodeRecord(bytes);
  BOOST_REQUIRE(e.ok());
  BOOST_TEST(e->type == "Tick");
  BOOST_TEST(e->schema_version == 2);
  BOOST_TEST(e->stream == "campaign-7");
  BOOST_TEST(e->version == 300u);
  BOOST_TEST(e->global_position == (1ull << 40));
  BOOST_TEST(e->recorded_at_us == 1'700'000'000'123'456);
  BOOST_TEST(e->causation_id.value_or("") == "activity-9");
  BOOST_TEST(!e->correlation_id.has_value());
  BOOST_TEST(e->data["big"].get<uint64_t>() == 18446744073709551615ull);
  BOOST_TEST(e->data["neg"].get<int64_t>() == -7);
  BOOST_TEST(e->data["pi"].get<double>() == 3.25);
  BOOST_TEST(e->data["s"].get<std::string>() == "h\xc3\xa9llo\n\"q\"");
  BOOST_TEST(e->data["nested"]["deep"]["x"].get<double>() == 1.5e300);
  BOOST_TEST(e->data["arr"].size() == 5u);
}

BOOST_AUTO_TEST_CASE(binary_json_keeps_types_and_rejects_garbage) {
  json j = {{"a", 1}, {"b", -1}, {"c", 1.0}, {"d", "x"}, {"e", json::array()}, {"f", nullptr}};
  std::string bin;
  BOOST_REQUIRE(EncodeJsonBinary(j, &bin).ok());
  auto back = DecodeJsonBinary(bin);
  BOOST_REQUIRE(back.ok());
  BOOST_TEST(*back == j);
  BOOST_TEST(((*back)["c"].type() == json::value_t::number_float));
  BOOST_TEST(((*back)["b"].type() == json::value_t::number_integer));
  // Binary values have no JSON form.
  std::string ignored;
  BOOST_TEST(EncodeJsonBinary(json::binary({1, 2, 3}), &ignored).code() == Code::kInvalidArgument);
  // Every strict prefix and one extra byte fail.
  for (size_t n = 0; n < bin.size(); ++n) {
    BOOST_TEST(DecodeJsonBinary(bin.substr(0, n)).status().code() == Code::kCorruption);
  }
  BOOST_TEST(DecodeJsonBinary(bin + "x").status().code() == Code::kCorruption);
  // Deep nesting is refused rather than overflowing the stack.
  std::string deep(100000, '\x07');  // array tag
  BOOST_TEST(DecodeJsonBinary(deep).status().code() == Code::kCorruption);
}

BOOST_AUTO_TEST_CASE(every_truncation_is_corruption) {
  std::string bin;
  std::string bytes = SampleRecord(&bin);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = DecodeRecord(bytes.substr(0, n));
    BOOST_TEST(!r.ok(), "prefix of " << n << " bytes decoded");
    BOOST_TEST(r.status().code() == Code::kCorruption);
  }
  BOOST_TEST(DecodeRecord(bytes + '\0').status().code() == Code::kCorruption);
}

BOOST_AUTO_TEST_CASE(every_flipped_bit_is_corruption) {
  std::string bin;
  std::string bytes = SampleRecord(&bin);
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      auto r = DecodeRecord(damaged);
      BOOST_TEST(r.status().code() == Code::kCorruption, "flip of byte " << i << " bit " << bit << " decoded");
    }
  }
}

BOOST_AUTO_TEST_CASE(random_garbage_never_decodes_or_crashes) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    std::string junk(rng() % 64, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    BOOST_TEST(!DecodeRecord(junk).ok());
  }
}

BOOST_AUTO_TEST_SUITE_END()
