#include "store/event.hpp"

namespace accelopt::store {

json ToJson(const EventRecord& e) {
  json j = {{"global_position", e.global_position},
            {"stream", e.stream},
            {"version", e.version},
            {"type", e.type},
            {"schema_version", e.schema_version},
            {"recorded_at_us", e.recorded_at_us},
            {"data", e.data}};
  if (e.causation_id) j["causation_id"] = *e.causation_id;
  if (e.correlation_id) j["correlation_id"] = *e.correlation_id;
  return j;
}

Status ValidateStreamId(const std::string& stream) {
  if (stream.empty()) return InvalidArgument("stream id is empty");
  if (stream.size() > 200) return InvalidArgument("stream id longer than 200 bytes");
  for (unsigned char c : stream) {
    if (c < 0x21 || c > 0x7e) {
      return InvalidArgument("stream id '" + stream + "' has a byte outside printable ASCII");
    }
  }
  return Status::Ok();
}

Status ValidateTypeName(const std::string& type) {
  if (type.empty()) return InvalidArgument("event type is empty");
  if (type.size() > 100) return InvalidArgument("event type longer than 100 bytes");
  for (char c : type) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return InvalidArgument("event type '" + type + "' has a character outside [A-Za-z0-9_.-]");
  }
  return Status::Ok();
}

}  // namespace accelopt::store
