// Status and Result<T>: expected failures as values.
//
// A Status is a code plus a human-readable message. Messages must never carry
// secrets (API keys, tokens): callers scrub provider text before building one.
// Result<T> holds either a T or a non-ok Status. Both are cheap to move and
// are not thread-safe to mutate concurrently (plain values).
#pragma once

#include <cassert>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>

namespace accelopt {

enum class Code {
  kOk = 0,
  kInvalidArgument,     // caller's input is wrong
  kNotFound,            // a named thing does not exist
  kAlreadyExists,       // create of something that exists
  kConflict,            // optimistic-concurrency failure (wrong expected version)
  kFailedPrecondition,  // the system is not in a state to do this (e.g. store unhealthy)
  kCorruption,          // stored data cannot be decoded
  kIOError,             // the OS said no
  kUnavailable,         // a dependency is down; may succeed later
  kTimeout,             // a deadline passed
  kCancelled,           // the caller asked to stop
  kResourceExhausted,   // a budget, quota or disk ran out
  kPermissionDenied,    // access refused
  kUnimplemented,       // not built (yet) on this machine
  kInternal,            // a bug
};

// Stable lower_snake name of a code, used in API errors and logs.
const char* CodeName(Code code);

class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "conflict: stream campaign-1 is at version 4, expected 3"
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context + ": "`.
  Status WithContext(const std::string& context) const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline std::ostream& operator<<(std::ostream& os, Code c) { return os << CodeName(c); }
inline std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

inline Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
inline Status Conflict(std::string m) { return {Code::kConflict, std::move(m)}; }
inline Status FailedPrecondition(std::string m) { return {Code::kFailedPrecondition, std::move(m)}; }
inline Status Corruption(std::string m) { return {Code::kCorruption, std::move(m)}; }
inline Status IOError(std::string m) { return {Code::kIOError, std::move(m)}; }
inline Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
inline Status Timeout(std::string m) { return {Code::kTimeout, std::move(m)}; }
inline Status Cancelled(std::string m) { return {Code::kCancelled, std::move(m)}; }
inline Status ResourceExhausted(std::string m) { return {Code::kResourceExhausted, std::move(m)}; }
inline Status PermissionDenied(std::string m) { return {Code::kPermissionDenied, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {Code::kUnimplemented, std::move(m)}; }
inline Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }

// Either a value or a non-ok Status.
// REQUIRES: constructed from a non-ok Status when there is no value.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  // The error, or Ok when there is a value.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace accelopt

// Propagate a non-ok Status from an expression returning Status.
#define ACCELOPT_RETURN_IF_ERROR(expr) \
  do {                                 \
    ::accelopt::Status _st = (expr);   \
    if (!_st.ok()) return _st;         \
  } while (0)

#define ACCELOPT_CONCAT_INNER(a, b) a##b
#define ACCELOPT_CONCAT(a, b) ACCELOPT_CONCAT_INNER(a, b)
// `ACCELOPT_ASSIGN_OR_RETURN(auto x, MakeX());`
#define ACCELOPT_ASSIGN_OR_RETURN(lhs, expr)                                                    \
  auto ACCELOPT_CONCAT(_res_, __LINE__) = (expr);                                               \
  if (!ACCELOPT_CONCAT(_res_, __LINE__).ok()) return ACCELOPT_CONCAT(_res_, __LINE__).status(); \
  lhs = std::move(ACCELOPT_CONCAT(_res_, __LINE__)).value()
