#include "evaluators/nki/venv.hpp"

#include <cctype>

#include "evaluators/nki/nki_config.hpp"

namespace accelopt::eval::nki {
namespace {

// "aws_neuronx_venv_pytorch_2_10_nxd" -> {2, 10}; the unversioned name -> {}.
bool VenvVersion(const std::string& name, std::vector<long>* out) {
  const std::string prefix = kVenvPrefix;
  if (name.rfind(prefix, 0) != 0) return false;
  std::string rest = name.substr(prefix.size());
  size_t i = 0;
  while (i < rest.size() && rest[i] == '_') {
    size_t j = i + 1;
    long v = 0;
    while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j])) && v < 100000)
      v = v * 10 + (rest[j++] - '0');
    if (j == i + 1) break;  // "_nxd": not a number
    out->push_back(v);
    i = j;
  }
  return true;
}

}  // namespace

Result<std::string> FindNeuronVenvPython(Env* env, const std::string& root) {
  auto names = env->ListDir(root);
  std::string best;
  std::vector<long> best_v;
  bool found = false;
  if (names.ok()) {
    for (const auto& n : *names) {
      std::vector<long> v;
      if (!VenvVersion(n, &v)) continue;
      const std::string python = root + "/" + n + "/bin/python";
      if (!env->IsFile(python)) continue;
      if (!found || v > best_v) {
        best = python;
        best_v = v;
        found = true;
      }
    }
  }
  if (!found) {
    return NotFound("no Neuron virtual environment " + root + "/" + kVenvPrefix +
                    "*/bin/python (set evaluators.nki.python to the Neuron SDK's interpreter)");
  }
  return best;
}

Status ResolvePython(NkiConfig* c, Env* env, const std::string& root) {
  if (c->python != "auto") return Status::Ok();
  ACCELOPT_ASSIGN_OR_RETURN(c->python, FindNeuronVenvPython(env, root));
  return Status::Ok();
}

}  // namespace accelopt::eval::nki
