#include "base/boost_prelude.hpp"
#include "base/text.hpp"

#include "tests/fakes/llm_server/fake_llm_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <chrono>
#include <stdexcept>

namespace accelopt::fakes {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

struct FakeLlmServer::Conn {
  net::io_context ioc;
  tcp::socket socket{ioc};
  std::thread thread;
  std::atomic<bool> done{false};
  std::mutex mu;        // guards closing the socket against the destructor's shutdown
  bool closed = false;  // guarded by mu

  void Close() {
    std::lock_guard lock(mu);
    if (closed) return;
    closed = true;
    beast::error_code ec;
    socket.close(ec);
  }
  void Shutdown() {
    std::lock_guard lock(mu);
    if (!closed) ::shutdown(socket.native_handle(), SHUT_RDWR);
  }
};

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string UrlDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Text of a content value: a string, or an array of {text} / {type:text,text}.
std::string ContentText(const json& c) {
  if (c.is_string()) return c.get<std::string>();
  std::string out;
  if (c.is_array()) {
    for (const auto& p : c) {
      if (p.is_object() && p.contains("text") && p["text"].is_string()) out += p["text"].get<std::string>();
    }
  }
  return out;
}

// Extracts model/system/user; false when the path is not a model endpoint.
bool ParseCall(const std::string& target, const json& body, FakeCall* call) {
  std::string path = target.substr(0, target.find('?'));
  if (EndsWith(path, "/chat/completions")) {
    call->api = "openai";
    call->model = body.value("model", "");
    for (const auto& m : body.value("messages", json::array())) {
      if (!m.is_object()) continue;
      const std::string role = m.value("role", "");
      if (role == "system" || role == "developer") call->system += ContentText(m.value("content", json()));
      if (role == "user") call->user = ContentText(m.value("content", json()));
    }
    return true;
  }
  if (EndsWith(path, "/messages")) {
    call->api = "anthropic";
    call->model = body.value("model", "");
    call->system = ContentText(body.value("system", json()));
    for (const auto& m : body.value("messages", json::array())) {
      if (m.is_object() && m.value("role", "") == "user") call->user = ContentText(m.value("content", json()));
    }
    return true;
  }
  if (path.rfind("/model/", 0) == 0 && EndsWith(path, "/converse")) {
    call->api = "bedrock";
    call->model = UrlDecode(path.substr(7, path.size() - 7 - 9));
    call->system = ContentText(body.value("system", json()));
    for (const auto& m : body.value("messages", json::array())) {
      if (m.is_object() && m.value("role", "") == "user") call->user = ContentText(m.value("content", json()));
    }
    return true;
  }
  return false;
}

json ErrorBody(const std::string& api, int status, const std::string& message) {
  if (api == "anthropic") {
    return {{"type", "error"},
            {"error", {{"type", status == 429 ? "rate_limit_error" : "api_error"}, {"message", message}}}};
  }
  if (api == "bedrock") return {{"message", message}};
  return {{"error", {{"message", message}, {"type", "fake_error"}, {"code", status}}}};
}

json ReplyBody(const std::string& api, const FakeCall& call, const FakeReply& r, int64_t seq) {
  const int64_t in = r.input_tokens.value_or(static_cast<int64_t>(call.system.size() + call.user.size()) / 4 + 1);
  const int64_t out = r.output_tokens.value_or(static_cast<int64_t>(r.text.size() + r.reasoning.size()) / 4 + 1);
  const int64_t cached = r.cached_tokens;
  if (api == "anthropic") {
    json content = json::array();
    if (!r.reasoning.empty())
      content.push_back({{"type", "thinking"}, {"thinking", r.reasoning}, {"signature", "fake"}});
    content.push_back({{"type", "text"}, {"text", r.text}});
    return {{"id", "msg_fake_" + std::to_string(seq)},
            {"type", "message"},
            {"role", "assistant"},
            {"model", call.model},
            {"content", content},
            {"stop_reason", r.finish_reason == "length" ? "max_tokens" : "end_turn"},
            {"usage", {{"input_tokens", in - cached}, {"output_tokens", out}, {"cache_read_input_tokens", cached}}}};
  }
  if (api == "bedrock") {
    json content = json::array();
    if (!r.reasoning.empty()) content.push_back({{"reasoningContent", {{"reasoningText", {{"text", r.reasoning}}}}}});
    content.push_back({{"text", r.text}});
    return {{"output", {{"message", {{"role", "assistant"}, {"content", content}}}}},
            {"stopReason", r.finish_reason == "length" ? "max_tokens" : "end_turn"},
            {"usage",
             {{"inputTokens", in - cached},
              {"outputTokens", out},
              {"totalTokens", in + out},
              {"cacheReadInputTokens", cached}}},
            {"metrics", {{"latencyMs", 1}}}};
  }
  json message = {{"role", "assistant"}, {"content", r.text}};
  if (!r.reasoning.empty()) message["reasoning_content"] = r.reasoning;
  return {{"id", "chatcmpl-fake-" + std::to_string(seq)},
          {"object", "chat.completion"},
          {"created", 1700000000},
          {"model", call.model},
          {"choices", json::array({{{"index", 0}, {"message", message}, {"finish_reason", r.finish_reason}}})},
          {"usage",
           {{"prompt_tokens", in},
            {"completion_tokens", out},
            {"total_tokens", in + out},
            {"prompt_tokens_details", {{"cached_tokens", cached}}}}}};
}

json MissingFieldsBody(const std::string& api, int64_t seq) {
  if (api == "anthropic") return {{"id", "msg_fake_" + std::to_string(seq)}, {"type", "message"}};
  if (api == "bedrock") return {{"stopReason", "end_turn"}};
  return {{"id", "chatcmpl-fake-" + std::to_string(seq)}, {"object", "chat.completion"}};
}

}  // namespace

