#include "daemon/http_server.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>

#include "base/json.hpp"
#include "base/log.hpp"
#include "base/mutex.hpp"
#include "base/text.hpp"

namespace accelopt::daemon {
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using unix_proto = net::local::stream_protocol;

HttpResponse JsonResponse(http::status status, const std::string& body, unsigned version, bool keep_alive) {
  HttpResponse res{status, version};
  res.set(http::field::server, "acceloptd");
  res.set(http::field::content_type, "application/json");
  res.keep_alive(keep_alive);
  res.body() = body;
  res.prepare_payload();
  return res;
}

namespace {

HttpResponse ErrorResponse(http::status status, const char* code, const std::string& message, unsigned version) {
  json j = {{"error", {{"code", code}, {"message", message}}}};
  return JsonResponse(status, Dump(j), version, false);
}

// One connection. Stream is beast::tcp_stream or a basic_stream over a
// Unix socket; both have expires_after and an executor that is a strand.
template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(Stream stream, HttpHandler* handler, const HttpServerOptions* opts, bool require_token)
      : stream_(std::move(stream)), handler_(handler), opts_(opts), require_token_(require_token) {}

  void Start() {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->Read(); });
  }

 private:
  void Read() {
    parser_.emplace();
    parser_->body_limit(opts_->body_limit);
    parser_->header_limit(64 * 1024);
    stream_.expires_after(opts_->read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == net::error::eof) return Close();
    if (ec == http::error::body_limit) {
      return Write(ErrorResponse(http::status::payload_too_large, "body_too_large",
                                 "request body exceeds " + std::to_string(opts_->body_limit) + " bytes", 11));
    }
    if (ec) {
      if (ec != beast::error::timeout && ec != net::error::operation_aborted) {
        // Malformed request: answer 400 once, then close.
        return Write(ErrorResponse(http::status::bad_request, "bad_request", "malformed HTTP request", 11));
      }
      return Close();
    }
    HttpRequest req = parser_->release();
    stream_.expires_never();  // a long-poll answer may take a while
    unsigned version = req.version();
    if (require_token_) {
      auto it = req.find(http::field::authorization);
      std::string expected = "Bearer " + opts_->bearer_token;
      bool ok = it != req.end() && it->value().size() == expected.size() &&
                CRYPTO_memcmp_like(std::string(it->value()), expected);
      if (!ok && req.method() == http::verb::get) ok = QueryTokenOk(req);
      if (!ok) {
        std::string_view target(req.target().data(), req.target().size());
        const std::string path(target.substr(0, target.find('?')));
        if (req.method() == http::verb::get && !opts_->unauthorized_html.empty() &&
            std::find(opts_->token_query_paths.begin(), opts_->token_query_paths.end(), path) !=
                opts_->token_query_paths.end()) {
          HttpResponse page{http::status::unauthorized, version};
          page.set(http::field::server, "acceloptd");
          page.set(http::field::content_type, "text/html; charset=utf-8");
          page.set(http::field::cache_control, "no-store");
          page.set(http::field::www_authenticate, "Bearer");
          page.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
          page.body() = opts_->unauthorized_html;
          page.prepare_payload();
          return Write(std::move(page));
        }
        auto res = ErrorResponse(http::status::unauthorized, "unauthorized", "missing or wrong bearer token", version);
        res.set(http::field::www_authenticate, "Bearer");
        return Write(std::move(res));
      }
    }
    keep_alive_ = req.keep_alive();
    auto self = this->shared_from_this();
    Respond::SendFn send = [self, version](HttpResponse res) {
      net::post(self->stream_.get_executor(), [self, version, res = std::move(res)]() mutable {
        res.version(version);
        res.keep_alive(self->keep_alive_ && res.keep_alive());
        self->Write(std::move(res));
      });
    };
    Respond::StreamFn stream = [self, version](HttpResponse head) -> std::shared_ptr<ResponseStream> {
      auto outlet = std::make_shared<Outlet>(self);
      net::post(self->stream_.get_executor(), [self, version, outlet, head = std::move(head)]() mutable {
        head.version(version);
        self->StartStream(outlet, std::move(head));
      });
      return outlet;
    };
    Respond respond(std::move(send), std::move(stream));
    try {
      (*handler_)(std::move(req), std::move(respond));
    } catch (const std::exception& e) {
      LogError(std::string("http handler threw: ") + e.what());
      Write(ErrorResponse(http::status::internal_server_error, "internal", "internal error", version));
    }
  }

  // "?token=<token>" on a path of opts_->token_query_paths.
  bool QueryTokenOk(const HttpRequest& req) const {
    std::string_view target(req.target().data(), req.target().size());
    const size_t q = target.find('?');
    if (q == std::string_view::npos || opts_->bearer_token.empty()) return false;
    const std::string path(target.substr(0, q));
    if (std::find(opts_->token_query_paths.begin(), opts_->token_query_paths.end(), path) ==
        opts_->token_query_paths.end())
      return false;
    std::string_view query = target.substr(q + 1);
    while (!query.empty()) {
      const size_t amp = query.find('&');
      const std::string_view kv = query.substr(0, amp);
      if (kv.substr(0, 6) == "token=") {
        const std::string given = PercentDecode(kv.substr(6));
        return given.size() == opts_->bearer_token.size() && CRYPTO_memcmp_like(given, opts_->bearer_token);
      }
      if (amp == std::string_view::npos) break;
      query = query.substr(amp + 1);
    }
    return false;
  }

  // The ResponseStream of a streamed response; forwards to its session.
  class Outlet : public ResponseStream {
   public:
    explicit Outlet(const std::shared_ptr<Session>& s) : session_(s) {}
    bool Send(std::string data) override {
      if (closed_) return false;
      auto s = session_.lock();
      if (!s) return MarkClosed(), false;
      net::post(s->stream_.get_executor(), [s, data = std::move(data)]() mutable { s->Enqueue(std::move(data)); });
      return true;
    }
    void Close() override {
      auto s = session_.lock();
      if (!s) return MarkClosed();
      net::post(s->stream_.get_executor(), [s] { s->EndStream(); });
    }
    bool closed() const override { return closed_; }
    void OnClose(std::function<void()> fn) override ACCELOPT_EXCLUDES(mu_) {
      {
        MutexLock lock(&mu_);
        if (!closed_) {
          on_close_ = std::move(fn);
          return;
        }
      }
      fn();
    }
    void MarkClosed() ACCELOPT_EXCLUDES(mu_) {
      std::function<void()> fn;
      {
        MutexLock lock(&mu_);
        if (closed_.exchange(true)) return;
        fn = std::move(on_close_);
      }
      if (fn) fn();
    }

   private:
    std::weak_ptr<Session> session_;
    // Set under mu_ (with on_close_ taken), read without it (Send, closed):
    // an atomic, not guarded.
    std::atomic<bool> closed_{false};
    Mutex mu_;
    std::function<void()> on_close_ ACCELOPT_GUARDED_BY(mu_);
  };

  static constexpr size_t kMaxQueuedBytes = 1 << 20;

  // On the strand: writes the head, then whatever is queued; watches for the
  // peer's end of the connection.
  void StartStream(const std::shared_ptr<Outlet>& outlet, HttpResponse head) {
    if (outlet_) return outlet->MarkClosed();  // one stream per connection
    outlet_ = outlet;
    head.keep_alive(false);
    head.erase(http::field::content_length);
    head.set(http::field::connection, "close");
    std::string text = std::to_string(head.version() / 10) + "." + std::to_string(head.version() % 10);
    text = "HTTP/" + text + " " + std::to_string(head.result_int()) + " " + std::string(head.reason()) + "\r\n";
    for (const auto& f : head) text += std::string(f.name_string()) + ": " + std::string(f.value()) + "\r\n";
    text += "\r\n";
    Enqueue(std::move(text));
    WatchPeer();
  }

  void WatchPeer() {
    // No deadline on this read: a client may say nothing for the stream's
    // whole lifetime (dead peers are found by the heartbeat's write
    // deadline). Without this the read kept the write_timeout WriteNext had
    // just set (basic_stream arms a pending operation's timer once), and
    // every stream ended after write_timeout (60 s) whatever its lifetime.
    stream_.expires_never();
    stream_.async_read_some(net::buffer(peer_buf_), [self = this->shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->EndStream(true);  // the peer went away
      self->WatchPeer();                     // a client has nothing to say on a stream; ignored
    });
  }

  void Enqueue(std::string data) {
    if (!outlet_ || ending_) return;
    if (queued_bytes_ + data.size() > kMaxQueuedBytes) return EndStream();
    queued_bytes_ += data.size();
    out_.push_back(std::move(data));
    if (!writing_) WriteNext();
  }

  void WriteNext() {
    writing_ = true;
    stream_.expires_after(opts_->write_timeout);
    net::async_write(stream_, net::buffer(out_.front()),
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       self->writing_ = false;
                       self->stream_.expires_never();
                       self->queued_bytes_ -= self->out_.front().size();
                       self->out_.pop_front();
                       if (ec) return self->EndStream(true);
                       if (!self->out_.empty()) return self->WriteNext();
                       if (self->ending_) self->EndStream(true);
                     });
  }

  // Ends a stream once its queue is written (`now`: at once).
  void EndStream(bool now = false) {
    ending_ = true;
    if (writing_ && !now) return;
    if (outlet_) outlet_->MarkClosed();
    Close();
  }

  static bool CRYPTO_memcmp_like(const std::string& a, const std::string& b) {
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
  }

  void Write(HttpResponse res) {
    auto sp = std::make_shared<HttpResponse>(std::move(res));
    bool close = !sp->keep_alive();
    stream_.expires_after(opts_->write_timeout);
    http::async_write(stream_, *sp, [self = this->shared_from_this(), sp, close](beast::error_code ec, size_t) {
      if (ec || close) return self->Close();
      self->Read();
    });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(net::socket_base::shutdown_send, ec);
    stream_.socket().close(ec);
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpHandler* handler_;
  const HttpServerOptions* opts_;
  bool require_token_;
  bool keep_alive_ = true;
  // A streamed response (on the strand).
  std::shared_ptr<Outlet> outlet_;
  std::deque<std::string> out_;
  size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool ending_ = false;
  std::array<char, 512> peer_buf_{};
};

