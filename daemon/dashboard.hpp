// The dashboard: a small read-only web UI served by acceloptd on its own
// listeners (docs/api.md, "Dashboard").
//
// GET /ui (or /ui/) answers one self-contained page: daemon/ui/index.html
// with daemon/ui/style.css and daemon/ui/app.js inlined, embedded in the
// binary at build time (daemon/CMakeLists.txt). The page holds no data; its
// script reads the API (/v1/campaigns, /v1/campaigns/{id}/report.html,
// /v1/memory, ...) and the change feed (GET /v1/stream, daemon/change_feed.hpp)
// with fetch, sending the bearer token it was opened with
// ("/ui/?token=..." on TCP) as "Authorization: Bearer". Views: campaigns
// ("#/"), one campaign ("#/campaign/<id>": its summary and the HTML report,
// re-read as the campaign's stream grows), memory banks ("#/memory",
// "#/memory/<bank>").
//
// Untrusted text (LLM-written titles, kernels, memory items) reaches the
// page's DOM only as text nodes (textContent) or inside the report's
// sandboxed frame (already escaped by workflows/report_html.hpp). The page's
// Content-Security-Policy allows its own inline script (by hash) and
// same-origin fetches only.
//
// Thread safety: AddRoutes before serving; the handlers are thread-safe.
#pragma once

#include <string>

#include "daemon/change_feed.hpp"
#include "daemon/router.hpp"

namespace accelopt::daemon {

class Dashboard {
 public:
  // `feed` must outlive the routes' use.
  explicit Dashboard(ChangeFeed* feed);

  // GET /ui, GET /v1/stream.
  void AddRoutes(Router& router) const;

  // The paths where "?token=" may replace the header (HttpServerOptions).
  static std::vector<std::string> TokenQueryPaths() { return {"/ui", "/ui/"}; }
  // The page /ui answers without the token (HttpServerOptions::unauthorized_html):
  // what is missing and how to add it. Holds no secret.
  static std::string UnauthorizedPage();

  const std::string& page() const { return page_; }  // for tests

 private:
  ChangeFeed* feed_;
  std::string page_;  // the assembled page
  std::string csp_;   // its Content-Security-Policy
};

// The embedded UI files, by name ("index.html", "style.css", "app.js");
// empty for an unknown name. Generated at build time (ui_embedded.cpp.in).
std::string_view EmbeddedUiFile(std::string_view name);

}  // namespace accelopt::daemon
