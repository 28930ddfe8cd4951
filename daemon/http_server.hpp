// The daemon's HTTP/1.1 server (Boost.Beast): a Unix socket (always) and TCP
// (only with a bearer token).
//
// Shape after Beast's examples: one session per connection on its own strand,
// a body size limit, a read timeout, keep-alive. Every request goes to one
// Handler, which may answer at once or later from any thread (long-poll);
// the answer is posted back to the connection's strand.
//
// Auth: connections accepted on TCP must carry "Authorization: Bearer
// <token>"; others get 401 before the handler sees them. Unix-socket access
// is governed by the socket file's mode (0660 by default) and directory.
//
// Thread safety: Listen* and Stop are called from the io_context's thread(s)
// or before it runs. The Handler is called on a connection's strand.
#pragma once

#include "base/boost_prelude.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "base/status.hpp"

namespace accelopt::daemon {

namespace net = boost::asio;
namespace http = boost::beast::http;

using HttpRequest = http::request<http::string_body>;
using HttpResponse = http::response<http::string_body>;
// Call exactly once; safe from any thread.
using Respond = std::function<void(HttpResponse)>;
using HttpHandler = std::function<void(HttpRequest&&, Respond)>;

struct HttpServerOptions {
  size_t body_limit = 8 << 20;                        // larger bodies get 413
  std::chrono::seconds read_timeout{30};              // header + body
  std::string bearer_token;                           // required for TCP; never logged
};

class HttpServer {
 public:
  HttpServer(net::io_context& ioc, HttpHandler handler, HttpServerOptions options);
  ~HttpServer();

  // Binds and listens on a Unix socket. A stale socket file left by a dead
  // daemon is replaced; `mode` is applied with chmod before accepting.
  Status ListenUnix(const std::string& path, unsigned mode = 0660);

  // Binds host:port. REQUIRES: options.bearer_token non-empty, else
  // FailedPrecondition. Port 0 picks one; tcp_port() tells which.
  Status ListenTcp(const std::string& host, unsigned short port);
  unsigned short tcp_port() const { return tcp_port_; }

  // Stops accepting; open connections finish their current request.
  void Stop();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  unsigned short tcp_port_ = 0;
};

// A JSON response with the given status and body (serialized with Dump).
HttpResponse JsonResponse(http::status status, const std::string& json_body, unsigned version = 11,
                          bool keep_alive = true);

}  // namespace accelopt::daemon