using UnixStream = beast::basic_stream<unix_proto, net::any_io_executor, beast::unlimited_rate_policy>;

}  // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  net::io_context& ioc;
  HttpHandler handler;
  HttpServerOptions opts;
  std::optional<unix_proto::acceptor> unix_acceptor;
  std::optional<tcp::acceptor> tcp_acceptor;
  std::string unix_path;

  Impl(net::io_context& i, HttpHandler h, HttpServerOptions o) : ioc(i), handler(std::move(h)), opts(std::move(o)) {}

  void AcceptUnix() {
    unix_acceptor->async_accept(net::make_strand(ioc), [self = shared_from_this()](beast::error_code ec,
                                                                                   unix_proto::socket s) {
      if (ec == net::error::operation_aborted || !self->unix_acceptor || !self->unix_acceptor->is_open()) return;
      if (!ec) {
        std::make_shared<Session<UnixStream>>(UnixStream(std::move(s)), &self->handler, &self->opts, false)->Start();
      }
      self->AcceptUnix();
    });
  }

  void AcceptTcp() {
    tcp_acceptor->async_accept(net::make_strand(ioc), [self = shared_from_this()](beast::error_code ec, tcp::socket s) {
      if (ec == net::error::operation_aborted || !self->tcp_acceptor || !self->tcp_acceptor->is_open()) return;
      if (!ec) {
        std::make_shared<Session<beast::tcp_stream>>(beast::tcp_stream(std::move(s)), &self->handler, &self->opts, true)
            ->Start();
      }
      self->AcceptTcp();
    });
  }
};

