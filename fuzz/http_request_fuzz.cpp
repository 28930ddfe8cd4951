// Fuzzes the daemon's HTTP front: raw bytes go through Beast's request parser
// with the limits daemon/http_server.cpp sets, and every request it accepts
// is dispatched by the real Router (daemon/router.hpp) over the API's route
// table (the patterns of daemon/api.cpp). The handlers do what the API's do
// with untrusted input without needing a running daemon: parse the body as
// JSON (base/json.hpp), copy and parse a campaign spec
// (workflows::ParseCampaignSpec), read numeric query parameters.
//
// Checks: no crash or sanitizer report; every request is answered exactly
// once; every error answer is a JSON object {"error": {"code", "message"}}.
#include "base/boost_prelude.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/json.hpp"
#include "daemon/http_server.hpp"
#include "daemon/router.hpp"
#include "fuzz/fuzz_check.hpp"
#include "workflows/campaign_request.hpp"

using namespace accelopt;
using namespace accelopt::daemon;
namespace beast = boost::beast;

namespace {

HttpResponse Ok(const json& j) { return JsonResponse(http::status::ok, Dump(j)); }

// The API's body rule: empty is {}, otherwise a JSON object.
Result<json> Body(const HttpRequest& req) {
  if (req.body().empty()) return json::object();
  auto j = ParseJson(req.body());
  if (!j.ok()) return InvalidArgument("request body: " + j.status().message());
  if (!j->is_object()) return InvalidArgument("request body: must be a JSON object");
  return j;
}

void Echo(const HttpRequest&, const RouteParams& p, Respond respond) {
  json j = {{"path", p.path}, {"query", p.query}};
  for (const auto& [k, v] : p.query) {
    try {
      j["numbers"][k] = std::stoll(v);  // the API's ParseSize does this
    } catch (...) {
    }
  }
  respond(Ok(j));
}

void Submit(const HttpRequest& req, const RouteParams&, Respond respond) {
  auto body = Body(req);
  if (!body.ok()) return respond(ApiError(body.status()));
  if (!body->contains("spec") || !(*body)["spec"].is_object()) {
    return respond(ApiError(http::status::bad_request, "invalid_argument", "body.spec: required, a JSON object"));
  }
  json spec = (*body)["spec"];  // the API copies the spec onto another thread
  auto parsed = workflows::ParseCampaignSpec(spec);
  if (!parsed.ok()) return respond(ApiError(parsed.status()));
  Status st = workflows::Validate(*parsed);
  if (!st.ok()) return respond(ApiError(st));
  respond(Ok({{"spec", workflows::ToJson(*parsed)}}));
}

void BodyOnly(const HttpRequest& req, const RouteParams&, Respond respond) {
  auto body = Body(req);
  if (!body.ok()) return respond(ApiError(body.status()));
  respond(Ok(*body));
}

const Router& ApiRoutes() {
  static const Router* router = [] {
    auto* r = new Router;
    using V = http::verb;
    for (const char* p : {"/v1/health", "/metrics", "/v1/campaigns", "/v1/campaigns/{id}", "/v1/campaigns/{id}/events",
                          "/v1/campaigns/{id}/report", "/v1/campaigns/{id}/best", "/v1/campaigns/{id}/candidates",
                          "/v1/suites", "/v1/memory", "/v1/memory/{bank}", "/v1/memory/{bank}/export"}) {
      r->Add(V::get, p, Echo);
    }
    r->Add(V::post, "/v1/campaigns", Submit);
    for (const char* p :
         {"/v1/campaigns/{id}/cancel", "/v1/campaigns/{id}/pause", "/v1/campaigns/{id}/resume", "/v1/calibrate",
          "/v1/baseline", "/v1/memory/{bank}/import", "/v1/memory/{bank}/rebuild", "/v1/memory/{bank}/redistill"}) {
      r->Add(V::post, p, BodyOnly);
    }
    return r;
  }();
  return *router;
}

void CheckResponse(const HttpResponse& res) {
  unsigned code = res.result_int();
  FUZZ_CHECK(code >= 200 && code < 600);
  auto j = ParseJson(res.body());
  FUZZ_CHECK(j.ok());
  if (code >= 400) {
    FUZZ_CHECK(j->is_object() && j->contains("error"));
    const json& e = (*j)["error"];
    FUZZ_CHECK(e.is_object() && e.contains("code") && e["code"].is_string());
    FUZZ_CHECK(e.contains("message") && e["message"].is_string());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // As in daemon/http_server.cpp's Session::Read.
  http::request_parser<http::string_body> parser;
  parser.body_limit(8 << 20);
  parser.header_limit(64 * 1024);
  beast::error_code ec;
  boost::asio::const_buffer in(data, size);
  while (!parser.is_done()) {
    size_t used = parser.put(in, ec);
    in += used;
    if (ec == http::error::need_more) ec = {};
    if (ec) break;
    if (used == 0) {
      parser.put_eof(ec);  // no more bytes: the peer closed, as the server would see it
      break;
    }
  }
  if (ec || !parser.is_done()) return 0;  // the server answers 400/413 and closes

  HttpRequest req = parser.release();
  int answers = 0;
  ApiRoutes().Dispatch(std::move(req), [&answers](HttpResponse res) {
    ++answers;
    CheckResponse(res);
  });
  FUZZ_CHECK(answers == 1);
  return 0;
}
