// accelopt-eval's subcommands, one file each (nki_commands.cpp holds the nki
// backend's two), dispatched from main.cpp's table. Each takes the Env main()
// chose and the arguments after the subcommand's name, prints its table or
// JSON on stdout and its messages on stderr, and returns the exit code
// (main.cpp's header lists them). Bad options throw
// boost::program_options::error (main() prints it, exit 2).
#pragma once

#include <string>
#include <vector>

#include "base/env.hpp"

namespace accelopt::eval_tool {

using Args = std::vector<std::string>;

int CmdCalibrate(Env* env, const Args& args);  // calibrate.cpp
int CmdRun(Env* env, const Args& args);        // run.cpp
int CmdCheck(Env* env, const Args& args);      // check.cpp
int CmdBaseline(Env* env, const Args& args);   // baseline.cpp
int CmdSuite(Env* env, const Args& args);      // suite.cpp
int CmdJob(Env* env, const Args& args);        // job.cpp
int CmdPrompts(Env* env, const Args& args);    // prompts.cpp
int CmdImport(Env* env, const Args& args);     // nki_commands.cpp
int CmdDoctor(Env* env, const Args& args);     // nki_commands.cpp

}  // namespace accelopt::eval_tool
