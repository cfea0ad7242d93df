// Unwinding through a patched tail exit (tail_unwind.sh), in each path its
// trampoline can take. tail_caller() keeps values in callee-saved registers,
// pops them in its epilogue and then tail-calls leaf(): its sled sits after
// the epilogue, where the compiler's CFI still places the popped registers
// in the stack slots the sled's call and the trampoline overwrite. From a
// handler running there:
//   - _Unwind_Backtrace must name the handler, the trampoline, then
//     tail_caller's caller (tail_caller has returned) up to main;
//   - a C++ exception must land in the caller's catch with its value, and
//     the caller's values in callee-saved registers must be intact;
//   - on x86-64, single-stepping (the trap flag) stops at every instruction
//     of the trampoline, the none path's included, and a backtrace from
//     the SIGTRAP handler must give the same frames at each one.
// The same for so_tail_caller() of a shared object (tail_unwind_so.cc),
// whose sled reaches the object's own forwarder (libxray-dso.a) and from it
// the program's paths or the object's dense path. Its code has no exported
// name, so the program takes their places from its arguments, NAME=hex
// offset:size, read from the object's symbol table by tail_unwind.sh.
// AArch64: clang records a tail call's sled as an exit, so the trampoline
// is __xray_FunctionExit (xr_dso_exit, xr_dso_exit_dense) and the type
// EXIT; no single-stepping there.
// "gdb" as argument: the fixed sequence tail_unwind.sh runs under gdb.
#include "xray/xray_interface.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <string>
#include <ucontext.h>
#include <unwind.h>

extern "C" {
#include "core/dispatch/handlers.h" /* runtime-internal: xr_handler_install, the paths */
#if defined(__x86_64__)
/* Runtime-internal CPU bits, cleared before an install to choose a copy of
 * the full paths (as regs.c does). */
extern uint8_t xr_cpu_lahf_sahf, xr_vector_avx512, xr_vector_avx;
#elif defined(__aarch64__)
extern uint8_t xr_cpu_sve;
#endif
void __xray_FunctionTailExit();
void __xray_FunctionExit();
/* tail_unwind_so.cc */
int so_tail_caller(int x);
extern int so_leaf_calls;
}

#define NOXRAY extern "C" [[clang::xray_never_instrument]] __attribute__((noinline))
#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))

#if defined(__x86_64__)
static const char *const kTrampoline = "__xray_FunctionTailExit";
static const char *const kSoForwarder = "xr_dso_tail_exit";
static const char *const kSoDense = "xr_dso_tail_exit_dense";
static const XRayEntryType kTailType = TAIL;
#else
static const char *const kTrampoline = "__xray_FunctionExit";
static const char *const kSoForwarder = "xr_dso_exit";
static const char *const kSoDense = "xr_dso_exit_dense";
static const XRayEntryType kTailType = EXIT;
#endif

volatile int sink;
static int leaf_calls;
/* The id the handlers act on; learn_id: take the next entry's id instead
 * (a dense id, which the program cannot compute: the driver's first event
 * is the entry of the function it calls). */
static int32_t tail_id;
static int learn_id;

/* Code without an exported name: [lo, hi) named for backtraces. */
struct range {
  const char *name;
  uintptr_t lo, hi;
};
static range ranges[3];
static int nranges;
static const range *range_of(uintptr_t ip) {
  for (int i = 0; i < nranges; i++)
    if (ip >= ranges[i].lo && ip < ranges[i].hi)
      return &ranges[i];
  return nullptr;
}

/* x, through a volatile: the compiler cannot know the result. */
NOXRAY int opaque(int x) {
  sink = x;
  return sink;
}
struct thrown {
  int value;
};
/* May throw, so that its callers keep their landing pads for the calls
 * that reach it: the handler's exception comes out of such a call. */
