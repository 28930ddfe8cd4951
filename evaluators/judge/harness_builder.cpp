#include "evaluators/judge/harness_builder.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "base/env.hpp"
#include "base/sha256.hpp"
#include "base/subprocess.hpp"
#include "evaluators/judge/case_stock.hpp"
#include "evaluators/judge/embedded.hpp"
#include "evaluators/judge/toolchain.hpp"

namespace accelopt::eval::judge {
namespace fs = std::filesystem;
namespace {

std::string G(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string DistText(const Distribution& d) { return d.kind + " " + G(d.a) + " " + G(d.b); }

std::string DistLabel(const Distribution& d) {
  if (d.kind == "normal") return "normal(" + G(d.a) + ", " + G(d.b) + ")";
  if (d.kind == "uniform") return "uniform(" + G(d.a) + ", " + G(d.b) + ")";
  if (d.kind == "abs_normal") return "|normal(0, " + G(d.a) + ")| + " + G(d.b);
  return "constant " + G(d.a);
}

// The flags that, with the embedded sources, determine the judge and runner objects.
const std::string kHarnessFlagsText =
    "judge -std=c++17 -O3 -march=native -fopenmp | runner -O2 -fopenmp -z now -z relro -lmvec -lseccomp";

}  // namespace

namespace {

// H(secret, problem identity, label, index) as a 64-bit seed.
uint64_t SecretSeed(const std::string& secret, const std::string& problem, const std::string& label, uint64_t index) {
  std::string h = Sha256Hex(secret + "|" + problem + "|" + label + "|" + std::to_string(index));
  return std::strtoull(h.substr(0, 16).c_str(), nullptr, 16);
}

}  // namespace

std::string ProblemIdentity(const Problem& p) {
  std::ostringstream os;
  os << "function " << p.function << "\n";
  for (const auto& prm : p.params) {
    const int64_t elements = prm.kind == ParamKind::kDim ? p.dims.at(prm.name) : prm.elements;
    os << "param " << static_cast<int>(prm.kind) << " " << prm.name << " " << elements << " " << prm.dtype << " "
       << G(prm.value) << " " << DistText(prm.distribution) << "\n";
  }
  for (const auto& a : p.adversarial) {
    os << "adversarial " << a.name;
    for (const auto& [param, dist] : a.overrides) os << " " << param << " " << DistText(dist);
    os << "\n";
  }
  return Sha256Hex(os.str()).substr(0, 24);
}

int TimingPoolSize(const Problem& problem, const EvalSettings& settings, double call_s) {
  uint64_t bytes = 0;
  for (const auto& prm : problem.params) {
    if (prm.kind == ParamKind::kInput) bytes += 4 * static_cast<uint64_t>(prm.elements);
    if (prm.kind == ParamKind::kOutput) bytes += 8 * static_cast<uint64_t>(prm.elements);
  }
  bytes = std::max<uint64_t>(bytes, 1);
  const int by_bytes = static_cast<int>(std::clamp<uint64_t>(kPoolBytes / bytes, kMinPool, kMaxPool));
  if (!(call_s > 0)) return by_bytes;
  // Cases for max_rounds rounds of min_time_s (and min_samples) each, plus
  // their warm-up calls, a tenth more for slower calls.
  const double per_round =
      std::max(1, settings.warmup) + std::max(static_cast<double>(settings.min_samples), settings.min_time_s / call_s);
  const double by_time = 1.1 * std::max(1, settings.max_rounds) * per_round;
  const double cap = static_cast<double>(std::min<uint64_t>(kRoundsPoolBytes / bytes, kMaxRoundsPool));
  // Whatever the bytes, the rounds that always run (min_rounds) get their
  // warm-up and min_samples each.
  const double needed = 1.1 * std::max(1, std::min(settings.min_rounds, settings.max_rounds)) * per_round;
  return std::max({by_bytes, static_cast<int>(std::min(std::ceil(needed), static_cast<double>(kMaxPool))),
                   static_cast<int>(std::min(std::ceil(by_time), cap))});
}

std::vector<CaseSpec> MakeCases(const Problem& problem, const EvalSettings& settings, const std::string& secret,
                                const std::function<uint64_t()>& random, double call_s) {
  const std::string identity = ProblemIdentity(problem);
  auto pooled = [&](const std::string& label) {
    return SecretSeed(secret, identity, label, random() % static_cast<uint64_t>(kSeedPool));
  };
  std::vector<CaseSpec> cases;
  const size_t n = settings.seeds.size();
  for (size_t i = 0; i < n; ++i) {
    CaseSpec c;
    c.label = "seed " + std::to_string(settings.seeds[i]);
    c.seed = pooled(c.label);
    cases.push_back(c);
    if (i == 0 && settings.perturbation) {
      CaseSpec p = c;
      p.perturb = true;
      p.role = 'c';
      p.label = c.label + " with 3 elements of each input changed in place";
      cases.push_back(p);
    }
  }
  if (settings.adversarial) {
    for (size_t k = 0; k < problem.adversarial.size(); ++k) {
      const auto& a = problem.adversarial[k];
      CaseSpec c;
      std::string what;
      for (const auto& [param, dist] : a.overrides) {
        for (size_t i = 0; i < problem.params.size(); ++i)
          if (problem.params[i].name == param) c.overrides.emplace_back(static_cast<int>(i), dist);
        what += (what.empty() ? "" : ", ") + param + " ~ " + DistLabel(dist);
      }
      c.label = "adversarial" + (a.name.empty() ? std::string() : " '" + a.name + "'") + ": " + what;
      c.seed = pooled(c.label + "|" + std::to_string(k));
      cases.push_back(c);
    }
  }
  if (n > 0 && problem.flops <= kFreshCaseMaxFlops) {
    CaseSpec f;
    f.label = "fresh inputs";
    f.seed = random();
    f.fresh = true;
    cases.push_back(f);
  }
  const int pool = TimingPoolSize(problem, settings, call_s);
  for (int i = 0; n > 0 && i < pool; ++i) {
    CaseSpec p;
    p.label = "timing pool case " + std::to_string(i);
    p.seed = SecretSeed(secret, identity, "timing pool", random());  // fresh: used in this evaluation only
    p.role = 'p';
    cases.push_back(p);
  }
  return cases;
}

namespace {

std::string GlueArgs(const Problem& p, const char* real, bool types) {
  std::ostringstream t;
  for (size_t i = 0; i < p.params.size(); ++i) {
    const Param& prm = p.params[i];
    if (types) {
      if (i) t << ", ";
      switch (prm.kind) {
        case ParamKind::kInput:
          t << "const " << real << "*";
          break;
        case ParamKind::kOutput:
          t << real << "*";
          break;
        case ParamKind::kScalar:
          t << (prm.dtype == "int64" ? "int64_t" : real);
          break;
        case ParamKind::kDim:
          t << "int64_t";
          break;
      }
      continue;
    }
    if (i) t << ",\n      ";
    std::string slot = "a[" + std::to_string(i) + "]";
    switch (prm.kind) {
      case ParamKind::kInput:
        t << "static_cast<const " << real << "*>(" << slot << ")";
        break;
      case ParamKind::kOutput:
        t << "static_cast<" << real << "*>(" << slot << ")";
        break;
      case ParamKind::kScalar:
        if (prm.dtype == "int64")
          t << "*static_cast<const int64_t*>(" << slot << ")";
        else
          t << "*static_cast<const " << real << "*>(" << slot << ")";
        break;
      case ParamKind::kDim:
        t << "*static_cast<const int64_t*>(" << slot << ")";
        break;
    }
  }
  return t.str();
}

}  // namespace

std::string RunnerGlueSource(const Problem& p) {
  std::ostringstream os;
  os << "// Generated by the accelopt cpu evaluator for problem '" << p.name << "' (runner side).\n"
     << "#include <cstdint>\n"
     << "extern \"C\" void AcceloptCallKernel(void* fn, void* const* a) {\n"
     << "  using Fn = void (*)(" << GlueArgs(p, "float", true) << ");\n"
     << "  reinterpret_cast<Fn>(fn)(\n      " << GlueArgs(p, "float", false) << ");\n}\n";
  return os.str();
}

std::string JudgeGlueSource(const Problem& p) {
  std::ostringstream os;
  os << "// Generated by the accelopt cpu evaluator for problem '" << p.name << "' (judge side).\n"
     << "#include <cstdint>\n"
     << p.ReferenceSignature() << ";\n"
     << "extern \"C\" void AcceloptCallReference(void* const* a) {\n"
     << "  " << p.function << "_reference(\n      " << GlueArgs(p, "double", false) << ");\n}\n";
  return os.str();
}

std::string JobText(const Problem& p, const std::string& mode, const std::string& so_path,
                    const std::string& runner_path, const std::vector<CaseSpec>& cases,
                    const std::vector<std::string>& ref_paths, const EvalSettings& s) {
  std::ostringstream os;
  os << "mode " << mode << "\nfunction " << p.function << "\n";
  if (!so_path.empty()) os << "so " << so_path << "\n";
  if (!runner_path.empty()) os << "runner " << runner_path << "\n";
  for (const auto& prm : p.params) {
    char kind = prm.kind == ParamKind::kInput    ? 'i'
                : prm.kind == ParamKind::kOutput ? 'o'
                : prm.kind == ParamKind::kScalar ? 's'
                                                 : 'd';
    int64_t elements = prm.kind == ParamKind::kDim ? p.dims.at(prm.name) : prm.elements;
    os << "param " << kind << " " << prm.name << " " << elements << " " << (prm.dtype == "int64" ? 'i' : 'f') << " "
       << G(prm.value);
    if (prm.kind == ParamKind::kInput) os << " " << DistText(prm.distribution);
    os << "\n";
  }
  for (size_t c = 0; c < cases.size(); ++c) {
    os << "case " << cases[c].role << " " << cases[c].seed << " " << (cases[c].perturb ? 1 : 0) << " "
       << cases[c].overrides.size();
    for (const auto& [idx, d] : cases[c].overrides) os << " " << idx << " " << DistText(d);
    os << " " << ref_paths.at(c) << "\n";
  }
  os << "timing " << s.warmup << " " << G(s.min_time_s) << " " << s.min_samples << " " << s.max_samples << " "
     << std::min(s.min_rounds, s.max_rounds) << " " << s.max_rounds << " " << G(s.target_spread) << "\n";
  os << "tolerance " << G(p.tolerance) << "\n";
  // A quarter of the evaluation's time may go to making timing pool cases
  // not yet cached; the rest is the candidate's.
  os << "pool_make_budget_s " << G(0.25 * s.timeout_s) << "\n";
  if (!s.cores.empty()) {
    os << "cores";
    for (int c : s.cores) os << " " << c;
    os << "\n";
  }
  if (s.threads > 0) os << "threads " << s.threads << "\n";
  return os.str();
}

HarnessCache::HarnessCache(std::string cache_dir, std::string compiler, Env* env, uint64_t max_bytes,
                           std::optional<RunnerBuild> runner)
    : cache_dir_(std::move(cache_dir)),
      compiler_(std::move(compiler)),
      env_(env),
      runner_(std::move(runner)),
      max_bytes_(max_bytes) {}

std::string HarnessCache::TempName(const std::string& path) {
  return path + ".tmp." + std::to_string(env_->ProcessId()) + "." + std::to_string(env_->RandomU64() % 1000000007);
}

std::shared_ptr<Mutex> HarnessCache::KeyLock(const std::string& key) {
  MutexLock lock(&mu_);
  auto& m = locks_[key];
  if (!m) m = std::make_shared<Mutex>();
  return m;
}

void HarnessCache::MaybeEvict(const std::string& version, const std::string& in_use) {
  const int64_t now = env_->NowMicros();
  {
    MutexLock lock(&mu_);
    if (max_bytes_ == 0 || (last_evict_us_ != 0 && now - last_evict_us_ < kEvictEveryUs)) return;
    last_evict_us_ = now;
  }
  MutexLock evicting(&evict_mu_);
  auto usage = EvictReferenceCache(env_, cache_dir_ + "/harness", version, max_bytes_, {in_use});
  if (usage.ok()) {
    MutexLock lock(&mu_);
    usage_ = *usage;
    usage_.checked_at_us = now;
  }
}

CacheUsage HarnessCache::Usage() {
  MutexLock lock(&mu_);
  return usage_;
}

Result<std::string> HarnessCache::Secret() {
  MutexLock lock(&mu_);
  if (!secret_.empty()) return secret_;
  Env* env = env_;
  const std::string path = (fs::path(cache_dir_) / "judge-secret").string();
  if (auto text = env->ReadFile(path); text.ok() && text->size() >= 64) {
    secret_ = text->substr(0, 64);
    return secret_;
  }
  std::string hex;
  for (int k = 0; k < 4; ++k) {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(env->RandomU64()));
    hex += b;
  }
  ACCELOPT_RETURN_IF_ERROR(env->CreateDirs(cache_dir_));
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(path, hex + "\n"));
  (void)env->SetPermissions(path, 0600);
  // Another process may have won the race: use what is on disk.
  if (auto text = env->ReadFile(path); text.ok() && text->size() >= 64) hex = text->substr(0, 64);
  secret_ = hex;
  return secret_;
}

