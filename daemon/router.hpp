// A table of (method, path pattern) -> handler for the HTTP API.
//
// Patterns are literal segments and "{name}" captures, e.g.
// "/v1/campaigns/{id}/events". Dispatch is pure (no sockets), so tests call
// it directly. Unknown paths are 404 and a known path with another method is
// 405, both as JSON errors with a stable code.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/json.hpp"
#include "daemon/http_server.hpp"

namespace accelopt::daemon {

struct RouteParams {
  std::map<std::string, std::string> path;   // captures
  std::map<std::string, std::string> query;  // ?a=b&c=d, percent-decoded
};

using RouteHandler = std::function<void(const HttpRequest&, const RouteParams&, Respond)>;

class Router {
 public:
  void Add(http::verb method, const std::string& pattern, RouteHandler handler);
  // Answers every request exactly once (through `respond`).
  void Dispatch(HttpRequest&& req, Respond respond) const;

 private:
  struct Route {
    http::verb method;
    std::vector<std::string> segments;
    RouteHandler handler;
  };
  std::vector<Route> routes_;
};

// A JSON reply: `j` with the given HTTP status (200 by default).
HttpResponse ApiOk(const json& j, http::status status = http::status::ok);
// {"error": {"code": code, "message": message}} with the given HTTP status.
HttpResponse ApiError(http::status status, const std::string& code, const std::string& message);
// Maps a Status to an HTTP status and a stable error code.
HttpResponse ApiError(const Status& status);

}  // namespace accelopt::daemon
