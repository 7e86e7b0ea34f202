#include "CHoardSupport.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HOARD_THREAD_SANITIZER 1
#endif
#endif

#ifdef HOARD_THREAD_SANITIZER
// From compiler-rt's sanitizer/tsan_interface.h, provided by the TSan runtime.
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

void hoard_tsan_acquire(void *lock) { __tsan_acquire(lock); }
void hoard_tsan_release(void *lock) { __tsan_release(lock); }
#else
void hoard_tsan_acquire(void *lock) { (void)lock; }
void hoard_tsan_release(void *lock) { (void)lock; }
#endif