Result<HarnessCache::Objects> HarnessCache::MainObjects(const std::atomic<bool>* cancel) {
  std::string all;
  for (const auto& f : embedded::kHarnessFiles) all += std::string(f.path) + "\n" + std::string(f.content) + "\n";
  std::string key = Sha256Hex(all + "|" + kHarnessFlagsText + compiler_).substr(0, 24);
  fs::path dir = fs::path(cache_dir_) / "harness" / ("main-" + key);
  // The backend's runner object is named by its own sources and flags: two
  // backends share the judge's folder (and its object), not their runners.
  std::string runner_key;
  if (runner_) {
    std::string r;
    for (const auto& f : runner_->files) r += std::string(f.path) + "\n" + std::string(f.content) + "\n";
    for (const auto& flag : runner_->compile_flags) r += flag + " ";
    runner_key = Sha256Hex(r).substr(0, 16);
  }
  Objects objs{(dir / "judge_main.o").string(), runner_ ? (dir / ("runner-" + runner_key + ".o")).string() : ""};
  auto lock = KeyLock(dir.string());
  MutexLock guard(lock.get());
  Env* env = env_;
  struct Unit {
    std::string source;
    std::string object;
    std::vector<std::string> flags;
  };
  std::vector<Unit> units = {
      {"evaluators/judge/harness/judge_main.cpp", objs.judge_o, {"-std=c++17", "-O3", "-march=native", "-fopenmp"}}};
  if (runner_) units.push_back({runner_->source, objs.runner_o, runner_->compile_flags});
  // Each object once: a backend without a runner and one with it may share
  // the cache folder.
  std::erase_if(units, [env](const Unit& u) { return env->Exists(u.object); });
  if (units.empty()) return objs;
  std::vector<embedded::File> files = embedded::kHarnessFiles;
  if (runner_) files.insert(files.end(), runner_->files.begin(), runner_->files.end());
  for (const auto& f : files) {
    fs::path file = dir / std::string(f.path);
    ACCELOPT_RETURN_IF_ERROR(env->CreateDirs(file.parent_path().string()));
    ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic(file.string(), std::string(f.content)));
  }
  for (const Unit& u : units) {
    std::string tmp = TempName(u.object);
    std::vector<std::string> args = u.flags;
    args.insert(args.end(), {"-I", dir.string(), "-c", (dir / u.source).string(), "-o", tmp});
    ACCELOPT_ASSIGN_OR_RETURN(auto cc, RunCompiler(env, compiler_, args, 300, cancel));
    if (!cc.ok) {
      return Internal("compiling " + fs::path(u.source).filename().string() + " " + cc.describe + ":\n" + cc.output);
    }
    ACCELOPT_RETURN_IF_ERROR(env->RenameFile(tmp, u.object));
  }
  return objs;
}