TRACED int leaf(int a, int b, int c, int d) {
  if (a < -1000)
    throw thrown{a};
  leaf_calls++;
  return a + b + c + d;
}
/* a, b, c live across calls: callee-saved registers, pushed in the
 * prologue and popped before the tail call. */
TRACED int tail_caller(int x) {
  int a = opaque(x), b = opaque(x + 1), c = opaque(x + 2);
  int d = opaque(a ^ b ^ c);
  return leaf(a, b, c, d);
}

/* --- Backtraces: the names of the frames, from the first one at `from`
 * (0: the first frame) up to main. */
struct trace {
  uintptr_t from; /* an exact ip (a signal frame's), or 0 */
  int started, frames;
  char names[256];
};
static const char *name_of(uintptr_t ip) {
  if (const range *r = range_of(ip))
    return r->name;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(ip), &info) == 0 || info.dli_sname == nullptr)
    return "?";
  return info.dli_sname;
}
static _Unwind_Reason_Code collect(struct _Unwind_Context *ctx, void *arg) {
  trace *t = static_cast<trace *>(arg);
  int before = 0;
  uintptr_t ip = _Unwind_GetIPInfo(ctx, &before);
  if (!t->started) {
    if (t->from != 0 && !(before && ip == t->from))
      return _URC_NO_REASON;
    t->started = 1;
  }
  /* A return address may be one past the caller's last instruction. */
  const char *name = name_of(before ? ip : ip - 1);
  size_t used = strlen(t->names);
  snprintf(t->names + used, sizeof t->names - used, "%s%s", used ? " " : "", name);
  if (strcmp(name, "main") == 0 || ++t->frames > 12)
    return _URC_END_OF_STACK;
  return _URC_NO_REASON;
}
/* Inlined: the first frame is its caller's. */
static inline __attribute__((always_inline)) void backtrace_from(uintptr_t from, trace *t) {
  memset(t, 0, sizeof *t);
  t->from = from;
  _Unwind_Backtrace(collect, t);
  sink = t->frames; /* not a tail call: the caller's frame stays */
}

/* --- Handlers: at tail_caller's tail exit, take a backtrace or throw. */
enum action { NOTHING, BACKTRACE, THROW };
static action what;
static int throw_value;
static trace handler_trace;
static int tail_events;
/* Exported (named in backtraces) and called, not tail-called, by each
 * handler, so that the handler's frame is there too. */
NOXRAY void at_tail() {
  tail_events++;
  if (what == BACKTRACE)
    backtrace_from(0, &handler_trace);
  else if (what == THROW)
    throw thrown{throw_value};
}
static inline bool is_tail(int32_t id, XRayEntryType type) {
  if (learn_id && type == ENTRY) {
    tail_id = id;
    learn_id = 0;
  }
  return id == tail_id && type == kTailType;
}
NOXRAY void full_handler(int32_t id, XRayEntryType type) {
  if (is_tail(id, type))
    at_tail();
  sink = 0;
}
NOXRAY void lean_handler(int32_t id, XRayEntryType type) {
  if (is_tail(id, type))
    at_tail();
  sink = 0;
}

/* The function under test: tail_caller or so_tail_caller. */
struct subject {
  int (*fn)(int);
  int *leaf_calls;
  const char *entry_name; /* where its tail sled arrives */
};
static const subject *current;

/* The caller: six values in callee-saved registers across the call, read
 * again in the catch. */
NOXRAY int catcher(int x) {
  int k0 = opaque(x) * 3, k1 = opaque(x) * 5 + 1, k2 = opaque(x) * 7 + 2;
  int k3 = opaque(x) * 11 + 3, k4 = opaque(x) * 13 + 4, k5 = opaque(x) * 17 + 5;
  try {
    int r = current->fn(x);
    sink = r;
    return -1;
  } catch (const thrown &t) {
    int kept = k0 == x * 3 && k1 == x * 5 + 1 && k2 == x * 7 + 2 && k3 == x * 11 + 3 &&
               k4 == x * 13 + 4 && k5 == x * 17 + 5;
    return kept ? t.value : -2;
  }
}
NOXRAY int run_backtrace(int x) {
  int r = current->fn(x);
  sink = r;
  return r;
}

