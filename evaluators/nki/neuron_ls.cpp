#include "evaluators/nki/neuron_ls.hpp"

#include <algorithm>
#include <set>

#include "base/json.hpp"
#include "evaluators/nki/core_pool.hpp"

namespace accelopt::eval::nki {
namespace {

// The last non-empty line of a tool's stderr, for messages.
std::string NeuronLsLastLine(const std::string& s) {
  const size_t e = s.find_last_not_of("\n\r ");
  if (e == std::string::npos) return "";
  const size_t b = s.rfind('\n', e);
  std::string line = s.substr(b == std::string::npos ? 0 : b + 1, e - (b == std::string::npos ? 0 : b + 1) + 1);
  return line.size() > 200 ? line.substr(0, 200) : line;
}

std::string NeuronLsCoreRange(int total) {
  return total == 1 ? "0" : "0-" + std::to_string(total - 1);
}

}  // namespace

const char* const kNeuronLsFix =
    "set evaluators.nki.cores explicitly (e.g. \"0-31\") or install aws-neuronx-tools (neuron-ls, in /opt/aws/neuron/bin)";

std::string NeuronInventory::Describe() const {
  bool same = true;
  for (const auto& d : devices) same &= d.cores == devices.front().cores;
  std::string s = std::to_string(devices.size()) + (devices.size() == 1 ? " Neuron device" : " Neuron devices");
  if (same) {
    s += " x " + std::to_string(devices.front().cores) + " NeuronCores";
  } else {
    std::string parts;
    for (const auto& d : devices) parts += (parts.empty() ? "" : "+") + std::to_string(d.cores);
    s += " with " + parts + " NeuronCores";
  }
  s += " = " + std::to_string(total_cores);
  if (lnc) s += " logical (LNC=" + std::to_string(*lnc) + ")";
  return s;
}

Result<NeuronInventory> ParseNeuronLsJson(const std::string& text) {
  const std::string what = "neuron-ls --json-output";
  auto j = ParseJson(text);
  if (!j.ok()) return InvalidArgument(what + ": not JSON (" + j.status().message() + ")");
  if (!j->is_array()) {
    return InvalidArgument(what + ": expected a JSON array of devices, got " + std::string(j->type_name()) +
                           " (Neuron 2.34 replaced --json-output with --output-format json, which accelopt does not "
                           "read yet)");
  }
  if (j->empty()) return InvalidArgument(what + ": no Neuron devices listed");
  NeuronInventory inv;
  std::set<int> seen;
  for (size_t i = 0; i < j->size(); ++i) {
    const json& d = (*j)[i];
    const std::string where = what + ": device [" + std::to_string(i) + "]";
    if (!d.is_object()) return InvalidArgument(where + ": must be an object");
    NeuronDevice dev;
    dev.index = static_cast<int>(i);
    if (d.contains("neuron_device")) {
      if (!d["neuron_device"].is_number_integer() || d["neuron_device"].get<int64_t>() < 0 ||
          d["neuron_device"].get<int64_t>() > 4095)
        return InvalidArgument(where + ".neuron_device: must be an integer 0..4095");
      dev.index = static_cast<int>(d["neuron_device"].get<int64_t>());
    }
    if (!seen.insert(dev.index).second)
      return InvalidArgument(where + ".neuron_device: device " + std::to_string(dev.index) + " is listed twice");
    if (!d.contains("nc_count")) return InvalidArgument(where + ": no \"nc_count\" (its number of NeuronCores)");
    if (!d["nc_count"].is_number_integer() || d["nc_count"].get<int64_t>() < 1 || d["nc_count"].get<int64_t>() > 64)
      return InvalidArgument(where + ".nc_count: must be an integer 1..64");
    dev.cores = static_cast<int>(d["nc_count"].get<int64_t>());
    if (d.contains("logical_neuroncore_config")) {
      const json& l = d["logical_neuroncore_config"];
      if (!l.is_number_integer() || (l.get<int64_t>() != 1 && l.get<int64_t>() != 2))
        return InvalidArgument(where + ".logical_neuroncore_config: must be 1 or 2");
      dev.lnc = static_cast<int>(l.get<int64_t>());
      if (inv.lnc && *inv.lnc != *dev.lnc)
        return InvalidArgument(where + ".logical_neuroncore_config: " + std::to_string(*dev.lnc) +
                               ", another device has " + std::to_string(*inv.lnc));
      inv.lnc = dev.lnc;
    }
    if (d.contains("neuroncore_ids")) {
      const json& ids = d["neuroncore_ids"];
      bool ok = ids.is_array() && static_cast<int>(ids.size()) == dev.cores;
      for (size_t k = 0; ok && k < ids.size(); ++k) ok = ids[k].is_number_integer();
      if (!ok) return InvalidArgument(where + ".neuroncore_ids: must list nc_count (" + std::to_string(dev.cores) +
                                      ") integer core ids");
    }
    inv.devices.push_back(dev);
  }
  std::sort(inv.devices.begin(), inv.devices.end(),
            [](const NeuronDevice& a, const NeuronDevice& b) { return a.index < b.index; });
  for (const auto& d : inv.devices) inv.total_cores += d.cores;
  return inv;
}

Result<std::vector<int>> AutoCores(const NeuronInventory& inv, const std::optional<std::string>& visible) {
  std::vector<int> out;
  if (!visible || visible->empty()) {
    for (int c = 0; c < inv.total_cores; ++c) out.push_back(c);
    return out;
  }
  auto listed = ParseCoreList(*visible);
  if (!listed.ok()) {
    return InvalidArgument("NEURON_RT_VISIBLE_CORES '" + *visible + "': not a core list (e.g. \"0-3\" or \"0,2\")");
  }
  for (int c : *listed) {
    if (c >= inv.total_cores) {
      return InvalidArgument("NEURON_RT_VISIBLE_CORES '" + *visible + "' names NeuronCore " + std::to_string(c) +
                             " but neuron-ls reports " + inv.Describe() + " (cores " +
                             NeuronLsCoreRange(inv.total_cores) + ")");
    }
  }
  return *listed;
}

std::string FindNeuronLs(Env* env, const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    if (!dir.empty() && env->IsFile(dir + "/neuron-ls")) return dir + "/neuron-ls";
    start = end + 1;
  }
  return "";
}