Result<HarnessCache::Built> HarnessCache::Get(const Problem& problem, const std::atomic<bool>* cancel) {
  ACCELOPT_ASSIGN_OR_RETURN(Objects objs, MainObjects(cancel));
  Env* env = env_;
  ACCELOPT_ASSIGN_OR_RETURN(std::string reference, env->ReadFile(problem.reference_path));
  const std::string judge_glue = JudgeGlueSource(problem), runner_glue = RunnerGlueSource(problem);
  // Keyed by everything that makes a case: the problem's identity (dims,
  // dtypes, distributions), its reference source and the judge's objects;
  // two suites' problems of one name share nothing.
  std::string key = Sha256Hex(objs.judge_o + "|" + objs.runner_o + "|" + judge_glue + "|" + runner_glue + "|" +
                              reference + "|" + ProblemIdentity(problem))
                        .substr(0, 24);
  fs::path dir = fs::path(cache_dir_) / "harness" / (problem.name + "-" + key);
  Built built{(dir / "judge").string(), runner_ ? (dir / "runner").string() : "", dir.string(), false};
  auto lock = KeyLock(dir.string());
  MutexLock guard(lock.get());
  const std::string version = fs::path(objs.judge_o).parent_path().filename().string();
  if (env->Exists(built.judge) && (!runner_ || env->Exists(built.runner))) {
    (void)env->WriteFileAtomic((dir / "last_used").string(), std::to_string(env->NowMicros()));
    MaybeEvict(version, dir.string());
    return built;
  }
  ACCELOPT_RETURN_IF_ERROR(env->CreateDirs((dir / "refs").string()));
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic((dir / "judge_version").string(), version));
  (void)env->WriteFileAtomic((dir / "last_used").string(), std::to_string(env->NowMicros()));
  (void)env->SetPermissions((dir / "refs").string(), 0700);
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic((dir / "judge_glue.cpp").string(), judge_glue));
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic((dir / "runner_glue.cpp").string(), runner_glue));
  ACCELOPT_RETURN_IF_ERROR(env->WriteFileAtomic((dir / "reference.cpp").string(), reference));
  std::string tmp = TempName(built.judge);
  ACCELOPT_ASSIGN_OR_RETURN(auto cc, RunCompiler(env, compiler_,
                                                 {"-std=c++17", "-O2", "-fopenmp", (dir / "judge_glue.cpp").string(),
                                                  (dir / "reference.cpp").string(), objs.judge_o, "-o", tmp},
                                                 300, cancel));
  if (!cc.ok) {
    return InvalidArgument("problem '" + problem.name + "': building the judge with reference.cpp " + cc.describe +
                           ":\n" + cc.output);
  }
  ACCELOPT_RETURN_IF_ERROR(env->RenameFile(tmp, built.judge));
  if (runner_) {
    // The backend's runner: its glue and main object, then its link flags.
    tmp = TempName(built.runner);
    std::vector<std::string> args = {"-std=c++17",  "-O2", "-fopenmp", (dir / "runner_glue.cpp").string(),
                                     objs.runner_o, "-o",  tmp};
    args.insert(args.end(), runner_->link_flags.begin(), runner_->link_flags.end());
    ACCELOPT_ASSIGN_OR_RETURN(cc, RunCompiler(env, compiler_, args, 300, cancel));
    if (!cc.ok) return Internal("building the runner " + cc.describe + ":\n" + cc.output);
    ACCELOPT_RETURN_IF_ERROR(env->RenameFile(tmp, built.runner));
  }
  built.fresh = true;
  MaybeEvict(version, dir.string());
  return built;
}

