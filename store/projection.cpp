#include "store/projection.hpp"

namespace accelopt::store {
namespace {

class FunctionProjection : public Projection {
 public:
  FunctionProjection(std::string name, int version, json initial, FoldFn fold)
      : name_(std::move(name)), version_(version), initial_(std::move(initial)), fold_(std::move(fold)) {}
  std::string Name() const override { return name_; }
  int Version() const override { return version_; }
  json Initial() const override { return initial_; }
  Status Apply(json& state, const EventRecord& e) const override { return fold_(state, e); }

 private:
  std::string name_;
  int version_;
  json initial_;
  FoldFn fold_;
};

}  // namespace

std::shared_ptr<const Projection> MakeProjection(std::string name, int version, json initial, FoldFn fold) {
  return std::make_shared<FunctionProjection>(std::move(name), version, std::move(initial), std::move(fold));
}

Status ValidateProjectionName(const std::string& name) {
  if (name.empty() || name.size() > 64) return InvalidArgument("projection name must be 1..64 bytes");
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return InvalidArgument("projection name '" + name + "' has a character outside [a-z0-9_-]");
  }
  return Status::Ok();
}

}  // namespace accelopt::store
