// Byte layout of keys and values in the store's column families.
//
//   events  key: <stream> 0x00 <version: u64 big-endian>   value: <global: u64 BE>
//   global  key: <global position: u64 BE>                  value: encoded record
//   blobs   key: <sha256: 32 raw bytes>                     value: the bytes
//   meta    key: text (see store_db.hpp)
//
// Encoded record (format 1):
//   u8 format (=1) | varint flags (bit0 causation, bit1 correlation)
//   | varint version | varint global_position | varint recorded_at_us (as u64)
//   | varint schema_version | str type | str stream | [str causation]
//   | [str correlation] | str data (json_codec.hpp binary JSON) | u32 LE crc32c of
//   all before
// where str = varint length + bytes. Any truncation, extra byte or flipped bit
// is detected (length checks and the checksum).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.hpp"
#include "store/event.hpp"

namespace accelopt::store {

void PutBigEndian64(std::string* out, uint64_t v);
// REQUIRES: bytes.size() >= 8 (reads the first 8).
uint64_t GetBigEndian64(std::string_view bytes);
std::string BigEndian64(uint64_t v);

std::string StreamKey(std::string_view stream, uint64_t version);
// Everything of `stream` sorts in [StreamKeyPrefix(stream), +0xff...).
std::string StreamKeyPrefix(std::string_view stream);
// Splits a stream key; Corruption when it is not one.
Status ParseStreamKey(std::string_view key, std::string* stream, uint64_t* version);

uint32_t Crc32c(std::string_view data);

// A record with its data already serialized (what the writer encodes).
struct RecordFields {
  std::string_view type;
  int schema_version = 0;
  std::string_view stream;
  uint64_t version = 0;
  uint64_t global_position = 0;
  int64_t recorded_at_us = 0;
  std::string_view data;  // binary JSON (json_codec.hpp)
  const std::string* causation_id = nullptr;
  const std::string* correlation_id = nullptr;
};

void EncodeRecord(const RecordFields& f, std::string* out);

// Decodes the envelope without decoding `data` (it points into `bytes`).
// Corruption with a reason when the bytes are not a well-formed record.
struct RawRecord {
  std::string_view type;
  int schema_version = 0;
  std::string_view stream;
  uint64_t version = 0;
  uint64_t global_position = 0;
  int64_t recorded_at_us = 0;
  std::string_view data;  // binary JSON (json_codec.hpp)
  std::optional<std::string_view> causation_id;
  std::optional<std::string_view> correlation_id;
};
Status DecodeRawRecord(std::string_view bytes, RawRecord* out);

// DecodeRawRecord plus decoding of data (no upcasting).
Result<EventRecord> DecodeRecord(std::string_view bytes);
// Same, into an existing record (reuses its string buffers; for scans).
Status DecodeRecordInto(std::string_view bytes, EventRecord* e);

}  // namespace accelopt::store