namespace {

// A correctness case's cached reference: named by its seed, perturbation and
// overridden distributions (what makes its inputs).
std::string CorrectnessCasePath(const std::string& harness_dir, const CaseSpec& c) {
  std::ostringstream id;
  id << c.seed << "|" << c.perturb;
  for (const auto& [i, d] : c.overrides) id << "|" << i << ":" << DistText(d);
  return (fs::path(harness_dir) / "refs" / (Sha256Hex(id.str()).substr(0, 24) + ".bin")).string();
}

}  // namespace

Result<std::vector<std::string>> HarnessCache::References(const Problem& problem, const Built& harness,
                                                          const std::vector<CaseSpec>& cases,
                                                          const std::string& pool_dir, const std::atomic<bool>* cancel,
                                                          size_t* from_stock) {
  std::vector<std::string> paths, named_paths;
  std::vector<CaseSpec> named;  // the cases prepare mode makes if missing
  bool missing = false;
  int pool_index = 0;
  // This evaluation's timing cases: claimed from the stock, the rest made
  // fresh in its own folder (case_stock.hpp); none is ever used again.
  const size_t pool_cases =
      static_cast<size_t>(std::count_if(cases.begin(), cases.end(), [](const CaseSpec& c) { return c.role == 'p'; }));
  ACCELOPT_ASSIGN_OR_RETURN(std::vector<std::string> claimed,
                            ClaimStock(env_, harness.dir + "/stock", pool_cases, pool_dir));
  if (from_stock) *from_stock = claimed.size();
  if (pool_cases > 0) ACCELOPT_RETURN_IF_ERROR(env_->CreateDirs(pool_dir));
  size_t next_claim = 0;
  for (const auto& c : cases) {
    if (c.fresh) {
      paths.push_back("-");
      continue;
    }
    if (c.role == 'p') {
      paths.push_back(next_claim < claimed.size() ? claimed[next_claim++] : pool_dir + "/" + FreshCaseName(env_));
    } else {
      paths.push_back(CorrectnessCasePath(harness.dir, c));
    }
    // Pool cases not claimed from the stock are made by the judge itself
    // the first time one is used (judge_main.cpp, case_pool.hpp): an
    // evaluation pays only for those it takes. The first kPreparedPool of
    // them are made here, so that every evaluation has a few whatever its
    // budget.
    const bool prepared = c.role != 'p' || pool_index++ < kPreparedPool;
    if (prepared) missing |= !env_->Exists(paths.back());
    if (prepared) {
      named.push_back(c);
      named_paths.push_back(paths.back());
    }
  }
  if (!missing) return paths;

  auto lock = KeyLock(harness.dir + "/refs");
  MutexLock guard(lock.get());
  ACCELOPT_RETURN_IF_ERROR(RunPrepare(problem, harness, named, named_paths, cancel));
  return paths;
}

