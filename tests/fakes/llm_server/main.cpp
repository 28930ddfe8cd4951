// fake-llm-server: the fake LLM server as a standalone program, for
// black-box tests of the daemon and the demo. TEST TOOL ONLY (never installed).
//
//   fake-llm-server --script FILE [--port N]
// Prints the port it listens on (one line, stdout), then serves until
// SIGTERM/SIGINT. Exit codes: 0 after a signal, 2 on bad arguments or script.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "base/json.hpp"
#include "tests/fakes/llm_server/fake_llm_server.hpp"

int main(int argc, char** argv) {
  std::string script_path;
  int port = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--script" && i + 1 < argc) {
      script_path = argv[++i];
    } else if (a == "--port" && i + 1 < argc) {
      port = std::atoi(argv[++i]);
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: fake-llm-server --script FILE [--port N]\n"
          "A fake OpenAI/Anthropic/Bedrock server for tests; prints its port.\n");
      return 0;
    } else {
      std::fprintf(stderr, "fake-llm-server: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (script_path.empty() || port < 0 || port > 65535) {
    std::fprintf(stderr, "usage: fake-llm-server --script FILE [--port N]\n");
    return 2;
  }
  auto script = accelopt::ReadJsonFile(script_path);
  if (!script.ok()) {
    std::fprintf(stderr, "fake-llm-server: %s\n", script.status().ToString().c_str());
    return 2;
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // before any thread starts
  try {
    accelopt::fakes::FakeLlmServer server(*script, static_cast<uint16_t>(port));
    std::cout << server.port() << std::endl;
    int sig = 0;
    sigwait(&set, &sig);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
