// expect: is not allowed: the kernel is one file
#include "/etc/passwd"
extern "C" void silu(const float* x, float* out, long M, long N) {}