#if defined(__x86_64__)
/* --- Single steps (x86-64): the trap flag set around one call; the
 * SIGTRAP handler checks every stop in the named ranges (the trampoline,
 * the object's forwarder and dense path). */
extern "C" void trap_flag_on(void), trap_flag_off(void);
__asm__(".text\n"
        "trap_flag_on:\n  pushfq\n  orl $0x100, (%rsp)\n  popfq\n  ret\n"
        "trap_flag_off:\n  pushfq\n  andl $-0x101, (%rsp)\n  popfq\n  ret\n");
static int steps, bad_steps;
static uintptr_t first_step;
static char first_bad[256];
static void on_trap(int, siginfo_t *, void *uc_void) {
  ucontext_t *uc = static_cast<ucontext_t *>(uc_void);
  uintptr_t rip = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  const range *r = range_of(rip);
  if (r == nullptr)
    return;
  if (steps++ == 0)
    first_step = rip;
  trace t;
  backtrace_from(rip, &t);
  char expected[160];
  snprintf(expected, sizeof expected, "%s run_stepped step_through run_path main", r->name);
  if (strcmp(t.names, expected) != 0 && bad_steps++ == 0)
    snprintf(first_bad, sizeof first_bad, "%s+%#lx: %s", r->name,
             static_cast<unsigned long>(rip - r->lo), t.names);
}
NOXRAY int run_stepped(int x) {
  trap_flag_on();
  int r = current->fn(x);
  trap_flag_off();
  sink = r;
  return r;
}
/* Steps through one call; the backtrace at every stop in a range must be
 * `<range> run_stepped step_through run_path main`, the first stop the
 * start of the code the sled calls. */
NOXRAY void step_through(const char *label, int expect_handler) {
  steps = bad_steps = 0;
  first_step = 0;
  what = NOTHING;
  int events = tail_events;
  run_stepped(4);
  const range *entry = nullptr;
  for (int i = 0; i < nranges; i++)
    if (strcmp(ranges[i].name, current->entry_name) == 0)
      entry = &ranges[i];
  /* The none path alone is two instructions (the dispatch jmp, ret). */
  int enough = steps >= 2 && entry != nullptr && first_step == entry->lo;
  printf("%s steps: %s%s%s\n", label, bad_steps == 0 && enough ? "every backtrace right" : "WRONG",
         bad_steps ? ", first: " : "", bad_steps ? first_bad : "");
  if (!enough || tail_events - events != expect_handler)
    printf("%s steps: %d stops, the first %s at the start of %s, %d handler calls\n", label,
           steps, entry != nullptr && first_step == entry->lo ? "" : "NOT", current->entry_name,
           tail_events - events);
}
#endif

/* One path: a backtrace and a throw from its handler, then (x86-64) steps.
 * `path` is checked for the program's trampolines (-1: not checked, the
 * object's dense path). */
NOXRAY void run_path(const char *label, int path, int has_handler) {
  if (path >= 0 &&
      (xr_trampoline_dispatch[XR_T_TAIL] != xr_trampoline_paths[XR_T_TAIL][path] ||
       xr_trampoline_dispatch[XR_T_EXIT] != xr_trampoline_paths[XR_T_EXIT][path]))
    printf("%s: the trampolines are not at path %d\n", label, path);
  if (has_handler) {
    what = BACKTRACE;
    memset(&handler_trace, 0, sizeof handler_trace);
    run_backtrace(1);
    printf("%s backtrace: %s\n", label, handler_trace.names);
    what = THROW;
    throw_value = 1000 + path;
    int leaves = *current->leaf_calls;
    int caught = catcher(2);
    printf("%s throw: %s, leaf %s\n", label,
           caught == throw_value ? "caught the value, callee-saved registers intact"
           : caught == -2        ? "caught the value, callee-saved registers LOST"
                                 : "NOT CAUGHT",
           *current->leaf_calls == leaves ? "not reached" : "reached");
  }
#if defined(__x86_64__)
  step_through(label, has_handler);
#endif
  what = NOTHING;
}

