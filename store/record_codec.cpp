#include "store/record_codec.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#include "store/json_codec.hpp"
#include "store/varint.hpp"

namespace accelopt::store {
namespace {

constexpr uint8_t kFormat = 1;

void PutStr(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s);
}

bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    uint64_t byte = static_cast<unsigned char>((*in)[0]);
    in->remove_prefix(1);
    if (shift == 63 && byte > 1) return false;
    result |= (byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool GetStr(std::string_view* in, std::string_view* s) {
  uint64_t n = 0;
  if (!GetVarint(in, &n) || n > in->size()) return false;
  *s = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}

}  // namespace

void PutBigEndian64(std::string* out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBigEndian64(std::string_view b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

std::string BigEndian64(uint64_t v) {
  std::string s;
  PutBigEndian64(&s, v);
  return s;
}

std::string StreamKeyPrefix(std::string_view stream) {
  std::string k(stream);
  k.push_back('\0');
  return k;
}

std::string StreamKey(std::string_view stream, uint64_t version) {
  std::string k = StreamKeyPrefix(stream);
  PutBigEndian64(&k, version);
  return k;
}

Status ParseStreamKey(std::string_view key, std::string* stream, uint64_t* version) {
  if (key.size() < 10 || key[key.size() - 9] != '\0') {
    return Corruption("malformed stream index key (" + std::to_string(key.size()) + " bytes)");
  }
  *stream = std::string(key.substr(0, key.size() - 9));
  *version = GetBigEndian64(key.substr(key.size() - 8));
  return Status::Ok();
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t Crc32cHardware(std::string_view data) {
  const char* p = data.data();
  size_t n = data.size();
  uint64_t c = 0xFFFFFFFFu;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = _mm_crc32_u64(c, v);
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, static_cast<unsigned char>(*p));
  return c32 ^ 0xFFFFFFFFu;
}
#endif

uint32_t Crc32c(std::string_view data) {
#if defined(__x86_64__)
  static const bool hardware = __builtin_cpu_supports("sse4.2");
  if (hardware) return Crc32cHardware(data);
#endif
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : data) c = table[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void EncodeRecord(const RecordFields& f, std::string* out) {
  size_t start = out->size();
  out->push_back(static_cast<char>(kFormat));
  uint64_t flags = (f.causation_id ? 1 : 0) | (f.correlation_id ? 2 : 0);
  PutVarint(out, flags);
  PutVarint(out, f.version);
  PutVarint(out, f.global_position);
  PutVarint(out, static_cast<uint64_t>(f.recorded_at_us));
  PutVarint(out, static_cast<uint64_t>(f.schema_version));
  PutStr(out, f.type);
  PutStr(out, f.stream);
  if (f.causation_id) PutStr(out, *f.causation_id);
  if (f.correlation_id) PutStr(out, *f.correlation_id);
  PutStr(out, f.data);
  uint32_t crc = Crc32c(std::string_view(*out).substr(start));
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
}

Status DecodeRawRecord(std::string_view bytes, RawRecord* r) {
  if (bytes.size() < 5) {
    return Corruption("record too short (" + std::to_string(bytes.size()) + " bytes)");
  }
  std::string_view body = bytes.substr(0, bytes.size() - 4);
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) {
    stored |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[bytes.size() - 4 + i])) << (8 * i);
  }
  if (static_cast<unsigned char>(body[0]) != kFormat) {
    return Corruption("unknown record format " + std::to_string(static_cast<unsigned char>(body[0])));
  }
  if (Crc32c(body) != stored) return Corruption("record checksum mismatch");
  std::string_view in = body.substr(1);
  uint64_t flags = 0, version = 0, global = 0, at = 0, schema = 0;
  if (!GetVarint(&in, &flags) || flags > 3 || !GetVarint(&in, &version) || !GetVarint(&in, &global) ||
      !GetVarint(&in, &at) || !GetVarint(&in, &schema) || schema > 1'000'000 || !GetStr(&in, &r->type) ||
      !GetStr(&in, &r->stream)) {
    return Corruption("malformed record header");
  }
  r->version = version;
  r->global_position = global;
  r->recorded_at_us = static_cast<int64_t>(at);
  r->schema_version = static_cast<int>(schema);
  std::string_view s;
  r->causation_id.reset();
  r->correlation_id.reset();
  if (flags & 1) {
    if (!GetStr(&in, &s)) return Corruption("malformed causation id");
    r->causation_id = s;
  }
  if (flags & 2) {
    if (!GetStr(&in, &s)) return Corruption("malformed correlation id");
    r->correlation_id = s;
  }
  if (!GetStr(&in, &r->data)) return Corruption("malformed record data");
  if (!in.empty()) return Corruption("trailing bytes after record");
  return Status::Ok();
}

Status DecodeRecordInto(std::string_view bytes, EventRecord* e) {
  RawRecord raw;
  ACCELOPT_RETURN_IF_ERROR(DecodeRawRecord(bytes, &raw));
  e->type.assign(raw.type);
  e->schema_version = raw.schema_version;
  e->stream.assign(raw.stream);
  e->version = raw.version;
  e->global_position = raw.global_position;
  e->recorded_at_us = raw.recorded_at_us;
  if (raw.causation_id)
    e->causation_id = std::string(*raw.causation_id);
  else
    e->causation_id.reset();
  if (raw.correlation_id)
    e->correlation_id = std::string(*raw.correlation_id);
  else
    e->correlation_id.reset();
  return DecodeJsonBinaryInto(raw.data, &e->data);
}

Result<EventRecord> DecodeRecord(std::string_view bytes) {
  EventRecord e;
  ACCELOPT_RETURN_IF_ERROR(DecodeRecordInto(bytes, &e));
  return e;
}

}  // namespace accelopt::store
