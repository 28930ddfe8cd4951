// RocksDB's info log, sent to our log (stderr with syslog priorities, so
// journald has it) instead of a LOG file in the database folder.
//
// Why not the LOG file: it lives on the same file system as the data. When
// that file system is full, the LOG file's writer fails once and RocksDB
// (7.8, Debian's build with assertions) aborts the process the next time it
// logs through it — e.g. from its no-space recovery — instead of letting the
// event log report itself unhealthy (reliability_test, disk full).
//
// Thread-safe (Log is).
#pragma once

#include <rocksdb/env.h>

#include <memory>
#include <string>

namespace accelopt::store {

// Messages at `level` and above go to accelopt's log, prefixed "rocksdb <dir>: ".
std::shared_ptr<rocksdb::Logger> MakeRocksLogger(const std::string& dir,
                                                 rocksdb::InfoLogLevel level = rocksdb::InfoLogLevel::WARN_LEVEL);

}  // namespace accelopt::store
