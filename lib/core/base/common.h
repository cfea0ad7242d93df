/* Shared compiler helpers for every room of the runtime. Internal. */
#ifndef XR_COMMON_H
#define XR_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Every internal symbol carries the xr_ prefix and this visibility. */
#define XR_HIDDEN __attribute__((visibility("hidden")))
#define XR_API __attribute__((visibility("default")))
#define XR_LIKELY(x) __builtin_expect(!!(x), 1)
#define XR_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define XR_NOINLINE __attribute__((noinline))
#define XR_ALWAYS_INLINE inline __attribute__((always_inline))
/* Thread-locals of the runtime live in the executable's static TLS block. */
#define XR_TLS __thread __attribute__((tls_model("initial-exec")))
#define XR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* Keeps the compiler from moving memory accesses across it; emits nothing. */
#define xr_compiler_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)
/* madvise: fault a range in writable with one call (Linux 5.14); the
 * <sys/mman.h> of older libcs lacks the name. Kernels without it say EINVAL
 * and the pages fault in one by one as usual. */
#define XR_MADV_POPULATE_WRITE 23

#endif