HttpServer::HttpServer(net::io_context& ioc, HttpHandler handler, HttpServerOptions options)
    : impl_(std::make_shared<Impl>(ioc, std::move(handler), std::move(options))) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::ListenUnix(const std::string& path, unsigned mode) {
  beast::error_code ec;
  ::unlink(path.c_str());  // a stale socket from a dead daemon; the state-dir lock guards a live one
  impl_->unix_acceptor.emplace(impl_->ioc);
  unix_proto::endpoint ep(path);
  impl_->unix_acceptor->open(ep.protocol(), ec);
  if (!ec) impl_->unix_acceptor->bind(ep, ec);
  if (ec) return IOError("cannot bind unix socket " + path + ": " + ec.message());
  if (::chmod(path.c_str(), mode) != 0) return IOError("cannot chmod " + path);
  impl_->unix_acceptor->listen(net::socket_base::max_listen_connections, ec);
  if (ec) return IOError("cannot listen on " + path + ": " + ec.message());
  impl_->unix_path = path;
  impl_->AcceptUnix();
  return Status::Ok();
}

Status HttpServer::ListenTcp(const std::string& host, unsigned short port) {
  if (impl_->opts.bearer_token.empty()) {
    return FailedPrecondition("TCP listening requires a bearer token (listen.tcp_token_env or listen.tcp_token_file)");
  }
  beast::error_code ec;
  auto addr = net::ip::make_address(host, ec);
  if (ec) return InvalidArgument("bad TCP listen address '" + host + "'");
  tcp::endpoint ep(addr, port);
  impl_->tcp_acceptor.emplace(impl_->ioc);
  impl_->tcp_acceptor->open(ep.protocol(), ec);
  if (!ec) impl_->tcp_acceptor->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl_->tcp_acceptor->bind(ep, ec);
  if (!ec) impl_->tcp_acceptor->listen(net::socket_base::max_listen_connections, ec);
  if (ec) return IOError("cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
  tcp_port_ = impl_->tcp_acceptor->local_endpoint().port();
  impl_->AcceptTcp();
  return Status::Ok();
}

void HttpServer::Stop() {
  beast::error_code ec;
  if (impl_->unix_acceptor && impl_->unix_acceptor->is_open()) {
    impl_->unix_acceptor->close(ec);
    if (!impl_->unix_path.empty()) ::unlink(impl_->unix_path.c_str());
  }
  if (impl_->tcp_acceptor && impl_->tcp_acceptor->is_open()) impl_->tcp_acceptor->close(ec);
}

}  // namespace accelopt::daemon
