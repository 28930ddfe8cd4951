#include "llm/sigv4.hpp"
#include "base/text.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <vector>

#include "base/sha256.hpp"

namespace accelopt::llm {
namespace {

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[64];
  size_t out_len = 0;
  EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA256", nullptr, key.data(), key.size(),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, sizeof(out), &out_len);
  return std::string(reinterpret_cast<char*>(out), out_len);
}

// Trims and collapses runs of spaces, as SigV4's canonical header values do.
std::string CanonicalValue(const std::string& v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

struct UrlParts {
  std::string host;   // with ":port" when the url has one
  std::string path;   // "/..." (at least "/")
  std::string query;  // without '?'
};

UrlParts SplitUrl(const std::string& url) {
  UrlParts p;
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t path_start = url.find_first_of("/?", start);
  p.host = url.substr(start, path_start == std::string::npos ? std::string::npos : path_start - start);
  if (path_start != std::string::npos) {
    size_t q = url.find('?', path_start);
    p.path = url.substr(path_start, q == std::string::npos ? std::string::npos : q - path_start);
    if (q != std::string::npos) p.query = url.substr(q + 1);
  }
  if (p.path.empty()) p.path = "/";
  return p;
}

std::string CanonicalQuery(const std::string& query) {
  if (query.empty()) return "";
  std::vector<std::pair<std::string, std::string>> params;
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    std::string item = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    pos = amp == std::string::npos ? query.size() + 1 : amp + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string k = item.substr(0, eq);
    std::string v = eq == std::string::npos ? "" : item.substr(eq + 1);
    params.emplace_back(UriEncode(k, true), UriEncode(v, true));
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [k, v] : params) {
    if (!out.empty()) out += '&';
    out += k + "=" + v;
  }
  return out;
}

}  // namespace

std::string UriEncode(std::string_view s, bool encode_slash) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (c == '/' && !encode_slash)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string AmzDate(int64_t micros_since_epoch) {
  std::time_t t = static_cast<std::time_t>(micros_since_epoch / 1'000'000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

SigV4Signature SignV4(const SigV4Request& req, const AwsCredentials& creds) {
  SigV4Signature sig;
  UrlParts url = SplitUrl(req.url);
  sig.host = url.host;

  std::map<std::string, std::string> headers;  // sorted by lower-case name
  for (const auto& [k, v] : req.headers) headers[Lower(k)] = CanonicalValue(v);
  headers["host"] = url.host;
  headers["x-amz-date"] = req.amz_date;

  std::string canonical_headers;
  for (const auto& [k, v] : headers) {
    canonical_headers += k + ":" + v + "\n";
    if (!sig.signed_headers.empty()) sig.signed_headers += ';';
    sig.signed_headers += k;
  }
  // Non-S3 services: each segment of the (already encoded) path is encoded again.
  std::string canonical_uri = UriEncode(url.path, /*encode_slash=*/false);

  sig.canonical_request = req.method + "\n" + canonical_uri + "\n" + CanonicalQuery(url.query) + "\n" +
                          canonical_headers + "\n" + sig.signed_headers + "\n" + Sha256Hex(req.body);
  const std::string date = req.amz_date.substr(0, 8);
  const std::string scope = date + "/" + req.region + "/" + req.service + "/aws4_request";
  sig.string_to_sign = "AWS4-HMAC-SHA256\n" + req.amz_date + "\n" + scope + "\n" + Sha256Hex(sig.canonical_request);
  std::string k = Hmac("AWS4" + creds.secret_access_key, date);
  k = Hmac(k, req.region);
  k = Hmac(k, req.service);
  k = Hmac(k, "aws4_request");
  const std::string signature = ToHex(Hmac(k, sig.string_to_sign));
  sig.authorization = "AWS4-HMAC-SHA256 Credential=" + creds.access_key_id + "/" + scope +
                      ", SignedHeaders=" + sig.signed_headers + ", Signature=" + signature;
  return sig;
}

}  // namespace accelopt::llm