FakeLlmServer::FakeLlmServer(const json& script, uint16_t port) {
  auto parsed = FakeScript::Parse(script);
  if (!parsed.ok()) throw std::runtime_error("fake-llm-server: " + parsed.status().ToString());
  script_ = std::move(*parsed);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("fake-llm-server: socket failed");
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(listen_fd_, 128) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("fake-llm-server: cannot bind 127.0.0.1:" + std::to_string(port));
  }
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

FakeLlmServer::~FakeLlmServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes the blocking accept()
  accept_thread_.join();
  ::close(listen_fd_);
  std::list<std::shared_ptr<Conn>> conns;
  {
    std::lock_guard lock(mu_);
    conns.swap(conns_);
  }
  for (auto& c : conns) c->Shutdown();
  for (auto& c : conns) c->thread.join();
}

void FakeLlmServer::AcceptLoop() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) return;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    auto conn = std::make_shared<Conn>();
    conn->socket.assign(tcp::v4(), fd);
    std::lock_guard lock(mu_);
    if (stopping_) {
      ::close(conn->socket.release());
      return;
    }
    // Reap finished connections.
    for (auto it = conns_.begin(); it != conns_.end();) {
      if ((*it)->done) {
        (*it)->thread.join();
        it = conns_.erase(it);
      } else {
        ++it;
      }
    }
    conns_.push_back(conn);
    conn->thread = std::thread([this, conn] { Serve(conn); });
  }
}

bool FakeLlmServer::SleepMs(int64_t ms) {
  std::unique_lock lock(mu_);
  stop_cv_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping_.load(); });
  return !stopping_;
}

