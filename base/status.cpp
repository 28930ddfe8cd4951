#include "base/status.hpp"

namespace accelopt {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "ok";
    case Code::kInvalidArgument:
      return "invalid_argument";
    case Code::kNotFound:
      return "not_found";
    case Code::kAlreadyExists:
      return "already_exists";
    case Code::kConflict:
      return "conflict";
    case Code::kFailedPrecondition:
      return "failed_precondition";
    case Code::kCorruption:
      return "corruption";
    case Code::kIOError:
      return "io_error";
    case Code::kUnavailable:
      return "unavailable";
    case Code::kTimeout:
      return "timeout";
    case Code::kCancelled:
      return "cancelled";
    case Code::kResourceExhausted:
      return "resource_exhausted";
    case Code::kPermissionDenied:
      return "permission_denied";
    case Code::kUnimplemented:
      return "unimplemented";
    case Code::kInternal:
      return "internal";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(CodeName(code_)) + ": " + message_;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

}  // namespace accelopt
