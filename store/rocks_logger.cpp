#include "store/rocks_logger.hpp"

#include <cstdarg>
#include <cstdio>

#include "base/log.hpp"

namespace accelopt::store {
namespace {

class RocksLogger : public rocksdb::Logger {
 public:
  RocksLogger(std::string dir, rocksdb::InfoLogLevel level)
      : rocksdb::Logger(level), prefix_("rocksdb " + dir + ": ") {}

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override { Logv(rocksdb::InfoLogLevel::INFO_LEVEL, format, ap); }
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel() || level == rocksdb::InfoLogLevel::HEADER_LEVEL) return;
    char buf[2048];
    va_list copy;
    va_copy(copy, ap);
    std::vsnprintf(buf, sizeof buf, format, copy);
    va_end(copy);
    const std::string line = prefix_ + buf;
    if (level >= rocksdb::InfoLogLevel::ERROR_LEVEL) {
      LogError(line);
    } else if (level == rocksdb::InfoLogLevel::WARN_LEVEL) {
      LogWarning(line);
    } else {
      LogInfo(line);
    }
  }

 private:
  std::string prefix_;
};

}  // namespace

std::shared_ptr<rocksdb::Logger> MakeRocksLogger(const std::string& dir, rocksdb::InfoLogLevel level) {
  return std::make_shared<RocksLogger>(dir, level);
}

}  // namespace accelopt::store
