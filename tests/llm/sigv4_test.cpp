#include <boost/test/unit_test.hpp>

#include "llm/sigv4.hpp"

namespace accelopt::llm {
namespace {

AwsCredentials ExampleCreds() { return {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""}; }

SigV4Request Vanilla(const std::string& method, const std::string& url) {
  SigV4Request r;
  r.method = method;
  r.url = url;
  r.region = "us-east-1";
  r.service = "service";
  r.amz_date = "20150830T123600Z";
  return r;
}

std::string SignatureOf(const SigV4Signature& s) {
  return s.authorization.substr(s.authorization.find("Signature=") + 10);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sigv4)

// Vectors from AWS's SigV4 test suite (aws-sig-v4-test-suite).
BOOST_AUTO_TEST_CASE(aws_test_suite_get_vanilla) {
  auto s = SignV4(Vanilla("GET", "https://example.amazonaws.com/"), ExampleCreds());
  BOOST_TEST(s.canonical_request ==
             "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
             "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  BOOST_TEST(s.authorization ==
             "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
             "SignedHeaders=host;x-amz-date, "
             "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

BOOST_AUTO_TEST_CASE(aws_test_suite_post_vanilla_and_query_order) {
  BOOST_TEST(SignatureOf(SignV4(Vanilla("POST", "https://example.amazonaws.com/"), ExampleCreds())) ==
             "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
  BOOST_TEST(SignatureOf(SignV4(Vanilla("GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1"),
                                ExampleCreds())) == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

BOOST_AUTO_TEST_CASE(bedrock_path_segments_are_encoded_twice) {
  SigV4Request r = Vanilla("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/model/" +
                                       UriEncode("anthropic.claude-3-5-sonnet-20240620-v1:0", true) + "/converse");
  r.service = "bedrock";
  r.body = "{}";
  r.headers["Content-Type"] = "application/json";
  auto s = SignV4(r, ExampleCreds());
  BOOST_TEST(s.canonical_request.find("\n/model/anthropic.claude-3-5-sonnet-20240620-v1%253A0/converse\n") !=
             std::string::npos);
  BOOST_TEST(s.signed_headers == "content-type;host;x-amz-date");
  BOOST_TEST(s.host == "bedrock-runtime.us-east-1.amazonaws.com");
  BOOST_TEST(s.authorization.find("/20150830/us-east-1/bedrock/aws4_request") != std::string::npos);
  BOOST_TEST(s.authorization.find("wJalrXUtnFEMI") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(amz_date_formats_utc) {
  // 2015-08-30T12:36:00Z
  BOOST_TEST(AmzDate(1440938160LL * 1000000) == "20150830T123600Z");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace accelopt::llm
