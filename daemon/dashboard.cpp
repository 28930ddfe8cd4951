#include "daemon/dashboard.hpp"

#include <openssl/evp.h>

#include <algorithm>

#include "base/sha256.hpp"

namespace accelopt::daemon {
namespace {

std::string Base64(std::string_view raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// Replaces the first `marker` in `page` with `with`.
void Inline(std::string& page, std::string_view marker, std::string_view with) {
  const size_t at = page.find(marker);
  if (at != std::string::npos) page.replace(at, marker.size(), with);
}

size_t ParseSeconds(const std::map<std::string, std::string>& q, const std::string& key, size_t def, size_t max) {
  auto it = q.find(key);
  if (it == q.end() || it->second.empty() || it->second.size() > 9 ||
      !std::all_of(it->second.begin(), it->second.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return def;
  return std::clamp<size_t>(std::stoul(it->second), 1, max);
}

}  // namespace

Dashboard::Dashboard(ChangeFeed* feed) : feed_(feed) {
  const std::string script(EmbeddedUiFile("app.js"));
  page_ = std::string(EmbeddedUiFile("index.html"));
  Inline(page_, "/*STYLE*/", EmbeddedUiFile("style.css"));
  Inline(page_, "/*SCRIPT*/", script);
  // The report is shown in a sandboxed srcdoc frame, which inherits this
  // policy: its inline styles are allowed, scripts other than ours are not.
  csp_ = "default-src 'none'; script-src 'sha256-" + Base64(Sha256Raw(script)) +
         "'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; frame-src 'self'; "
         "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
}

std::string Dashboard::UnauthorizedPage() {
  return R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>accelopt: token needed</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:44em;margin:3em auto;color:#1d2330}
code{background:#f0f2f5;padding:1px 5px;border-radius:4px}h1{font-size:20px}</style></head>
<body id="unauthorized"><h1>This dashboard needs the daemon's token</h1>
<p>Over TCP every request carries acceloptd's bearer token, and this address had none (or a wrong one).
Open the dashboard with the token in the address:</p>
<p><code>http://HOST:PORT/ui/?token=TOKEN</code></p>
<p>The token is what the daemon's config names in <code>listen.tcp_token_file</code> (a file; relative to
systemd's <code>$CREDENTIALS_DIRECTORY</code>) or <code>listen.tcp_token_env</code> (an environment variable).
With <code>acceloptd --dev --tcp HOST:PORT</code> the daemon prints the whole address
(<code>ACCELOPT_DASHBOARD=...</code>); the token is in the dev folder's <code>token</code> file.
On the daemon's machine, the Unix socket needs no token: <code>acceloptctl</code> uses it.</p>
</body></html>
)";
}

void Dashboard::AddRoutes(Router& router) const {
  router.Add(http::verb::get, "/ui", [this](const HttpRequest&, const RouteParams&, Respond respond) {
    HttpResponse res{http::status::ok, 11};
    res.set(http::field::server, "acceloptd");
    res.set(http::field::content_type, "text/html; charset=utf-8");
    res.set(http::field::cache_control, "no-store");
    res.set("Content-Security-Policy", csp_);
    res.set("Referrer-Policy", "no-referrer");  // the address may carry the token
    res.set("X-Content-Type-Options", "nosniff");
    res.body() = page_;
    res.prepare_payload();
    respond(std::move(res));
  });
  router.Add(http::verb::get, "/v1/stream", [this](const HttpRequest&, const RouteParams& p, Respond respond) {
    auto it = p.query.find("campaign");
    const std::string campaign = it == p.query.end() ? "" : it->second;
    feed_->Open(respond, campaign, std::chrono::seconds(ParseSeconds(p.query, "max_s", 300, 3600)),
                std::chrono::milliseconds(ParseSeconds(p.query, "heartbeat_ms", 15000, 60000)));
  });
}

}  // namespace accelopt::daemon