void FakeLlmServer::Serve(std::shared_ptr<Conn> conn) {
  beast::flat_buffer buffer;
  beast::error_code ec;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(64u << 20);
    http::read(conn->socket, buffer, parser, ec);
    if (ec) break;
    auto req = parser.release();
    const std::string target(req.target());
    http::response<http::string_body> res{http::status::ok, req.version()};
    res.set(http::field::content_type, "application/json");
    res.keep_alive(req.keep_alive());

    auto send = [&](int status, const json& body) {
      res.result(static_cast<unsigned>(status));
      res.body() = Dump(body);
      res.prepare_payload();
      http::write(conn->socket, res, ec);
    };

    if (req.method() == http::verb::get && target == "/_fake/requests") {
      send(200, json(requests()));
    } else if (req.method() == http::verb::get && target == "/_fake/counts") {
      json counts = json::object();
      {
        std::lock_guard lock(mu_);
        for (size_t i = 0; i < script_.rules().size(); ++i)
          counts[script_.rules()[i].name] = script_.served(static_cast<int>(i));
        counts["_total"] = total_;
        counts["_unmatched"] = unmatched_;
      }
      send(200, counts);
    } else if (req.method() == http::verb::post && target == "/_fake/reset") {
      Reset();
      send(200, json::object());
    } else {
      auto body = ParseJson(req.body());
      FakeCall call;
      if (req.method() != http::verb::post || !ParseCall(target, body.ok() ? *body : json::object(), &call)) {
        send(404, {{"error", {{"message", "fake-llm-server: unknown endpoint " + target}}}});
      } else {
        const int now = ++in_flight_;
        for (int peak = peak_in_flight_.load(); now > peak && !peak_in_flight_.compare_exchange_weak(peak, now);) {
        }
        int index;
        FakeRule rule;
        int64_t seq;
        {
          std::lock_guard lock(mu_);
          index = body.ok() ? script_.Match(call) : -1;
          if (index >= 0) rule = script_.rules()[index];
          seq = ++total_;
          if (index < 0) ++unmatched_;
          json headers = json::object();
          for (const auto& f : req) headers[Lower(std::string(f.name_string()))] = std::string(f.value());
          records_.push_back({{"api", call.api},
                              {"path", target},
                              {"model", call.model},
                              {"system", call.system},
                              {"user", call.user},
                              {"rule", index >= 0 ? json(rule.name) : json()},
                              {"headers", headers},
                              {"body", req.body()}});
        }
        bool close_now = false;
        if (index < 0) {
          send(404,
               ErrorBody(call.api, 404,
                         body.ok() ? "fake-llm-server: no rule matched" : "fake-llm-server: request body is not JSON"));
        } else if (rule.latency_ms > 0 && !SleepMs(rule.latency_ms)) {
          close_now = true;
        } else {
          const FakeFault& f = rule.fault;
          FakeReply reply = rule.reply;
          if (f.kind.empty()) {
            json out = ReplyBody(call.api, call, reply, seq);
            if (reply.no_usage) out.erase("usage");
            send(200, out);
          } else if (f.status != 0) {
            if (f.retry_after_s) res.set(http::field::retry_after, std::to_string(*f.retry_after_s));
            if (f.retry_after_ms) res.set("retry-after-ms", std::to_string(*f.retry_after_ms));
            send(f.status, f.body
                               ? *f.body
                               : ErrorBody(call.api, f.status,
                                           f.message.empty() ? "fake fault " + std::to_string(f.status) : f.message));
          } else if (f.kind == "reset") {
            linger lg{1, 0};
            ::setsockopt(conn->socket.native_handle(), SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
            close_now = true;
          } else if (f.kind == "stall") {
            std::string full = Dump(ReplyBody(call.api, call, reply, seq));
            std::string head =
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(full.size()) +
                "\r\n\r\n" + full.substr(0, full.size() / 2);
            net::write(conn->socket, net::buffer(head), ec);
            SleepMs(f.stall_ms.value_or(24LL * 3600 * 1000));
            close_now = true;
          } else if (f.kind == "invalid_json") {
            res.result(http::status::ok);
            res.body() = R"({"id": "broken", "choices": [{"message": {"content": "unterminated)";
            res.prepare_payload();
            http::write(conn->socket, res, ec);
          } else if (f.kind == "missing_fields") {
            send(200, MissingFieldsBody(call.api, seq));
          } else if (f.kind == "empty") {
            reply.text.clear();
            reply.reasoning.clear();
            send(200, ReplyBody(call.api, call, reply, seq));
          } else if (f.kind == "length") {
            if (reply.text.empty()) reply.text = "The plan is to fuse the two loops and then";
            reply.text.resize(reply.text.size() / 2);
            reply.finish_reason = "length";
            send(200, ReplyBody(call.api, call, reply, seq));
          } else if (f.kind == "huge") {
            std::string text;
            text.reserve(static_cast<size_t>(f.bytes));
            while (static_cast<int64_t>(text.size()) < f.bytes) text += "0123456789abcdef";
            text.resize(static_cast<size_t>(f.bytes));
            reply.text = std::move(text);
            send(200, ReplyBody(call.api, call, reply, seq));
          }
        }
        --in_flight_;
        if (close_now) break;
      }
    }
    if (ec || !req.keep_alive() || stopping_) break;
  }
  conn->Close();
  conn->done = true;
}

int FakeLlmServer::count(const std::string& rule) const {
  std::lock_guard lock(mu_);
  int n = 0;
  for (size_t i = 0; i < script_.rules().size(); ++i) {
    if (script_.rules()[i].name == rule) n += script_.served(static_cast<int>(i));
  }
  return n;
}

int FakeLlmServer::total() const {
  std::lock_guard lock(mu_);
  return total_;
}

int FakeLlmServer::unmatched() const {
  std::lock_guard lock(mu_);
  return unmatched_;
}

std::vector<json> FakeLlmServer::requests() const {
  std::lock_guard lock(mu_);
  return records_;
}

void FakeLlmServer::SetScript(const json& script) {
  auto parsed = FakeScript::Parse(script);
  if (!parsed.ok()) throw std::runtime_error("fake-llm-server: " + parsed.status().ToString());
  std::lock_guard lock(mu_);
  script_ = std::move(*parsed);
  records_.clear();
  total_ = unmatched_ = 0;
}

void FakeLlmServer::Reset() {
  std::lock_guard lock(mu_);
  script_.ResetCounters();
  records_.clear();
  total_ = unmatched_ = 0;
}

}  // namespace accelopt::fakes
