#include "evaluators/judge/case_stock.hpp"

#include <cstdio>

namespace accelopt::eval::judge {

bool IsStockCaseName(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".bin") == 0 && name.find(".tmp.") == std::string::npos;
}

size_t StockCount(Env* env, const std::string& stock_dir) {
  auto names = env->ListDir(stock_dir);
  if (!names.ok()) return 0;
  size_t n = 0;
  for (const auto& name : *names) n += IsStockCaseName(name) ? 1 : 0;
  return n;
}

Result<std::vector<std::string>> ClaimStock(Env* env, const std::string& stock_dir, size_t n,
                                            const std::string& dest_dir) {
  std::vector<std::string> claimed;
  if (n == 0 || !env->IsDirectory(stock_dir)) return claimed;
  ACCELOPT_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDir(stock_dir));
  ACCELOPT_RETURN_IF_ERROR(env->CreateDirs(dest_dir));
  for (const auto& name : names) {
    if (claimed.size() >= n) break;
    if (!IsStockCaseName(name)) continue;
    const std::string to = dest_dir + "/" + name;
    if (env->RenameFile(stock_dir + "/" + name, to).ok()) claimed.push_back(to);  // else: another claimer won
  }
  return claimed;
}

std::string FreshCaseName(Env* env) {
  char b[40];
  std::snprintf(b, sizeof b, "%016llx%08llx.bin", static_cast<unsigned long long>(env->RandomU64()),
                static_cast<unsigned long long>(env->RandomU64() & 0xffffffffULL));
  return b;
}

}  // namespace accelopt::eval::judge
