#include "daemon/router.hpp"

#include <cctype>

#include "base/json.hpp"
#include "base/log.hpp"
#include "base/text.hpp"

namespace accelopt::daemon {
namespace {

std::vector<std::string> Split(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.emplace_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

HttpResponse ApiOk(const json& j, http::status status) { return JsonResponse(status, Dump(j)); }

HttpResponse ApiError(http::status status, const std::string& code, const std::string& message) {
  json j = {{"error", {{"code", code}, {"message", Redact(message)}}}};
  return JsonResponse(status, Dump(j));
}

HttpResponse ApiError(const Status& st) {
  http::status hs = http::status::internal_server_error;
  switch (st.code()) {
    case Code::kInvalidArgument:
      hs = http::status::bad_request;
      break;
    case Code::kNotFound:
      hs = http::status::not_found;
      break;
    case Code::kAlreadyExists:
    case Code::kConflict:
      hs = http::status::conflict;
      break;
    case Code::kFailedPrecondition:
      hs = http::status::conflict;
      break;
    case Code::kUnavailable:
      hs = http::status::service_unavailable;
      break;
    case Code::kTimeout:
      hs = http::status::gateway_timeout;
      break;
    case Code::kResourceExhausted:
      hs = http::status::too_many_requests;
      break;
    case Code::kPermissionDenied:
      hs = http::status::forbidden;
      break;
    case Code::kUnimplemented:
      hs = http::status::not_implemented;
      break;
    default:
      break;
  }
  return ApiError(hs, CodeName(st.code()), st.message());
}

void Router::Add(http::verb method, const std::string& pattern, RouteHandler handler) {
  routes_.push_back(Route{method, Split(pattern), std::move(handler)});
}

void Router::Dispatch(HttpRequest&& req, Respond respond) const {
  std::string_view target(req.target().data(), req.target().size());
  auto q = target.find('?');
  RouteParams params;
  if (q != std::string_view::npos) {
    std::string_view query = target.substr(q + 1);
    size_t i = 0;
    while (i <= query.size()) {
      size_t amp = query.find('&', i);
      if (amp == std::string_view::npos) amp = query.size();
      std::string_view kv = query.substr(i, amp - i);
      if (!kv.empty()) {
        auto eq = kv.find('=');
        std::string k = PercentDecode(kv.substr(0, eq));
        std::string v = eq == std::string_view::npos ? "" : PercentDecode(kv.substr(eq + 1));
        params.query[k] = v;
      }
      i = amp + 1;
    }
    target = target.substr(0, q);
  }
  auto segs = Split(target);
  bool path_matched = false;
  for (const auto& r : routes_) {
    if (r.segments.size() != segs.size()) continue;
    std::map<std::string, std::string> caps;
    bool ok = true;
    for (size_t i = 0; i < segs.size() && ok; ++i) {
      const auto& p = r.segments[i];
      if (p.size() > 2 && p.front() == '{' && p.back() == '}') {
        caps[p.substr(1, p.size() - 2)] = PercentDecode(segs[i]);
      } else if (p != segs[i]) {
        ok = false;
      }
    }
    if (!ok) continue;
    path_matched = true;
    if (r.method != req.method()) continue;
    params.path = std::move(caps);
    r.handler(req, params, std::move(respond));
    return;
  }
  if (path_matched) {
    respond(ApiError(http::status::method_not_allowed, "method_not_allowed",
                     std::string(req.method_string()) + " is not allowed on " + std::string(target)));
  } else {
    respond(ApiError(http::status::not_found, "not_found", "no such path: " + std::string(target)));
  }
}

}  // namespace accelopt::daemon
