// AWS Signature Version 4 for request headers (Bedrock's Converse API).
//
// Why not CURLOPT_AWS_SIGV4: libcurl 7.88 puts the request path into the
// canonical request as it is, while AWS services other than S3 expect each
// path segment URI-encoded twice. Bedrock model ids contain ':' (e.g.
// "anthropic.claude-3-5-sonnet-20240620-v1:0"), so curl's signature is
// rejected for them; curl also takes its clock from time() (no fixed time for
// tests) and does not sign X-Amz-Security-Token. Signing here with OpenSSL's
// HMAC fixes all three and is checked against AWS's published test vectors.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "llm/secrets.hpp"

namespace accelopt::llm {

struct SigV4Request {
  std::string method = "POST";
  std::string url;                             // "https://host[:port]/path?query" (path already encoded once)
  std::map<std::string, std::string> headers;  // every header to sign (Host is derived from url)
  std::string body;
  std::string region;    // "us-east-1"
  std::string service;   // "bedrock"
  std::string amz_date;  // "20150830T123600Z"
};

struct SigV4Signature {
  std::string authorization;      // value of the Authorization header
  std::string host;               // value of the Host header that was signed
  std::string canonical_request;  // for tests and debugging; holds no secret
  std::string string_to_sign;
  std::string signed_headers;  // "content-type;host;x-amz-date"
};

// RFC 3986 percent-encoding of everything but A-Z a-z 0-9 - _ . ~ (and '/'
// when !encode_slash), upper-case hex.
std::string UriEncode(std::string_view s, bool encode_slash);

// "YYYYMMDDTHHMMSSZ" of a wall-clock time.
std::string AmzDate(int64_t micros_since_epoch);

// Signs `req` with `creds`. X-Amz-Date (= amz_date) and, when the
// credentials have a session token, X-Amz-Security-Token must be among the
// headers sent; SignedHeaders lists them when they are in req.headers.
SigV4Signature SignV4(const SigV4Request& req, const AwsCredentials& creds);

}  // namespace accelopt::llm
