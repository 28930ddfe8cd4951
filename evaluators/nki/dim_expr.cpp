#include "evaluators/nki/dim_expr.hpp"

#include <cctype>

namespace accelopt::eval::nki {
namespace {

class Parser {
 public:
  Parser(const std::string& s, const std::map<std::string, int64_t>& dims) : s_(s), dims_(dims) {}

  Result<int64_t> Run() {
    ACCELOPT_ASSIGN_OR_RETURN(int64_t v, Sum());
    Skip();
    if (i_ != s_.size()) return Fail(std::string("unexpected '") + s_[i_] + "'");
    return v;
  }

 private:
  Status Fail(const std::string& what) const {
    return InvalidArgument("expression '" + s_ + "': " + what + " (at offset " + std::to_string(i_) + ")");
  }
  void Skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Eat(const char* tok) {
    Skip();
    size_t n = std::char_traits<char>::length(tok);
    if (s_.compare(i_, n, tok) != 0) return false;
    i_ += n;
    return true;
  }
  Result<int64_t> Sum() {
    ACCELOPT_ASSIGN_OR_RETURN(int64_t v, Product());
    for (;;) {
      if (Eat("+")) {
        ACCELOPT_ASSIGN_OR_RETURN(int64_t r, Product());
        if (__builtin_add_overflow(v, r, &v)) return Fail("overflow");
      } else if (Eat("-")) {
        ACCELOPT_ASSIGN_OR_RETURN(int64_t r, Product());
        if (__builtin_sub_overflow(v, r, &v)) return Fail("overflow");
      } else {
        return v;
      }
    }
  }
  Result<int64_t> Product() {
    ACCELOPT_ASSIGN_OR_RETURN(int64_t v, Unary());
    for (;;) {
      if (Eat("//")) {
        ACCELOPT_ASSIGN_OR_RETURN(int64_t r, Unary());
        if (r == 0) return Fail("division by zero");
        // Python's floor division.
        int64_t q = v / r;
        if ((v % r != 0) && ((v < 0) != (r < 0))) --q;
        v = q;
      } else if (Eat("/")) {
        return Fail("'/' is true division; use '//'");
      } else if (Eat("*")) {
        ACCELOPT_ASSIGN_OR_RETURN(int64_t r, Unary());
        if (__builtin_mul_overflow(v, r, &v)) return Fail("overflow");
      } else {
        return v;
      }
    }
  }
  Result<int64_t> Unary() {
    if (Eat("-")) {
      ACCELOPT_ASSIGN_OR_RETURN(int64_t v, Unary());
      return -v;
    }
    if (Eat("+")) return Unary();
    return Atom();
  }
  Result<int64_t> Atom() {
    Skip();
    if (i_ >= s_.size()) return Fail("unexpected end");
    if (Eat("(")) {
      ACCELOPT_ASSIGN_OR_RETURN(int64_t v, Sum());
      if (!Eat(")")) return Fail("missing ')'");
      return v;
    }
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[i_] - '0', &v)) return Fail("overflow");
        ++i_;
      }
      if (i_ < s_.size() && (s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E')) return Fail("not an integer");
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
      const std::string name = s_.substr(start, i_ - start);
      auto it = dims_.find(name);
      if (it == dims_.end()) {
        i_ = start;
        return Fail("unknown name '" + name + "'");
      }
      return it->second;
    }
    return Fail(std::string("unexpected '") + c + "'");
  }

  const std::string& s_;
  const std::map<std::string, int64_t>& dims_;
  size_t i_ = 0;
};

}  // namespace

Result<int64_t> EvalDimExpr(const std::string& expr, const std::map<std::string, int64_t>& dims) {
  return Parser(expr, dims).Run();
}

bool IsPlainName(const std::string& expr) {
  size_t b = expr.find_first_not_of(' '), e = expr.find_last_not_of(' ');
  if (b == std::string::npos) return false;
  if (!(std::isalpha(static_cast<unsigned char>(expr[b])) || expr[b] == '_')) return false;
  for (size_t i = b; i <= e; ++i)
    if (!(std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '_')) return false;
  return true;
}

}  // namespace accelopt::eval::nki
