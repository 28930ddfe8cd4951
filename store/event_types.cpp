#include "store/event_types.hpp"

namespace accelopt::store {
namespace {
constexpr const char* kUnknownType = "unknown event type";
}

Status EventTypeRegistry::Register(const std::string& type, int current_version, std::map<int, Upcaster> upcasters) {
  ACCELOPT_RETURN_IF_ERROR(ValidateTypeName(type));
  if (current_version < 1) return InvalidArgument("schema version of " + type + " must be >= 1");
  if (types_.count(type)) return Status(Code::kAlreadyExists, "event type " + type + " registered twice");
  for (int v = 1; v < current_version; ++v) {
    if (!upcasters.count(v) || !upcasters[v]) {
      return InvalidArgument("event type " + type + ": no upcaster from version " + std::to_string(v) + " to " +
                             std::to_string(v + 1));
    }
  }
  for (const auto& [v, fn] : upcasters) {
    if (v < 1 || v >= current_version) {
      return InvalidArgument("event type " + type + ": upcaster for version " + std::to_string(v) + " outside 1.." +
                             std::to_string(current_version - 1));
    }
  }
  types_[type] = TypeInfo{current_version, std::move(upcasters)};
  return Status::Ok();
}

std::vector<std::string> EventTypeRegistry::Types() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : types_) out.push_back(name);
  return out;
}

Result<int> EventTypeRegistry::CheckForAppend(const std::string& type, int schema_version) const {
  auto it = types_.find(type);
  if (it == types_.end()) {
    return InvalidArgument("cannot append event of unregistered type '" + type + "'");
  }
  if (schema_version != 0 && schema_version != it->second.current_version) {
    return InvalidArgument("event type " + type + " is at schema version " +
                           std::to_string(it->second.current_version) + ", not " + std::to_string(schema_version));
  }
  return it->second.current_version;
}

Status EventTypeRegistry::Upcast(EventRecord* e) const {
  auto where = [&] {
    return " (stream " + e->stream + " version " + std::to_string(e->version) + ", global " +
           std::to_string(e->global_position) + ")";
  };
  auto it = types_.find(e->type);
  if (it == types_.end()) {
    return Status(Code::kUnimplemented, std::string(kUnknownType) + " '" + e->type + "'" + where());
  }
  const TypeInfo& info = it->second;
  if (e->schema_version == info.current_version) return Status::Ok();  // the common case
  if (e->schema_version > info.current_version) {
    return Status(Code::kUnimplemented, "event type " + e->type + " has schema version " +
                                            std::to_string(e->schema_version) + ", newer than this build's " +
                                            std::to_string(info.current_version) + where());
  }
  if (e->schema_version < 1) {
    return Corruption("event type " + e->type + " has schema version " + std::to_string(e->schema_version) + where());
  }
  while (e->schema_version < info.current_version) {
    auto up = info.upcasters.find(e->schema_version);
    if (up == info.upcasters.end()) {
      return Corruption("no upcaster for " + e->type + " version " + std::to_string(e->schema_version) + where());
    }
    try {
      e->data = up->second(std::move(e->data));
    } catch (const std::exception& ex) {
      return Corruption("upcasting " + e->type + " from version " + std::to_string(e->schema_version) +
                        " failed: " + ex.what() + where());
    }
    ++e->schema_version;
  }
  return Status::Ok();
}

bool IsUnknownEventType(const Status& s) {
  return s.code() == Code::kUnimplemented && s.message().find(std::string(kUnknownType) + " '") != std::string::npos;
}

}  // namespace accelopt::store