Status HarnessCache::RunPrepare(const Problem& problem, const Built& harness, const std::vector<CaseSpec>& cases,
                                const std::vector<std::string>& paths, const std::atomic<bool>* cancel, bool durable) {
  ProcessSpec spec;
  spec.argv = {harness.judge};
  spec.stdin_data = JobText(problem, "prepare", "", "", cases, paths, EvalSettings{});
  if (durable) spec.stdin_data += "durable 1\n";
  spec.timeout = std::chrono::seconds(600);
  spec.cancel = cancel;
  spec.clear_env = true;
  ACCELOPT_ASSIGN_OR_RETURN(ProcessResult r, env_->RunProcess(spec));
  if (r.outcome == ProcessResult::Outcome::kCancelled) return Cancelled("cancelled while computing references");
  if (!r.Succeeded() || r.stdout_data.find("ACCELOPT-JUDGE {\"ok\": true}") == std::string::npos) {
    return InvalidArgument("problem '" + problem.name + "': computing reference outputs " + r.Describe() + ": " +
                           r.stderr_data.substr(0, 4000));
  }
  return Status::Ok();
}

Result<size_t> HarnessCache::WarmReferences(const Problem& problem, const Built& harness, const EvalSettings& settings,
                                            size_t chunk, const std::atomic<bool>* cancel) {
  ACCELOPT_ASSIGN_OR_RETURN(std::string secret, Secret());
  std::vector<CaseSpec> missing;
  std::vector<std::string> paths;
  std::set<std::string> seen;
  for (uint64_t k = 0; k < static_cast<uint64_t>(kSeedPool); ++k) {
    // The cases an evaluation gets when every draw picks seed k of its label.
    for (const CaseSpec& c : MakeCases(problem, settings, secret, [k] { return k; })) {
      if (c.role == 'p' || c.fresh) continue;
      std::string path = CorrectnessCasePath(harness.dir, c);
      if (!seen.insert(path).second || env_->Exists(path)) continue;
      missing.push_back(c);
      paths.push_back(std::move(path));
    }
  }
  if (missing.empty()) return size_t{0};
  const size_t n = std::min(chunk, missing.size());
  missing.resize(n);
  paths.resize(n);
  auto lock = KeyLock(harness.dir + "/refs");
  MutexLock guard(lock.get());
  Status st = RunPrepare(problem, harness, missing, paths, cancel, /*durable=*/true);
  if (!st.ok() && st.code() != Code::kCancelled) return st;
  size_t left = seen.size();
  for (const auto& path : seen) left -= env_->Exists(path) ? 1 : 0;
  return left;
}

