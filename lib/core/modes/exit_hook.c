/* _exit and _Exit, as the program calls them: the exit policy
 * (log_registry.c) runs first, as at exit(), then the process ends. A fork
 * child that ends with _exit (the usual way: exit() would run the parent's
 * handlers and flush its stdio twice), or a program that does, keeps its
 * trace: basic mode's buffered records are appended, an FDR mode the
 * environment started writes its file, profiling writes its profile.
 * compiler-rt runs nothing at _exit: up to a buffer of records per thread
 * is lost in basic mode, everything in FDR and profiling.
 *
 * Hidden: the definition binds the calls of the executable's own code (it
 * links this archive); calls from shared libraries and libc's own go to
 * libc's _exit. Strong, so it also wins over a sanitizer's _exit
 * interceptor (a weak alias), which it then calls: TSan's turns found races
 * into exit status 66 there, ASan's runs its exit checks. A direct
 * exit_group system call, a fatal
 * signal or SIGKILL run nothing (docs/reliability.md, "Exit without
 * exit()").
 *
 * The policy is skipped, and the process just ends, when
 *  - the caller is a vfork child: it runs on its parent's memory, whose
 *    state and buffers are the parent's (its pid is not the cached one);
 *  - the calling thread is inside the tracer (a signal handler that
 *    interrupted a handler or one of its slow paths, and calls _exit): the
 *    flush would wait for locks that thread holds. Said at verbosity >= 1. */
#include "core/modes/log_registry.h"
#include "core/base/report.h"
#include "core/thread/thread.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A sanitizer runtime's _exit interceptor, when one is linked. */
extern void __interceptor__exit(int) __attribute__((weak));

static bool runs_on_own_memory(void) {
  int32_t cached = __atomic_load_n(&xr_process_pid_cache, __ATOMIC_RELAXED);
  return cached == 0 || cached == (int32_t)syscall(SYS_getpid);
}

__attribute__((visibility("hidden"), noreturn)) void _exit(int status) {
  if (runs_on_own_memory()) {
    if (__atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED))
      xr_report(XR_INFO, "_exit(%d) inside the tracer (a signal handler): "
                "the trace is not written", status);
    else
      xr_registry_exit_policy(true);
  }
  if (__interceptor__exit)
    __interceptor__exit(status);
  for (;;)
    syscall(SYS_exit_group, status);
}

__attribute__((visibility("hidden"), noreturn, alias("_exit"))) void
_Exit(int status);
