// Fuzzes the event log's on-disk decoding (store/record_codec.hpp,
// store/json_codec.hpp): any bytes must decode to a record or to an error,
// never crash, read out of bounds or allocate without bound; whatever decodes
// re-encodes to a fixed point.
//
// Input: byte 0 picks the mode, the rest is the payload.
//   mode & 3 == 0: the payload is a record as stored (checksum included)
//   mode & 3 == 1: the payload is a record body; the right crc32c is appended,
//                  so the fuzzer gets past the checksum into the fields
//   mode & 3 == 2: the payload is binary JSON (event data)
//   mode & 3 == 3: the payload is an events-index key (stream, version)
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "store/event.hpp"
#include "store/json_codec.hpp"
#include "store/record_codec.hpp"

using namespace accelopt;
using namespace accelopt::store;

namespace {

// Decoded data re-encodes, and that encoding decodes and re-encodes to itself.
void CheckJsonFixedPoint(const json& value) {
  std::string once;
  FUZZ_CHECK(EncodeJsonBinary(value, &once).ok());
  auto again = DecodeJsonBinary(once);
  FUZZ_CHECK(again.ok());
  std::string twice;
  FUZZ_CHECK(EncodeJsonBinary(*again, &twice).ok());
  FUZZ_CHECK(once == twice);
}

void CheckRecord(std::string_view bytes) {
  auto rec = DecodeRecord(bytes);
  if (!rec.ok()) {
    FUZZ_CHECK(rec.status().code() == Code::kCorruption);
    return;
  }
  CheckJsonFixedPoint(rec->data);
  // What the API shows of a record (any bytes in strings must serialize).
  (void)Dump(ToJson(*rec));

  // Re-encoding the decoded record gives a record that decodes to the same fields.
  std::string data;
  FUZZ_CHECK(EncodeJsonBinary(rec->data, &data).ok());
  RecordFields f;
  f.type = rec->type;
  f.schema_version = rec->schema_version;
  f.stream = rec->stream;
  f.version = rec->version;
  f.global_position = rec->global_position;
  f.recorded_at_us = rec->recorded_at_us;
  f.data = data;
  f.causation_id = rec->causation_id ? &*rec->causation_id : nullptr;
  f.correlation_id = rec->correlation_id ? &*rec->correlation_id : nullptr;
  std::string encoded;
  EncodeRecord(f, &encoded);
  auto back = DecodeRecord(encoded);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(back->type == rec->type && back->stream == rec->stream);
  FUZZ_CHECK(back->version == rec->version && back->global_position == rec->global_position);
  FUZZ_CHECK(back->recorded_at_us == rec->recorded_at_us && back->schema_version == rec->schema_version);
  FUZZ_CHECK(back->causation_id == rec->causation_id && back->correlation_id == rec->correlation_id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (mode & 3) {
    case 0:
      CheckRecord(payload);
      break;
    case 1: {
      std::string bytes(payload);
      uint32_t crc = Crc32c(bytes);
      for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
      CheckRecord(bytes);
      break;
    }
    case 2: {
      auto value = DecodeJsonBinary(payload);
      if (value.ok()) {
        CheckJsonFixedPoint(*value);
        (void)Dump(*value);
      } else {
        FUZZ_CHECK(value.status().code() == Code::kCorruption);
      }
      break;
    }
    case 3: {
      std::string stream;
      uint64_t version = 0;
      if (ParseStreamKey(payload, &stream, &version).ok()) {
        FUZZ_CHECK(StreamKey(stream, version) == payload);
      }
      break;
    }
  }
  return 0;
}