/* A copy of the full paths: CPU bits cleared for the install, as regs.c. */
#if defined(__x86_64__)
static void full_form(const char *label, int avx512, int avx, int lahf, int path) {
  uint8_t was_avx512 = xr_vector_avx512, was_avx = xr_vector_avx, was_lahf = xr_cpu_lahf_sahf;
  xr_vector_avx512 &= static_cast<uint8_t>(avx512);
  xr_vector_avx &= static_cast<uint8_t>(avx);
  xr_cpu_lahf_sahf &= static_cast<uint8_t>(lahf);
  __xray_set_handler(full_handler);
  xr_vector_avx512 = was_avx512;
  xr_vector_avx = was_avx;
  xr_cpu_lahf_sahf = was_lahf;
  run_path(label, path, 1);
}
#endif

/* The packed id of the function at fn, in any object; -1 if none. */
NOXRAY int32_t id_of(void *fn) {
  for (size_t obj = 0; obj < __xray_num_objects(); obj++)
    for (size_t id = 1; id <= __xray_max_function_id_in_object(static_cast<int32_t>(obj)); id++)
      if (__xray_function_address_in_object(static_cast<int32_t>(id), static_cast<int32_t>(obj)) ==
          reinterpret_cast<uintptr_t>(fn))
        return __xray_pack_id(static_cast<int32_t>(id), static_cast<int32_t>(obj));
  return -1;
}

/* gdb stops here, at the tail exit only. */
NOXRAY void gdb_at_tail() { sink = 0; }
NOXRAY void gdb_handler(int32_t id, XRayEntryType type) {
  if (id == tail_id && type == kTailType)
    gdb_at_tail();
  sink = 0;
}
NOXRAY int gdb_driver(int x) {
  int r = tail_caller(x);
  sink = r;
  return r;
}

/* NAME=hexoffset:size of the object holding `in`: a range. */
static int add_object_range(const char *arg, void *in) {
  Dl_info info;
  const char *eq = strchr(arg, '=');
  unsigned long off = 0, size = 0;
  if (eq == nullptr || sscanf(eq + 1, "%lx:%lu", &off, &size) != 2 || size == 0 ||
      dladdr(in, &info) == 0 || nranges == 3)
    return -1;
  char *name = strndup(arg, static_cast<size_t>(eq - arg));
  uintptr_t base = reinterpret_cast<uintptr_t>(info.dli_fbase);
  ranges[nranges++] = range{name, base + off, base + off + size};
  return 0;
}

