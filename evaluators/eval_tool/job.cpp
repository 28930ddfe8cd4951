#include "evaluators/eval_tool/commands.hpp"

#include <iostream>

#include "base/sha256.hpp"
#include "evaluators/eval_tool/common.hpp"
#include "evaluators/eval_tool/tool_backends.hpp"

namespace po = boost::program_options;

namespace accelopt::eval_tool {

using namespace accelopt::eval;

// One evaluation as a Slurm job (evaluators/slurm/slurm_backend.hpp): the
// request (an EvalRequest as JSON) from a file, the result written
// atomically to another, naming the sha256 of the request it answers. The
// request's backend is made as run makes it (tool_backends.hpp), with the
// backend flags run takes (the Slurm executor's job_args).
// Exit 0 whenever a result was written (the candidate's failures included).
int CmdJob(Env* env, const std::vector<std::string>& args) {
  Common c;
  c.env = env;
  std::string request_path, result_path;
  BackendFlags flags;
  flags.startup_check = false;  // each job is one evaluation: the daemon's start checked the path
  po::options_description d(
      "accelopt-eval job --request FILE --result FILE [--cache-dir DIR] [--force-busy] [backend flags as run]");
  AddCommon(d, c);
  AddRunFlags(d, flags);
  d.add_options()("request", po::value(&request_path), "the EvalRequest (JSON)")(
      "result", po::value(&result_path), "where the result goes (JSON, written atomically)");
  if (ParseShowingHelp(args, d)) return 0;
  if (request_path.empty() || result_path.empty()) {
    std::cerr << d;
    return 2;
  }
  auto text = env->ReadFile(request_path);
  if (!text.ok()) {
    std::cerr << "accelopt-eval: " << text.status() << "\n";
    return 3;
  }
  EvalResult r;
  auto parsed = ParseJson(*text);
  auto req = parsed.ok() ? EvalRequest::FromJson(*parsed) : Result<EvalRequest>(parsed.status());
  c.root = "/";  // the request's problem folder is absolute on the node
  if (!req.ok()) {
    r = EvalResult::Failure(EvalStatus::kInternalError, "unreadable request: " + req.status().message());
  } else if (const ToolBackend* row = FindToolBackend(req->backend, "the request"); !row) {
    r = EvalResult::Failure(EvalStatus::kInternalError, "no backend '" + req->backend + "' on the node");
  } else if (auto backend = row->make(env, c, flags); !backend.ok()) {
    std::cerr << "accelopt-eval: " << backend.status().message() << "\n";
    r = EvalResult::Failure(EvalStatus::kInternalError,
                            "the " + req->backend + " backend on the node: " + backend.status().message());
  } else {
    r = (*backend)->Evaluate(*req, nullptr);
  }
  json out = {{"request_sha256", Sha256Hex(*text)}, {"result", r.ToJson()}};
  Status st = env->WriteFileAtomic(result_path, Dump(out));
  if (!st.ok()) {
    std::cerr << "accelopt-eval: " << st << "\n";
    return 3;
  }
  std::cerr << "accelopt-eval: " << EvalStatusName(r.status) << ": " << r.reason << "\n";
  return 0;
}

}  // namespace accelopt::eval_tool
