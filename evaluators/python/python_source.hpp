// Reading an untrusted Python module's source for the static checks of the
// Python backends (nki: evaluators/nki/static_check.hpp; triton:
// evaluators/triton/static_check.hpp): its tokens, its import statements,
// and the word lists both backends refuse. Nothing here runs the code.
//
// Thread safety: pure functions.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace accelopt::eval::python {

enum class Tok { kName, kString, kOp, kNumber, kNewline };

struct Token {
  Tok kind;
  std::string text;  // names, operators, numbers; a string literal's contents
  int line;
};

// Python tokens; comments dropped; logical newlines (outside brackets) as
// kNewline; one kNewline at the end. False (and *bad_line) on an
// unterminated string literal.
bool Tokenize(const std::string& source, std::vector<Token>* out, int* bad_line);

// An `import a.b as c, d` (one Import per module) or a `from m import x, y`
// statement (module m, names x, y; relative: `from .m import x`).
struct Import {
  int line = 0;
  bool from = false;
  bool relative = false;
  std::string module;              // "" when malformed
  std::string alias;               // import: the name it binds (c, or a for a.b)
  std::vector<std::string> names;  // from: the imported names ("*" included)
};
std::vector<Import> Imports(const std::vector<Token>& tokens);

// float16, bfloat16, fp16, bf16, half, tfloat32, tf32, float8*, fp8*
// (case-insensitive, whole words).
bool ReducedPrecisionWord(const std::string& word);
// Runs of identifier characters in a string's contents.
std::vector<std::string> Words(const std::string& s);
// __name__-shaped names.
bool IsDunder(const std::string& name);
// Builtins that reach files, code or arbitrary attributes, and the modules
// and functions for files, processes, networks, clocks and introspection.
const std::set<std::string>& ForbiddenNames();

}  // namespace accelopt::eval::python
