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
// Dashboard shell: GET requests for a path in `token_query_paths` may carry
// the token as "?token=<token>" instead of the header (a browser navigation
// cannot set headers); every other path, the data routes included, needs the
// header.
//
// Streamed responses (server-sent events): a handler may call
// Respond::Stream(head) instead of answering once; the head is written
// without a Content-Length and with "Connection: close", then every
// ResponseStream::Send in order, until the handler closes the stream, the
// peer goes away, a write stalls for 60 s or more than 1 MiB is queued
// (a slow reader is cut off).
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
#include <type_traits>
#include <vector>

#include "base/status.hpp"

namespace accelopt::daemon {

namespace net = boost::asio;
namespace http = boost::beast::http;

using HttpRequest = http::request<http::string_body>;
using HttpResponse = http::response<http::string_body>;
// The body of a streamed response, after its head. Thread safety: every
// method is safe from any thread. Owned by whoever streams; the connection
// holds it too while open.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Queues bytes for the peer; false once the stream is closed.
  virtual bool Send(std::string data) = 0;
  // Ends the response (after what is queued) and closes the connection.
  virtual void Close() = 0;
  virtual bool closed() const = 0;
  // `fn` runs once when the stream closes for any reason (at once when it
  // already has), on the connection's strand or the caller's thread.
  virtual void OnClose(std::function<void()> fn) = 0;
};

// Answers a request: call exactly once, or call Stream once instead; safe
// from any thread. Any callable taking an HttpResponse converts to one
// (tests, fuzzers); such a responder cannot stream (Stream returns null).
class Respond {
 public:
  using SendFn = std::function<void(HttpResponse)>;
  using StreamFn = std::function<std::shared_ptr<ResponseStream>(HttpResponse)>;
  Respond() = default;
  template <class F>
  requires(std::is_invocable_v<F&, HttpResponse> && !std::is_same_v<std::remove_cvref_t<F>, Respond>) Respond(F f)
      : send_(std::move(f)) {}  // NOLINT: implicit on purpose
  Respond(SendFn send, StreamFn stream) : send_(std::move(send)), stream_(std::move(stream)) {}

  void operator()(HttpResponse res) const { send_(std::move(res)); }
  // Starts a streamed response with `head` (status and fields; its body is
  // ignored). Null when this responder cannot stream.
  std::shared_ptr<ResponseStream> Stream(HttpResponse head) const {
    return stream_ ? stream_(std::move(head)) : nullptr;
  }
  explicit operator bool() const { return static_cast<bool>(send_); }

 private:
  SendFn send_;
  StreamFn stream_;
};

using HttpHandler = std::function<void(HttpRequest&&, Respond)>;

struct HttpServerOptions {
  size_t body_limit = 8 << 20;                 // larger bodies get 413
  std::chrono::seconds read_timeout{30};       // header + body
  std::chrono::seconds write_timeout{60};      // one response, or one piece of a stream
  std::string bearer_token;                    // required for TCP; never logged
  std::vector<std::string> token_query_paths;  // GET paths that accept ?token= (see above)
  // A GET of a token_query_path without the right token gets this page (401,
  // text/html: how to add the token) instead of the JSON error. Never holds
  // the token.
  std::string unauthorized_html;
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