Result<std::string> RunNeuronLs(Env* env, const std::string& path) {
  ProcessSpec p;
  const std::string search =
      (path.empty() ? std::string("/usr/local/bin:/usr/bin:/bin") : path) + ":/opt/aws/neuron/bin";
  const std::string exe = FindNeuronLs(env, search);
  if (exe.empty()) return NotFound("neuron-ls not found (PATH " + search + ")");
  p.argv = {exe, "--json-output"};
  p.clear_env = true;
  p.env_set["PATH"] = search;
  p.timeout = std::chrono::milliseconds(30000);
  auto r = env->RunProcess(p);
  if (!r.ok()) return Unavailable("neuron-ls could not be started: " + r.status().message());
  if (!r->Succeeded()) {
    const std::string last = NeuronLsLastLine(r->stderr_data);
    return Unavailable("neuron-ls --json-output failed (" + r->Describe() + ")" + (last.empty() ? "" : ": " + last));
  }
  return r->stdout_data;
}

Status ResolveAutoCores(NkiConfig* c, Env* env, std::string* how) {
  if (c->cores_spec != "auto") return Status::Ok();
  ACCELOPT_ASSIGN_OR_RETURN(std::string out, RunNeuronLs(env, env->GetEnvVar("PATH").value_or("")));
  ACCELOPT_ASSIGN_OR_RETURN(NeuronInventory inv, ParseNeuronLsJson(out));
  const auto visible = env->GetEnvVar("NEURON_RT_VISIBLE_CORES");
  ACCELOPT_ASSIGN_OR_RETURN(c->cores, AutoCores(inv, visible));
  if (c->lnc_spec == "auto") {
    c->lnc = inv.lnc.value_or(1);
  } else if (inv.lnc && *inv.lnc != c->lnc) {
    return Status(Code::kFailedPrecondition,
                  "evaluators.nki.logical_nc_config is " + std::to_string(c->lnc) + " but neuron-ls reports the "
                  "runtime's logical_neuroncore_config " + std::to_string(*inv.lnc) +
                  ": every NEFF would fail to load (set it to \"auto\" or " + std::to_string(*inv.lnc) + ")");
  }
  if (how) {
    *how = "auto: " + inv.Describe() + " (neuron-ls)";
    if (visible && !visible->empty()) *how += ", NEURON_RT_VISIBLE_CORES=" + *visible;
    *how += "; using " + std::to_string(c->cores.size()) + (c->cores.size() == 1 ? " core" : " cores");
    if (inv.lnc || c->lnc != 1) *how += ", logical_nc_config " + std::to_string(c->lnc);
  }
  return Status::Ok();
}

}  // namespace accelopt::eval::nki
