#include "cli/api_client.hpp"

#include <curl/curl.h>

namespace accelopt::cli {
namespace {

size_t Collect(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

}  // namespace

ApiClient::ApiClient(Endpoint endpoint) : endpoint_(std::move(endpoint)) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  curl_ = curl_easy_init();
}

ApiClient::~ApiClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

Result<std::pair<long, std::string>> ApiClient::Perform(const std::string& method, const std::string& path,
                                                        const std::string* body, std::chrono::milliseconds timeout) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);
  std::string url = (endpoint_.url.empty() ? std::string("http://localhost") : endpoint_.url) + path;
  std::string out;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  if (endpoint_.url.empty()) curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, endpoint_.socket_path.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
  struct curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  std::string auth;
  if (!endpoint_.token.empty()) {
    auth = "Authorization: Bearer " + endpoint_.token;
    headers = curl_slist_append(headers, auth.c_str());
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  if (body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  } else if (method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(0));
  }
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(headers);
  std::string where = endpoint_.url.empty() ? endpoint_.socket_path : endpoint_.url;
  if (rc == CURLE_OPERATION_TIMEDOUT) return Timeout("no answer from acceloptd at " + where + " in time");
  if (rc != CURLE_OK) {
    return Unavailable("cannot reach acceloptd at " + where + ": " + curl_easy_strerror(rc) +
                       " (is it running? set --socket or ACCELOPT_SOCKET)");
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  return std::make_pair(status, std::move(out));
}

Result<ApiReply> ApiClient::Call(const std::string& method, const std::string& path, const json* body,
                                 std::chrono::milliseconds timeout) {
  std::string text;
  if (body) text = Dump(*body);
  auto r = Perform(method, path, body ? &text : nullptr, timeout);
  if (!r.ok()) return r.status();
  ApiReply reply;
  reply.http_status = r->first;
  auto parsed = ParseJson(r->second);
  reply.body = parsed.ok() ? *parsed : json{{"raw", r->second}};
  return reply;
}

}  // namespace accelopt::cli
