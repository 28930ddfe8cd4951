#include "base/landlock.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>

namespace accelopt {
namespace {

// The kernel's structures (Debian 12's <linux/landlock.h> predates the
// network and scope fields; the size passed tells the kernel which fields
// are present).
struct RulesetAttr {
  uint64_t handled_access_fs;
};
struct PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

constexpr uint64_t kExecute = 1ULL << 0, kWriteFile = 1ULL << 1, kReadFile = 1ULL << 2, kReadDir = 1ULL << 3;
constexpr uint64_t kTruncate = 1ULL << 14;

// Every file right the ABI knows.
uint64_t HandledFs(int abi) {
  uint64_t fs = (1ULL << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) fs |= 1ULL << 13;  // refer
  if (abi >= 3) fs |= kTruncate;   // truncate
  if (abi >= 5) fs |= 1ULL << 15;  // ioctl_dev
  return fs;
}

Status AddRule(int ruleset, const std::string& path, uint64_t access, bool must_exist) {
  const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (!must_exist && errno == ENOENT) return Status::Ok();
    return IOError("landlock rule for " + path + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    close(fd);
    return IOError("landlock rule for " + path + ": " + std::strerror(errno));
  }
  // Folder rights apply beneath folders only; a file gets the file rights.
  if (!S_ISDIR(st.st_mode)) access &= kExecute | kWriteFile | kReadFile | kTruncate;
  PathBeneathAttr pb{access, fd};
  const long rc = syscall(SYS_landlock_add_rule, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &pb, 0);
  const int err = errno;
  close(fd);
  if (rc != 0) return IOError("landlock rule for " + path + ": " + std::strerror(err));
  return Status::Ok();
}

}  // namespace

int LandlockAbi() {
  const long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U /* LANDLOCK_CREATE_RULESET_VERSION */);
  return v < 0 ? 0 : static_cast<int>(v);
}

Result<int> MakeLandlockRuleset(const FileAccessRules& rules) {
  const int abi = LandlockAbi();
  if (abi <= 0) {
    return Unavailable(
        "this kernel has no Landlock (Linux >= 5.13 with landlock in the lsm= list), so untrusted "
        "work cannot be kept from the daemon's files");
  }
  const uint64_t handled = HandledFs(abi);
  RulesetAttr attr{handled};
  const int rs = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (rs < 0) return IOError(std::string("landlock_create_ruleset: ") + std::strerror(errno));
  fcntl(rs, F_SETFD, FD_CLOEXEC);
  auto add_all = [&]() -> Status {
    for (const auto& p : rules.read_exec)
      ACCELOPT_RETURN_IF_ERROR(AddRule(rs, p, kExecute | kReadFile | kReadDir, false));
    for (const auto& p : rules.read_write) ACCELOPT_RETURN_IF_ERROR(AddRule(rs, p, handled, true));
    for (const auto& p : rules.read_write_files)
      ACCELOPT_RETURN_IF_ERROR(AddRule(rs, p, kReadFile | kWriteFile | (abi >= 3 ? kTruncate : 0), true));
    return Status::Ok();
  };
  if (Status st = add_all(); !st.ok()) {
    close(rs);
    return st;
  }
  return rs;
}

bool ApplyLandlockRuleset(int ruleset_fd) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return syscall(SYS_landlock_restrict_self, ruleset_fd, 0) == 0;
}

bool BeneathAny(const std::string& path, const std::vector<std::string>& roots) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  for (const auto& r : roots) {
    std::error_code ec2;
    fs::path root = fs::weakly_canonical(fs::absolute(r, ec2), ec2);
    if (ec2 || root.empty()) continue;
    auto [ri, pi] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
    if (ri == root.end()) return true;
  }
  return false;
}

}  // namespace accelopt
