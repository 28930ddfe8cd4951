#include "store/json_codec.hpp"

#include <cstring>

#include "store/varint.hpp"

namespace accelopt::store {
namespace {

constexpr int kMaxDepth = 256;
enum Tag : uint8_t { kNull, kFalse, kTrue, kInt, kUint, kDouble, kString, kArray, kObject };

void PutFixed(std::string* out, const void* p) { out->append(static_cast<const char*>(p), 8); }

bool Encode(const json& j, std::string* out, int depth) {
  if (depth > kMaxDepth) return false;
  switch (j.type()) {
    case json::value_t::null:
      out->push_back(kNull);
      return true;
    case json::value_t::boolean:
      out->push_back(j.get<bool>() ? kTrue : kFalse);
      return true;
    case json::value_t::number_integer: {
      int64_t v = j.get<int64_t>();
      out->push_back(kInt);
      PutFixed(out, &v);
      return true;
    }
    case json::value_t::number_unsigned: {
      uint64_t v = j.get<uint64_t>();
      out->push_back(kUint);
      PutFixed(out, &v);
      return true;
    }
    case json::value_t::number_float: {
      double v = j.get<double>();
      out->push_back(kDouble);
      PutFixed(out, &v);
      return true;
    }
    case json::value_t::string: {
      const auto& s = j.get_ref<const json::string_t&>();
      out->push_back(kString);
      PutVarint(out, s.size());
      out->append(s);
      return true;
    }
    case json::value_t::array: {
      out->push_back(kArray);
      PutVarint(out, j.size());
      for (const auto& v : j) {
        if (!Encode(v, out, depth + 1)) return false;
      }
      return true;
    }
    case json::value_t::object: {
      out->push_back(kObject);
      const auto& obj = j.get_ref<const json::object_t&>();
      PutVarint(out, obj.size());
      for (const auto& [k, v] : obj) {
        PutVarint(out, k.size());
        out->append(k);
        if (!Encode(v, out, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;  // binary, discarded
  }
}

class Decoder {
 public:
  explicit Decoder(std::string_view in) : p_(in.data()), end_(in.data() + in.size()) {}
  bool done() const { return p_ == end_; }

  bool Value(json* out, int depth) {
    if (p_ == end_ || depth > kMaxDepth) return false;
    uint8_t tag = static_cast<uint8_t>(*p_++);
    switch (tag) {
      case kNull:
        *out = nullptr;
        return true;
      case kFalse:
        *out = false;
        return true;
      case kTrue:
        *out = true;
        return true;
      case kInt: {
        int64_t v;
        if (!Fixed(&v)) return false;
        *out = v;
        return true;
      }
      case kUint: {
        uint64_t v;
        if (!Fixed(&v)) return false;
        *out = v;
        return true;
      }
      case kDouble: {
        double v;
        if (!Fixed(&v)) return false;
        *out = v;
        return true;
      }
      case kString: {
        std::string_view s;
        if (!Str(&s)) return false;
        *out = json::string_t(s);
        return true;
      }
      case kArray: {
        uint64_t n;
        if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
        *out = json::array();
        auto& arr = out->get_ref<json::array_t&>();
        arr.resize(n);
        for (auto& v : arr) {
          if (!Value(&v, depth + 1)) return false;
        }
        return true;
      }
      case kObject: {
        uint64_t n;
        if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
        *out = json::object();
        auto& obj = out->get_ref<json::object_t&>();
        for (uint64_t i = 0; i < n; ++i) {
          std::string_view k;
          if (!Str(&k)) return false;
          // Keys were written in order, so each goes at the end.
          auto it =
              obj.emplace_hint(obj.end(), std::piecewise_construct, std::forward_as_tuple(k), std::forward_as_tuple());
          if (!Value(&it->second, depth + 1)) return false;
        }
        return obj.size() == n;  // a repeated key is not ours
      }
      default:
        return false;
    }
  }

 private:
  template <typename T>
  bool Fixed(T* v) {
    if (end_ - p_ < 8) return false;
    std::memcpy(v, p_, 8);
    p_ += 8;
    return true;
  }
  bool Varint(uint64_t* v) {
    uint64_t r = 0;
    for (int shift = 0; shift <= 63 && p_ < end_; shift += 7) {
      uint64_t b = static_cast<uint8_t>(*p_++);
      r |= (b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *v = r;
        return true;
      }
    }
    return false;
  }
  bool Str(std::string_view* s) {
    uint64_t n;
    if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    *s = std::string_view(p_, n);
    p_ += n;
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

Status EncodeJsonBinary(const json& j, std::string* out) {
  if (!Encode(j, out, 0)) {
    return InvalidArgument("event data holds a binary value or nests deeper than " + std::to_string(kMaxDepth));
  }
  return Status::Ok();
}

Status DecodeJsonBinaryInto(std::string_view bytes, json* out) {
  Decoder d(bytes);
  if (!d.Value(out, 0) || !d.done()) return Corruption("event data is not a well-formed binary JSON value");
  return Status::Ok();
}

Result<json> DecodeJsonBinary(std::string_view bytes) {
  json j;
  ACCELOPT_RETURN_IF_ERROR(DecodeJsonBinaryInto(bytes, &j));
  return j;
}

}  // namespace accelopt::store
