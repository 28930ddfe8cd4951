// problem: silu
// expect: static_check_failed
// reason: is not allowed
// Tries to get a file into the compiler's error message.
#include "/etc/passwd"
