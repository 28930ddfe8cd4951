// Clang's thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html),
// as leveldb and abseil use them: a lock rule written as an attribute that
// clang checks at compile time (-Wthread-safety), instead of a comment. With
// GCC (the product's build) they expand to nothing; scripts/thread_safety
// (ctest thread_safety_check) compiles every file that uses base/mutex.hpp
// with clang and -Werror=thread-safety.
//
//   Mutex mu_;
//   int count_ ACCELOPT_GUARDED_BY(mu_);         // read/written only with mu_ held
//   void Bump() ACCELOPT_EXCLUDES(mu_);          // takes mu_ itself
//   void BumpLocked() ACCELOPT_REQUIRES(mu_);    // the caller holds mu_
#pragma once

#if defined(__clang__)
#define ACCELOPT_TSA(x) __attribute__((x))
#else
#define ACCELOPT_TSA(x)
#endif

#define ACCELOPT_CAPABILITY(x) ACCELOPT_TSA(capability(x))
#define ACCELOPT_SCOPED_CAPABILITY ACCELOPT_TSA(scoped_lockable)
#define ACCELOPT_GUARDED_BY(x) ACCELOPT_TSA(guarded_by(x))
#define ACCELOPT_PT_GUARDED_BY(x) ACCELOPT_TSA(pt_guarded_by(x))
#define ACCELOPT_REQUIRES(...) ACCELOPT_TSA(requires_capability(__VA_ARGS__))
#define ACCELOPT_ACQUIRE(...) ACCELOPT_TSA(acquire_capability(__VA_ARGS__))
#define ACCELOPT_RELEASE(...) ACCELOPT_TSA(release_capability(__VA_ARGS__))
#define ACCELOPT_TRY_ACQUIRE(...) ACCELOPT_TSA(try_acquire_capability(__VA_ARGS__))
#define ACCELOPT_EXCLUDES(...) ACCELOPT_TSA(locks_excluded(__VA_ARGS__))
#define ACCELOPT_NO_THREAD_SAFETY_ANALYSIS ACCELOPT_TSA(no_thread_safety_analysis)