NOXRAY int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0); /* lines written before a crash stay */
  if (__xray_patch() != SUCCESS)
    return 2;
  static const subject program = {tail_caller, &leaf_calls, kTrampoline};
  static const subject object = {so_tail_caller, &so_leaf_calls, kSoForwarder};
  current = &program;
  tail_id = id_of(reinterpret_cast<void *>(tail_caller));
  if (tail_id < 0)
    return 2;
  if (argc > 1 && strcmp(argv[1], "gdb") == 0) { /* tail_unwind.sh */
    gdb_driver(1);                                /* no handler */
    xr_handler_install(XR_SLOT_ARG0, reinterpret_cast<void *>(gdb_handler), XR_HANDLER_LEAN);
    gdb_driver(2);
    __xray_set_handler(gdb_handler);
    gdb_driver(3);
    return 0;
  }
  /* The trampoline's extent from its symbol; the object's from argv. */
  Dl_info info;
  void *sym_entry = nullptr;
  void *trampoline = reinterpret_cast<void *>(kTailType == TAIL ? __xray_FunctionTailExit
                                                                : __xray_FunctionExit);
  if (dladdr1(trampoline, &info, &sym_entry, RTLD_DL_SYMENT) == 0 || sym_entry == nullptr ||
      static_cast<const ElfW(Sym) *>(sym_entry)->st_size == 0) {
    printf("no size for %s (link with -rdynamic)\n", kTrampoline);
    return 2;
  }
  uintptr_t lo = reinterpret_cast<uintptr_t>(info.dli_saddr);
  ranges[nranges++] = range{kTrampoline, lo, lo + static_cast<const ElfW(Sym) *>(sym_entry)->st_size};
  for (int i = 1; i < argc; i++)
    if (add_object_range(argv[i], reinterpret_cast<void *>(so_tail_caller)) != 0) {
      printf("bad argument %s\n", argv[i]);
      return 2;
    }
  if (range_of(reinterpret_cast<uintptr_t>(so_tail_caller)) != nullptr || nranges != 3) {
    printf("expected the object's %s and %s as arguments\n", kSoForwarder, kSoDense);
    return 2;
  }
#if defined(__x86_64__)
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_trap;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGTRAP, &sa, nullptr);
#endif
  run_path("none", XR_PATH_NONE, 0);
  xr_handler_install(XR_SLOT_ARG0, reinterpret_cast<void *>(lean_handler), XR_HANDLER_LEAN);
  run_path("lean", XR_PATH_LEAN, 1);
#if defined(__x86_64__)
  /* Every copy of the full paths, as regs.c runs them; without AVX-512
   * (AVX) the zmm (ymm) forms repeat the narrower ones. */
  uint8_t lahf = xr_cpu_lahf_sahf, avx512 = xr_vector_avx512, avx = xr_vector_avx;
  int widest = avx512 ? XR_PATH_FULL_ZMM : avx ? XR_PATH_FULL : XR_PATH_FULL_XMM;
  int wide = avx ? XR_PATH_FULL : XR_PATH_FULL_XMM;
  full_form("full", 1, 1, 1, widest + !lahf);
  full_form("full pushfq", 1, 1, 0, widest + 1);
  full_form("full ymm", 0, 1, 1, wide + !lahf);
  full_form("full ymm pushfq", 0, 1, 0, wide + 1);
  full_form("full xmm", 0, 0, 1, XR_PATH_FULL_XMM + !lahf);
  full_form("full xmm pushfq", 0, 0, 0, XR_PATH_FULL_XMM + 1);
#else
  __xray_set_handler(full_handler);
  run_path("full", xr_cpu_sve ? XR_PATH_FULL_SVE : XR_PATH_FULL, 1);
  uint8_t sve = xr_cpu_sve;
  xr_cpu_sve = 0;
  __xray_set_handler(full_handler);
  xr_cpu_sve = sve;
  run_path("full q", XR_PATH_FULL, 1);
#endif

  /* The shared object: its forwarder to the program's paths, and its own
   * dense path for a lean handler that takes dense ids. */
  current = &object;
  tail_id = id_of(reinterpret_cast<void *>(so_tail_caller));
  __xray_remove_handler();
  run_path("object none", XR_PATH_NONE, 0);
  xr_handler_install(XR_SLOT_ARG0, reinterpret_cast<void *>(lean_handler), XR_HANDLER_LEAN);
  run_path("object lean", XR_PATH_LEAN, 1);
  xr_handler_install(XR_SLOT_ARG0, reinterpret_cast<void *>(lean_handler),
                     XR_HANDLER_LEAN | XR_HANDLER_DENSE);
  learn_id = 1;
  run_path("object dense", -1, 1);
  tail_id = id_of(reinterpret_cast<void *>(so_tail_caller));
  __xray_set_handler(full_handler);
  run_path("object full", -1, 1);
  printf("tail events: %d\n", tail_events);
  return 0;
}