Result<size_t> HarnessCache::RefillStock(const Problem& problem, const Built& harness, size_t target, size_t chunk,
                                         const std::atomic<bool>* cancel) {
  const std::string stock = harness.dir + "/stock";
  auto lock = KeyLock(stock);
  MutexLock guard(lock.get());
  ACCELOPT_RETURN_IF_ERROR(env_->CreateDirs(stock));
  (void)env_->SetPermissions(stock, 0700);
  // A refill cancelled mid-file leaves its temporary file: never claimed, removed here.
  if (auto names = env_->ListDir(stock); names.ok())
    for (const auto& n : *names)
      if (n.find(".tmp.") != std::string::npos) (void)env_->RemoveAll(stock + "/" + n);
  const size_t have = StockCount(env_, stock);
  if (have >= target) return have;
  ACCELOPT_ASSIGN_OR_RETURN(std::string secret, Secret());
  const std::string identity = ProblemIdentity(problem);
  std::vector<CaseSpec> cases;
  std::vector<std::string> paths;
  for (size_t i = 0; i < std::min(chunk, target - have); ++i) {
    CaseSpec p;
    p.role = 'p';
    p.label = "stock case";
    p.seed = SecretSeed(secret, identity, "timing pool", env_->RandomU64());
    cases.push_back(p);
    paths.push_back(stock + "/" + FreshCaseName(env_));
  }
  Status st = RunPrepare(problem, harness, cases, paths, cancel, /*durable=*/true);
  const size_t now_have = StockCount(env_, stock);  // a cancelled refill keeps what it finished
  if (!st.ok() && st.code() != Code::kCancelled) return st;
  return now_have;
}

}  // namespace accelopt::eval::judge
