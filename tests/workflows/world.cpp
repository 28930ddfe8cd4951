#include "world.hpp"

#include <cmath>
#include <regex>

#include "workflows/parse.hpp"

namespace accelopt::workflows::testing {

namespace {

json ProblemJson(const std::string& name, const std::string& function) {
  return {{"name", name},
          {"backend", "cpu"},
          {"description", "out = f(x), elementwise"},
          {"function", function},
          {"params",
           {{{"name", "x"},
             {"kind", "input"},
             {"dtype", "float32"},
             {"shape", {"M", "N"}},
             {"distribution", {{"kind", "normal"}}}},
            {{"name", "out"}, {"kind", "output"}, {"dtype", "float32"}, {"shape", {"M", "N"}}},
            {{"name", "M"}, {"kind", "dim"}},
            {{"name", "N"}, {"kind", "dim"}}}},
          {"dims", {{"M", 512}, {"N", 896}}},
          {"flops", 2293760},
          {"bytes", 3670016},
          {"bound", "memory"},
          {"tolerance", 2e-5}};
}

std::string Reference(const std::string& function) {
  return "extern \"C\" void " + function +
         "_reference(const double* x, double* out, int64_t M, int64_t N) {\n"
         "  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0 + std::exp(-x[i]));\n}\n";
}

// The activity id's "/n<n>/k<k>" indices.
std::pair<int, int> PlanAndSample(const std::string& id) {
  static const std::regex re(".*/n([0-9]+)/k([0-9]+)$");
  std::smatch m;
  if (!std::regex_match(id, m, re)) return {-1, -1};
  return {std::stoi(m[1]), std::stoi(m[2])};
}

std::string FunctionIn(const std::string& prompt) {
  static const std::regex re("extern \"C\" void ([a-z_]+)\\(const float");
  std::smatch m;
  if (!std::regex_search(prompt, m, re)) return "";
  return m[1];
}

}  // namespace

int LevelOf(const std::string& source) {
  static const std::regex re("LEVEL=([0-9]+)");
  std::smatch m;
  if (!std::regex_search(source, m, re)) return -1;
  return std::stoi(m[1]);
}

bool IsSlow(const std::string& source) { return source.find("SLOW") != std::string::npos; }

std::string Kernel(const std::string& function, int level, bool slow) {
  // The level and slowness are in the code too (not only in the comment), so
  // that kernels of different levels differ after normalization.
  return "// LEVEL=" + std::to_string(level) + (slow ? " SLOW" : "") +
         "\n#include <cmath>\n#include <cstdint>\nstatic const int level_marker = " + std::to_string(level) +
         ", slow_marker = " + (slow ? "1" : "0") + ";\nextern \"C\" void " + function +
         "(const float* x, float* out, int64_t M, int64_t N) {\n"
         "  for (int64_t i = 0; i < M * N; ++i) out[i] = x[i] / (1.0f + std::exp(-x[i]));\n}\n";
}

World MakeWorld() {
  World w;
  const std::pair<const char*, double> problems[] = {{"silu", 1000.0}, {"gelu", 400.0}};
  for (const auto& [name, base] : problems) {
    ProblemSource s;
    s.id = std::string("suites/cpu/") + name;
    s.problem = ProblemJson(name, name);
    s.reference = Reference(name);
    s.baseline = Kernel(name, 0);
    w.sources.push_back(s);
    w.base_latency_us[s.id] = base;
  }
  w.hardware = {{"cpu_model", "Test CPU"},
                {"cores", 2},
                {"simd", "AVX-512"},
                {"caches", {{"L1d_kib", 48}, {"L2_kib", 2048}, {"L3_mib", 105}}},
                {"peaks", {{"fp32_gflops", 200.0}, {"memory_gbps", 20.0}}}};
  return w;
}

CampaignSpec SmallSpec(const World& w) {
  CampaignSpec spec;
  spec.mode = kModePaper;  // the paper-mode tests; default-mode tests set it
  for (const auto& s : w.sources) spec.problems.push_back(s.id);
  spec.search.T = 3;
  spec.search.B = 2;
  spec.search.N = 2;
  spec.search.K = 2;
  spec.search.TopK = 2;
  spec.search.ExpN = 3;
  spec.seed = 7;
  auto role = [](const char* model, int max_tokens) {
    RoleSpec r;
    r.provider = "fake";
    r.model = model;
    r.max_tokens = max_tokens;
    r.pricing = Pricing{1.0, 4.0};
    return r;
  };
  spec.planner = role("planner-model", 1024);
  spec.executor = role("executor-model", 2048);
  spec.summarizer = role("summarizer-model", 512);
  spec.evaluation = {{"timeout_s", 10}};
  return spec;
}

Script MakeScript(const World& w) {
  Script s;
  s.llm = [](const ActivityRequest& a) {
    const std::string user = a.request.at("user").get<std::string>();
    ScriptedReply r;
    if (a.role == kRolePlanner) {
      // The current kernel is the first LEVEL marker in the user prompt (the
      // reference has none).
      const int level = LevelOf(user);
      r.text = "**Raise to level " + std::to_string(level + 1) + "**\nRestructure the loop so that it vectorizes.\n";
    } else if (a.role == kRoleExecutor) {
      const std::string function = FunctionIn(user);
      const int level = LevelOf(user);
      const auto [n, k] = PlanAndSample(a.activity_id);
      if (n == 0 && k == 0) {
        r.text = "Here it is:\n```cpp\n" + Kernel(function, level + 1) + "```\n";
      } else if (n == 0 && k == 1) {
        r.text = "```cpp\n" + Kernel(function + "_v2", level + 1) + "```\n";  // wrong name
      } else if (n == 1 && k == 0) {
        r.text = "I would unroll the loop by four.";  // no code block
      } else {
        r.text = "```cpp\n" + Kernel(function, level, /*slow=*/true) + "```\n";
      }
    } else {
      if (user.find("SLOW") != std::string::npos) {
        r.text =
            "**Avoid redundant passes**\nA second pass over the data doubles memory "
            "traffic.\n```cpp\nslow();\n```\n```cpp\nfast();\n```\n";
      } else {
        r.text =
            "**Vectorize the inner loop**\nContiguous loads let the compiler use SIMD.\n"
            "```cpp\nfor (...) scalar;\n```\n```cpp\nfor (...) simd;\n```\n";
      }
    }
    return r;
  };
  s.evaluate = [w](const ActivityRequest& a) {
    const std::string source = a.request.at("source").get<std::string>();
    const std::string problem = a.request.at("problem").get<std::string>();
    // As the judge: code without the problem's function (paper mode
    // evaluates it) does not link.
    if (!DefinesExternCFunction(source, problem.substr(problem.rfind('/') + 1))) {
      return json{{"status", "compile_error"}, {"compiled", false},
                  {"correct", false},          {"reason", "the kernel does not define the problem's function"},
                  {"latency", nullptr},        {"profile", json::object()}};
    }
    const double base = w.base_latency_us.at(problem);
    const int level = LevelOf(source);
    double latency = base / std::pow(kLevelFactor, level);
    if (IsSlow(source)) latency *= kLevelFactor;
    const double peak = base * w.peak_fraction;
    return json{{"status", "ok"},
                {"compiled", true},
                {"correct", true},
                {"reason", ""},
                {"latency",
                 {{"median_us", latency},
                  {"min_us", latency},
                  {"mean_us", latency},
                  {"spread", 0.01},
                  {"samples_us", {latency, latency}}}},
                {"profile",
                 {{"bytes_dram", 3670016.0 / (level + 1)},
                  {"flops", 2293760.0},
                  {"arithmetic_intensity", 0.625 * (level + 1)},
                  {"latency_us", latency}}},
                {"peak_latency_us", peak},
                {"percent_of_peak", 100.0 * peak / latency}};
  };
  return s;
}

CampaignSpec DefaultSpec(const World& w) {
  CampaignSpec spec = SmallSpec(w);
  spec.mode = kModeDefault;
  return spec;
}

Script MakeFaultyScript(const World& w) {
  Script s = MakeScript(w);
  auto llm = s.llm;
  s.llm = [llm](const ActivityRequest& a) {
    const std::string user = a.request.at("user").get<std::string>();
    const std::string system = a.request.at("system").get<std::string>();
    ScriptedReply r;
    if (a.role == kRolePlanner) {
      r = llm(a);
      if (system.find("\n## 1. ") != std::string::npos) r.text += "Used experiences: 1\n";
      return r;
    }
    if (a.role != kRoleExecutor) return llm(a);
    const std::string function = FunctionIn(user);
    const int level = LevelOf(user);  // the parent's (the first kernel shown)
    if (a.activity_id.find("/fix/") != std::string::npos) {
      std::string fixed = Kernel(function, level + 1);
      fixed.insert(fixed.find("extern"), "/* fixed: the missing semicolon */\n\n");
      r.text = "Fixed:\n```cpp\n" + fixed + "```\n";
      return r;
    }
    if (PlanAndSample(a.activity_id) == std::pair<int, int>{0, 1}) {
      std::string broken = Kernel(function, level + 1);
      broken.insert(broken.find("extern"), "// BROKEN\nint missing_semicolon = 1\n");
      r.text = "```cpp\n" + broken + "```\n";
      return r;
    }
    return llm(a);
  };
  auto evaluate = s.evaluate;
  s.evaluate = [evaluate](const ActivityRequest& a) {
    const std::string source = a.request.at("source").get<std::string>();
    if (source.find("BROKEN") == std::string::npos) return evaluate(a);
    return json{{"status", "compile_error"},
                {"compiled", false},
                {"correct", false},
                {"reason", "expected ';' after top level declarator"},
                {"error_text", "kernel.cpp:4:28: error: expected ';'\n" + std::string(10000, 'x') + "\nEND-OF-ERROR"},
                {"latency", nullptr},
                {"profile", json::object()}};
  };
  return s;
}

}  // namespace accelopt::workflows::testing
