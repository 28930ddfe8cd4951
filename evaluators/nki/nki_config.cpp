#include "evaluators/nki/nki_config.hpp"

#include "evaluators/nki/core_pool.hpp"
#include "evaluators/nki/roofline.hpp"

namespace accelopt::eval::nki {

const std::vector<std::string>& NkiConfig::Keys() {
  static const std::vector<std::string> k = {
      "python",   "cores",    "generation",        "reference_python",   "runner_dir",
      "profiler", "work_dir", "logical_nc_config", "allow_test_stand_in"};
  return k;
}

Result<NkiConfig> NkiConfig::FromJson(const json& j, const std::string& where) {
  NkiConfig c;
  for (const auto& key : Keys()) {
    if (!j.contains(key) || key == "allow_test_stand_in") continue;
    if (!j[key].is_string() || j[key].get<std::string>().empty()) {
      return InvalidArgument(where + "." + key + ": must be a non-empty string");
    }
  }
  auto str = [&](const char* key, std::string* out) {
    if (j.contains(key)) *out = j[key].get<std::string>();
  };
  str("python", &c.python);
  str("cores", &c.cores_spec);
  str("generation", &c.generation);
  str("reference_python", &c.reference_python);
  str("runner_dir", &c.runner_dir);
  str("profiler", &c.profiler);
  str("work_dir", &c.work_dir);
  str("logical_nc_config", &c.lnc_spec);
  if (j.contains("allow_test_stand_in")) {
    if (!j["allow_test_stand_in"].is_boolean())
      return InvalidArgument(where + ".allow_test_stand_in: must be true or false");
    c.allow_test_stand_in = j["allow_test_stand_in"].get<bool>();
  }
  if (c.lnc_spec != "auto") {
    if (c.lnc_spec != "1" && c.lnc_spec != "2") {
      return InvalidArgument(where +
                             ".logical_nc_config: must be \"auto\", \"1\" or \"2\" (the Neuron SDK supports an "
                             "LNC degree of 1 or 2)");
    }
    c.lnc = c.lnc_spec == "2" ? 2 : 1;
  }
  if (c.python.empty()) c.python = "auto";  // the newest /opt/aws_neuronx_venv_pytorch* (venv.hpp)
  if (!c.auto_cores()) {
    auto cores = ParseCoreList(c.cores_spec);
    if (!cores.ok()) return cores.status();
    c.cores = *cores;
  }
  if (auto g = FindGeneration(c.generation); !g.ok()) return g.status().WithContext(where + ".generation");
  return c;
}

}  // namespace accelopt::eval::nki
