#include "evaluators/nki/runner_link.hpp"

namespace accelopt::eval::nki {

Result<std::vector<RunnerRecord>> ParseRecords(std::string_view data) {
  std::vector<RunnerRecord> out;
  size_t i = 0;
  while (i < data.size()) {
    if (out.size() >= 100000) return InvalidArgument("runner output: too many records");
    size_t nl = data.find('\n', i);
    if (nl == std::string_view::npos) return InvalidArgument("runner output: a record line without its newline");
    auto h = ParseJson(data.substr(i, nl - i));
    if (!h.ok() || !h->is_object() || !h->contains("type") || !(*h)["type"].is_string()) {
      return InvalidArgument("runner output: record " + std::to_string(out.size()) +
                             " is not a JSON object with a type");
    }
    i = nl + 1;
    if (h->contains("nbytes") && !(*h)["nbytes"].is_number_unsigned()) {
      return InvalidArgument("runner output: nbytes must be a non-negative integer");
    }
    // The fields the judge reads with a default (json::value, which throws
    // on a value of another type) have their types.
    for (const char* k : {"case", "index", "round", "iteration", "elements"}) {
      if (h->contains(k) && !(*h)[k].is_number_integer())
        return InvalidArgument("runner output: record " + std::to_string(out.size()) + ": " + k +
                               " must be an integer");
    }
    for (const char* k : {"dtype", "file", "run", "stage", "message", "neff", "ntff"}) {
      if (h->contains(k) && !(*h)[k].is_string())
        return InvalidArgument("runner output: record " + std::to_string(out.size()) + ": " + k + " must be a string");
    }
    if (h->contains("stand_in") && !(*h)["stand_in"].is_boolean())
      return InvalidArgument("runner output: record " + std::to_string(out.size()) +
                             ": stand_in must be true or false");
    out.push_back({std::move(*h)});
  }
  return out;
}

std::string CompileOptions(const RunnerSettings& s) {
  return "--disable-dge --logical-nc-config=" + std::to_string(s.lnc);
}

namespace {

ProcessSpec Base(const RunnerSettings& s, const std::string& work_dir, const std::atomic<bool>* cancel) {
  ProcessSpec p;
  p.clear_env = true;
  p.env_set = s.env;
  p.env_set["HOME"] = work_dir;
  p.env_set["TMPDIR"] = work_dir;
  if (!p.env_set.count("PATH")) p.env_set["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  p.env_set["PYTHONDONTWRITEBYTECODE"] = "1";
  p.cwd = work_dir;
  p.timeout = s.timeout;
  p.private_network = true;
  p.limits.core_bytes = 0;
  p.limits.open_files = 256;
  p.cancel = cancel;
  p.max_output_bytes = size_t{1} << 20;  // records only: outputs are files
  return p;
}

}  // namespace

ProcessSpec RunnerProcess(const RunnerSettings& s, const std::string& job_file, int core, const std::string& work_dir,
                          const std::atomic<bool>* cancel, const std::string& inspect_dir, int skip_warmup) {
  ProcessSpec p = Base(s, work_dir, cancel);
  p.argv = {s.python, s.runner_script, job_file};
  p.env_set["NEURON_RT_VISIBLE_CORES"] = std::to_string(core);
  p.env_set["NEURON_RT_NUM_CORES"] = "1";
  p.env_set["NEURON_LOGICAL_NC_CONFIG"] = std::to_string(s.lnc);
  p.env_set["NEURON_CC_FLAGS"] = "--auto-cast=none";
  if (!inspect_dir.empty()) {
    p.env_set["NEURON_RT_INSPECT_ENABLE"] = "1";
    p.env_set["NEURON_RT_INSPECT_DEVICE_PROFILE"] = "1";
    p.env_set["NEURON_RT_INSPECT_OUTPUT_DIR"] = inspect_dir;
    if (skip_warmup > 0) p.env_set["NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP"] = std::to_string(skip_warmup);
  }
  if (s.address_space_bytes) p.limits.address_space_bytes = s.address_space_bytes;
  return p;
}

ProcessSpec ReferenceProcess(const RunnerSettings& s, const std::string& job_file, const std::string& work_dir,
                             const std::atomic<bool>* cancel) {
  ProcessSpec p = Base(s, work_dir, cancel);
  p.argv = {s.reference_python, s.reference_script, job_file};
  return p;
}

ProcessSpec ProfilerProcess(const RunnerSettings& s, const std::string& neff, const std::string& ntff,
                            const std::string& work_dir, const std::atomic<bool>* cancel) {
  ProcessSpec p = Base(s, work_dir, cancel);
  p.argv = {s.profiler, "view", "--output-format", "summary-json", "-n", neff, "-s", ntff};
  p.max_output_bytes = 64 << 20;
  p.timeout = std::chrono::milliseconds(60000);
  return p;
}

}  // namespace accelopt::eval::nki
