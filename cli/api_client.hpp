// acceloptctl's only way to the daemon: its HTTP/1.1 JSON API, over the Unix
// socket (default) or TCP with a bearer token (libcurl, blocking).
//
// Not thread-safe: one client per thread.
#pragma once

#include <chrono>
#include <string>

#include "base/json.hpp"
#include "base/status.hpp"

namespace accelopt::cli {

struct Endpoint {
  std::string socket_path;  // used when url is empty
  std::string url;          // "http://host:port" for TCP
  std::string token;        // bearer token for TCP; never printed
};

struct ApiReply {
  long http_status = 0;
  json body;  // parsed JSON (or {"raw": text} when not JSON)
};

class ApiClient {
 public:
  explicit ApiClient(Endpoint endpoint);
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  // kUnavailable when the daemon cannot be reached (no socket, refused);
  // kTimeout past `timeout`. An HTTP error status is a reply, not an error.
  Result<ApiReply> Call(const std::string& method, const std::string& path, const json* body = nullptr,
                        std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  Result<std::pair<long, std::string>> Perform(const std::string& method, const std::string& path,
                                               const std::string* body, std::chrono::milliseconds timeout);
  Endpoint endpoint_;
  void* curl_;
};

}  // namespace accelopt::cli
