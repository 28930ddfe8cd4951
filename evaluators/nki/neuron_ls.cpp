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

std::string NeuronLsCoreRange(int total) { return total == 1 ? "0" : "0-" + std::to_string(total - 1); }

}  // namespace

const char* const kNeuronLsFix =
    "set evaluators.nki.cores explicitly (e.g. \"0-31\") or install aws-neuronx-tools (neuron-ls, in "
    "/opt/aws/neuron/bin)";

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
  const std::string what = "neuron-ls JSON";
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return InvalidArgument(what + ": not JSON (" + parsed.status().message() + ")");
  // --json-output (up to 2.33): the array of devices. --output-format json
  // (2.34): an object with top-level fields for what applies to more than
  // one device; its device list is found by content (the member that is an
  // array of objects with "nc_count"), never by a guessed name.
  std::optional<int> top_lnc;
  const json* arr = &*parsed;
  if (parsed->is_object()) {
    arr = nullptr;
    std::string names;
    for (auto it = parsed->begin(); it != parsed->end(); ++it) {
      names += (names.empty() ? "" : ", ") + it.key();
      const json& m = it.value();
      if (!m.is_array() || m.empty() || !m[0].is_object() || !m[0].contains("nc_count")) continue;
      if (arr) return InvalidArgument(what + ": several members list devices ('" + it.key() + "' and another)");
      arr = &m;
    }
    if (!arr) {
      return InvalidArgument(what + ": an object whose members (" + names +
                             ") hold no array of devices with \"nc_count\" (the --output-format json of Neuron 2.34 "
                             "is read by content; this one is a layout accelopt does not know)");
    }
    for (const char* k : {"logical_neuroncore_config", "logical-neuroncore-config"}) {
      if (!parsed->contains(k)) continue;
      const json& l = (*parsed)[k];
      if (!l.is_number_integer() || (l.get<int64_t>() != 1 && l.get<int64_t>() != 2))
        return InvalidArgument(what + "." + k + ": must be 1 or 2");
      top_lnc = static_cast<int>(l.get<int64_t>());
    }
  } else if (!parsed->is_array()) {
    return InvalidArgument(what +
                           ": expected a JSON array of devices (--json-output) or an object listing them "
                           "(--output-format json), got " +
                           std::string(parsed->type_name()));
  }
  const json* j = arr;
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
      if (!ok)
        return InvalidArgument(where + ".neuroncore_ids: must list nc_count (" + std::to_string(dev.cores) +
                               ") integer core ids");
    }
    inv.devices.push_back(dev);
  }
  if (top_lnc) {
    if (inv.lnc && *inv.lnc != *top_lnc)
      return InvalidArgument(what + ": logical_neuroncore_config " + std::to_string(*top_lnc) + " at the top, " +
                             std::to_string(*inv.lnc) + " on a device");
    inv.lnc = top_lnc;
    for (auto& d : inv.devices) d.lnc = top_lnc;
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

std::string FindNeuronLs(Env* env, const std::string& path) { return FindTool(env, path, "neuron-ls"); }

Result<std::string> RunNeuronLs(Env* env, const std::string& path, std::string* flag) {
  const std::string search =
      (path.empty() ? std::string("/usr/local/bin:/usr/bin:/bin") : path) + ":/opt/aws/neuron/bin";
  const std::string exe = FindNeuronLs(env, search);
  if (exe.empty()) return NotFound("neuron-ls not found (PATH " + search + ")");
  // Capability, not version: the JSON flag up to 2.33, then the one 2.34
  // replaced it with ("Announcing end of support for the neuron-ls JSON
  // output format starting with Neuron 2.34": --output-format json).
  std::string failures;
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--json-output"}, std::vector<std::string>{"--output-format", "json"}}) {
    ProcessSpec p;
    p.argv = {exe};
    p.argv.insert(p.argv.end(), args.begin(), args.end());
    p.clear_env = true;
    p.env_set["PATH"] = search;
    p.timeout = std::chrono::milliseconds(30000);
    auto r = env->RunProcess(p);
    if (!r.ok()) return Unavailable("neuron-ls could not be started: " + r.status().message());
    const std::string name = "neuron-ls " + args[0] + (args.size() > 1 ? " " + args[1] : "");
    if (r->Succeeded()) {
      if (flag) *flag = name;
      return r->stdout_data;
    }
    const std::string last = NeuronLsLastLine(r->stderr_data);
    failures +=
        (failures.empty() ? "" : "; ") + name + " failed (" + r->Describe() + ")" + (last.empty() ? "" : ": " + last);
  }
  return Unavailable(failures);
}

Status ResolveAutoCores(NkiConfig* c, Env* env, std::string* how) {
  if (c->cores_spec != "auto") return Status::Ok();
  std::string flag;
  ACCELOPT_ASSIGN_OR_RETURN(std::string out, RunNeuronLs(env, env->GetEnvVar("PATH").value_or(""), &flag));
  ACCELOPT_ASSIGN_OR_RETURN(NeuronInventory inv, ParseNeuronLsJson(out));
  const auto visible = env->GetEnvVar("NEURON_RT_VISIBLE_CORES");
  ACCELOPT_ASSIGN_OR_RETURN(c->cores, AutoCores(inv, visible));
  if (c->lnc_spec == "auto") {
    c->lnc = inv.lnc.value_or(1);
  } else if (inv.lnc && *inv.lnc != c->lnc) {
    return Status(Code::kFailedPrecondition, "evaluators.nki.logical_nc_config is " + std::to_string(c->lnc) +
                                                 " but neuron-ls reports the "
                                                 "runtime's logical_neuroncore_config " +
                                                 std::to_string(*inv.lnc) +
                                                 ": every NEFF would fail to load (set it to \"auto\" or " +
                                                 std::to_string(*inv.lnc) + ")");
  }
  if (how) {
    *how = "auto: " + inv.Describe() + " (" + flag + ")";
    if (visible && !visible->empty()) *how += ", NEURON_RT_VISIBLE_CORES=" + *visible;
    *how += "; using " + std::to_string(c->cores.size()) + (c->cores.size() == 1 ? " core" : " cores");
    if (inv.lnc || c->lnc != 1) *how += ", logical_nc_config " + std::to_string(c->lnc);
  }
  return Status::Ok();
}

}  // namespace accelopt::eval::nki
