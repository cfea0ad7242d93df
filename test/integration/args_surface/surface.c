/* Argument capture's surfaces (docs/arguments.md), in a real instrumented
 * program. argv[1] says what it does:
 *   traced N    calls lookup() N times, prints "args: <SPEC in effect>"
 *               (a run under XRAY_OPTIONS: the option's effect)
 *   api         the API: set, get, clear, refusals, exact texts
 *   hook        the tables and the hook without the trampolines: the
 *               hook called as a trampoline would (core's xr_args_hook)
 *               with known registers, into a test sink and into the
 *               program's own handlers: every value exact, plans merged
 *   bench N     the hook's cost per call with 0, 1, 3, 6 values and a
 *               string (N calls each, the fastest of 9 blocks), "ROW ns"
 *               lines; the sink's counts are checked exactly
 *   race N      the SPEC changed N times (A, B, none, ...) while threads
 *               run the hook and others start and end: every record holds
 *               the values of one SPEC, never a mix; each change is seen
 *               by a reader before the next (no timing assumed); a table
 *               freed too early would fault
 *   fork N      N fork()s while another thread changes the SPEC again and
 *               again: each child has a SPEC of the parent's (as
 *               understood) and changes it itself (a lock held at the fork
 *               would hang it: 10 s, then a failure)
 *   serve       reads "call" lines on stdin (calls lookup), answers "done";
 *               "quit" ends it: for xrayctl
 * Exits 1 with a message at the first difference. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/dispatch/hot_tables.h"
#include "core/modes/args_sink.h"
#include "xray/xray_args.h"
#include "xray/xray_interface.h"
#include "xray/xray_names.h"

static volatile long sink_word;

__attribute__((noinline)) long lookup(long a, const char *s) { return a + (s ? s[0] : 0); }
__attribute__((noinline)) long look2(long a, long b) { return a - b; }
__attribute__((noinline)) long plain(long a) { return a * 3; }
__attribute__((noinline)) double scale(double x, float y) { return x * y; }
__attribute__((noinline)) long f6(long a, long b, long c, long d, long e, long f) {
  return a + b + c + d + e + f;
}
/* compiler-rt's way: its entry is a log-args sled */
__attribute__((noinline, xray_always_instrument, xray_log_args(1))) long logged(long a) { return a ^ 5; }

static int failures;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static int32_t id_of(const char *name) {
  int32_t ids[2];
  int n = __xray_function_ids(name, ids, 2);
  if (n != 1) {
    fprintf(stderr, "surface: %d functions named %s\n", n, name);
    exit(1);
  }
  return ids[0];
}

static const char *get(void) {
  static char buf[8192];
  __xray_args_get(buf, sizeof buf);
  return buf;
}

/* ---- api ---------------------------------------------------------------- */
static void api(void) {
  char err[320];
  CHECK(strcmp(get(), "") == 0, "no SPEC at start: [%s]", get());
  CHECK(__xray_args_get(NULL, 0) == 0, "length of none");
  int s = __xray_args_set_error(" lookup@arg1 , arg2/s ;scale*@fparg1,retval/f32", err, sizeof err);
  CHECK(s == XRAY_ARGS_OK && err[0] == '\0', "set: %d [%s]", s, err);
  const char *want = "lookup@arg1/d,arg2/s;scale*@fparg1/f,retval/f32";
  CHECK(strcmp(get(), want) == 0, "get: [%s]", get());
  char small[8];
  CHECK(__xray_args_get(small, sizeof small) == strlen(want), "get's length");
  CHECK(strcmp(small, "lookup@") == 0, "get cut: [%s]", small);
  /* refused: the SPEC in effect stays, the message names the bad part */
  s = __xray_args_set_error("lookup@arg1;bad@arg1/f", err, sizeof err);
  CHECK(s == XRAY_ARGS_INVALID, "bad set: %d", s);
  CHECK(strcmp(err, "'arg1/f' in 'bad@arg1/f': argN is an integer register; /f and /f32 are "
                    "for fpargN and retval") == 0, "message: [%s]", err);
  CHECK(strcmp(get(), want) == 0, "kept after a refusal: [%s]", get());
  CHECK(__xray_args_set("x@nothing") == XRAY_ARGS_INVALID, "__xray_args_set refuses");
  CHECK(__xray_args_set_error("x@nothing", NULL, 0) == XRAY_ARGS_INVALID, "no room for err");
  CHECK(strcmp(get(), want) == 0, "still kept: [%s]", get());
  /* "" and NULL: none */
  CHECK(__xray_args_set("look2@retval/x") == XRAY_ARGS_OK, "set look2");
  CHECK(strcmp(get(), "look2@retval/x") == 0, "get look2: [%s]", get());
  CHECK(__xray_args_set("") == XRAY_ARGS_OK && strcmp(get(), "") == 0, "set \"\" clears");
  CHECK(__xray_args_set("plain@arg1") == XRAY_ARGS_OK, "set plain");
  CHECK(__xray_args_clear() == XRAY_ARGS_OK && strcmp(get(), "") == 0, "clear");
  CHECK(__xray_args_set_error(NULL, err, sizeof err) == XRAY_ARGS_OK, "set NULL");
  /* a SPEC no function matches is a SPEC */
  CHECK(__xray_args_set("no_such_function*@arg1") == XRAY_ARGS_OK, "set unmatched");
  CHECK(strcmp(get(), "no_such_function*@arg1/d") == 0, "get unmatched: [%s]", get());
  __xray_args_clear();
}

/* ---- hook ---------------------------------------------------------------- */
static struct xr_arg_call last_entry, last_exit;
static int32_t last_id;
static uintptr_t last_sp;
static long entries, exits;

static void sink_entry(int32_t id, const struct xr_arg_call *c, uintptr_t sp) {
  last_id = id;
  last_sp = sp;
  last_entry = *c;
  entries++;
}
static void sink_exit(int32_t id, const struct xr_arg_call *c, uintptr_t sp) {
  last_id = id;
  last_sp = sp;
  last_exit = *c;
  exits++;
}
static const struct xr_args_sink test_sink = {sink_entry, sink_exit};

static int32_t handled_id = -1, handled_type = -1;
static uint64_t handled_arg;
static void handler0(int32_t id, XRayEntryType type) {
  handled_id = id;
  handled_type = (int32_t)type;
}
static void handler1(int32_t id, XRayEntryType type, uint64_t arg) {
  handled_id = id;
  handled_type = (int32_t)type;
  handled_arg = arg;
}

static void value_is(const struct xr_arg_call *c, int i, const char *name, unsigned format,
                     uint64_t bits) {
  char buf[8];
  const struct xr_arg_value *v = &c->v[i];
  CHECK(i < c->count, "value %d of %d", i, c->count);
  CHECK(strcmp(xr_arg_name(v->what, buf), name) == 0, "value %d is %s, not %s", i,
        xr_arg_name(v->what, buf), name);
  CHECK(v->format == format, "%s's format %u, not %u", name, v->format, format);
  CHECK(v->bits == bits, "%s's bits %#llx, not %#llx", name, (unsigned long long)v->bits,
        (unsigned long long)bits);
}

static void string_is(const struct xr_arg_call *c, int i, unsigned status, const char *text) {
  const struct xr_arg_value *v = &c->v[i];
  CHECK(v->status == status, "string %d's status %u, not %u", i, v->status, status);
  CHECK(v->len == strlen(text) && memcmp(c->text + v->text, text, v->len) == 0,
        "string %d: [%.*s], not [%s]", i, v->len, c->text + v->text, text);
}

static void call_hook(int32_t id, int type, const struct xr_arg_regs *r) {
  xr_args_hook_fn h = xr_args_hook;
  if (h == NULL) {
    fprintf(stderr, "surface: no hook installed after a SPEC was set\n");
    exit(1);
  }
  h(id, type, r);
}

static void hook(void) {
  int32_t lookup_id = id_of("lookup"), look2_id = id_of("look2"), plain_id = id_of("plain"),
          scale_id = id_of("scale");
  /* merged in SPEC order, each value once, its first pattern's format */
  CHECK(__xray_args_set("look*@arg1/x,retval;lookup@arg2/s,arg1,fparg1/f32;"
                        "p*@retval/u;scale@fparg2,retval/f") == XRAY_ARGS_OK,
        "set the hook's SPEC");
  xr_args_sink_set(&test_sink);
  struct xr_arg_regs r = {{0xfffffffffffffffeu, (uintptr_t) "hello", 3, 4, 5, 6, 7, 8},
                          {0xdeadbeef3fc00000u, 0x8000000000000000u, 0x7ff8000000000001u},
                          0x7ffc1000};
  call_hook(lookup_id, XR_T_ENTRY, &r);
  CHECK(entries == 1 && last_id == lookup_id && last_sp == 0x7ffc1000, "lookup's entry");
  CHECK(last_entry.count == 3 && last_entry.strings == 1, "lookup: %d values, %d strings",
        last_entry.count, last_entry.strings);
  value_is(&last_entry, 0, "arg1", XR_ARGF_X, 0xfffffffffffffffeu);
  value_is(&last_entry, 1, "arg2", XR_ARGF_S, (uintptr_t) "hello");
  string_is(&last_entry, 1, XR_ARGS_OK, "hello");
  value_is(&last_entry, 2, "fparg1", XR_ARGF_F32, 0x3fc00000u); /* the low 32 bits */
  struct xr_arg_regs ret = {{42, 43}, {0xc000000000000000u, 1}, 0x7ffc1000};
  call_hook(lookup_id, XR_T_EXIT, &ret);
  CHECK(exits == 1 && last_exit.count == 1, "lookup's exit: %d values", last_exit.count);
  value_is(&last_exit, 0, "retval", XR_ARGF_D, 42);
  /* look2: the first pattern only */
  call_hook(look2_id, XR_T_ENTRY, &r);
  CHECK(last_entry.count == 1 && last_id == look2_id, "look2: %d values", last_entry.count);
  value_is(&last_entry, 0, "arg1", XR_ARGF_X, 0xfffffffffffffffeu);
  /* plain: a return value only; its entry has none */
  call_hook(plain_id, XR_T_ENTRY, &r);
  CHECK(entries == 3 && last_entry.count == 0, "plain's entry: %d values", last_entry.count);
  ret.gpr[0] = (uint64_t)-5;
  call_hook(plain_id, XR_T_EXIT, &ret);
  value_is(&last_exit, 0, "retval", XR_ARGF_U, (uint64_t)-5);
  /* scale: fparg2 exactly (-0.0), retval/f from the floating-point register */
  call_hook(scale_id, XR_T_ENTRY, &r);
  value_is(&last_entry, 0, "fparg2", XR_ARGF_F, 0x8000000000000000u);
  call_hook(scale_id, XR_T_EXIT, &ret);
  value_is(&last_exit, 0, "retval", XR_ARGF_F, 0xc000000000000000u);
  /* strings that cannot be read, and a NULL */
  r.gpr[1] = 0;
  call_hook(lookup_id, XR_T_ENTRY, &r);
  string_is(&last_entry, 1, XR_ARGS_NULL, "");
  r.gpr[1] = 16;
  call_hook(lookup_id, XR_T_ENTRY, &r);
  string_is(&last_entry, 1, XR_ARGS_UNREADABLE, "");
  /* a log-args sled of a function with a plan: the sink, as an entry */
  r.gpr[1] = (uintptr_t) "hello";
  call_hook(lookup_id, XR_T_ARG, &r);
  CHECK(entries == 7 && last_entry.count == 3, "lookup's log-args entry");
  /* ... and of one without: its arg1 handler (none here: the arg0 one) */
  int32_t f6_id = id_of("f6");
  CHECK(__xray_set_handler(handler0) == 1, "set handler");
  call_hook(f6_id, XR_T_ARG, &r);
  CHECK(entries == 7 && handled_id == f6_id && handled_type == XR_T_ARG,
        "f6's log-args event to the arg0 handler: %d %d", handled_id, handled_type);
  CHECK(__xray_set_handler_arg1(handler1) == 1, "set arg1 handler");
  call_hook(f6_id, XR_T_ARG, &r);
  CHECK(handled_type == XR_T_ARG && handled_arg == 0xfffffffffffffffeu,
        "f6's log-args event to the arg1 handler: %d %#llx", handled_type,
        (unsigned long long)handled_arg);
  /* no sink: the program's handler, as the usual trampoline calls it */
  xr_args_sink_set(NULL);
  handled_id = handled_type = -1;
  call_hook(plain_id, XR_T_EXIT, &ret);
  CHECK(handled_id == plain_id && handled_type == XR_T_EXIT && exits == 3,
        "plain's exit to the handler: %d %d", handled_id, handled_type);
  handled_arg = 0;
  call_hook(lookup_id, XR_T_ARG, &r);
  CHECK(handled_id == lookup_id && handled_type == XR_T_ARG &&
            handled_arg == 0xfffffffffffffffeu, "lookup's log-args event, no sink");
  __xray_remove_handler_arg1();
  __xray_remove_handler();
  /* a function with no plan, through the sink: an entry with no value */
  xr_args_sink_set(&test_sink);
  call_hook(f6_id, XR_T_ENTRY, &r);
  CHECK(entries == 8 && last_id == f6_id && last_entry.count == 0, "f6: no value");
  /* a new SPEC: the next event reads it; none: no value */
  CHECK(__xray_args_set("lookup@arg2/u") == XRAY_ARGS_OK, "set again");
  call_hook(lookup_id, XR_T_ENTRY, &r);
  CHECK(last_entry.count == 1, "new SPEC: %d values", last_entry.count);
  value_is(&last_entry, 0, "arg2", XR_ARGF_U, (uintptr_t) "hello");
  CHECK(__xray_args_clear() == XRAY_ARGS_OK, "clear");
  call_hook(lookup_id, XR_T_ENTRY, &r);
  CHECK(entries == 10 && last_entry.count == 0, "cleared: %d values", last_entry.count);
  /* an xray_log_args function: the argument trampoline's entry serves its
   * log-args sled too; with a plan, its values to the sink; without one (a
   * sled not yet retargeted), the usual log-args way: the arg1 handler */
  int32_t logged_id = id_of("logged");
  CHECK(__xray_args_set("logged@arg1/x,arg2;lookup@arg1") == XRAY_ARGS_OK, "set logged");
  call_hook(logged_id, XR_T_ENTRY, &r);
  CHECK(entries == 11 && last_id == logged_id && last_entry.count == 2, "logged's values");
  value_is(&last_entry, 0, "arg1", XR_ARGF_X, 0xfffffffffffffffeu);
  CHECK(__xray_set_handler_arg1(handler1) == 1, "set arg1 handler");
  CHECK(__xray_args_set("lookup@arg1") == XRAY_ARGS_OK, "set without logged");
  handled_id = handled_type = -1;
  handled_arg = 0;
  call_hook(logged_id, XR_T_ENTRY, &r);
  CHECK(entries == 11 && handled_id == logged_id && handled_type == XR_T_ARG &&
            handled_arg == 0xfffffffffffffffeu,
        "logged without a plan: the arg1 handler (%d %d %#llx)", handled_id, handled_type,
        (unsigned long long)handled_arg);
  CHECK(__xray_args_clear() == XRAY_ARGS_OK, "clear again");
  handled_id = -1;
  call_hook(logged_id, XR_T_ENTRY, &r);
  CHECK(entries == 11 && handled_id == logged_id && handled_type == XR_T_ARG,
        "logged, no SPEC: the arg1 handler (%d %d)", handled_id, handled_type);
  __xray_remove_handler_arg1();
  call_hook(logged_id, XR_T_ENTRY, &r); /* no arg1 handler: the sink */
  CHECK(entries == 11, "logged, no handler: nothing (%ld)", entries);
  xr_args_sink_set(NULL);
}

/* ---- bench ---------------------------------------------------------------- */
static void counting_entry(int32_t id, const struct xr_arg_call *c, uintptr_t sp) {
  (void)id;
  (void)sp;
  entries += 1 + c->count;
}
static const struct xr_args_sink counting_sink = {counting_entry, sink_exit};

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void bench_row(const char *name, const char *spec, int32_t id, long n, int values) {
  if (__xray_args_set(spec) != XRAY_ARGS_OK) {
    fprintf(stderr, "surface: SPEC '%s' refused\n", spec);
    exit(1);
  }
  struct xr_arg_regs r = {{1, 2, 3, 4, 5, 6, 0, 0}, {0}, 0x7ffc1000};
  r.gpr[0] = (uintptr_t) "a string of some thirty bytes.";
  xr_args_hook_fn h = xr_args_hook;
  double best = 1e30;
  for (int b = 0; b < 9; b++) {
    entries = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
      h(id, XR_T_ENTRY, &r);
    double ns = (now_ns() - t0) / (double)n;
    best = ns < best ? ns : best;
    CHECK(entries == n * (1 + values), "%s: %ld counted, not %ld", name, entries,
          n * (1 + values));
  }
  printf("%s %.1f\n", name, best);
}

static void bench(long n) {
  xr_args_sink_set(&counting_sink);
  int32_t id = id_of("f6");
  bench_row("0-values", "f6@retval", id, n, 0);
  bench_row("1-value", "f6@arg1", id, n, 1);
  bench_row("3-values", "f6@arg1,arg2,arg3", id, n, 3);
  bench_row("6-values", "f6@arg1,arg2,arg3,arg4,arg5,arg6", id, n, 6);
  bench_row("string", "f6@arg1/s", id, n, 1);
  xr_args_sink_set(NULL);
  __xray_args_clear();
}

/* ---- race ------------------------------------------------------------------ */
enum { SEEN_NONE = 1, SEEN_A = 2, SEEN_B = 4 };
static int race_seen, race_mixed, race_stop;
static int32_t race_id;

static bool is_value(const struct xr_arg_value *v, const char *name, unsigned format,
                     uint64_t bits) {
  char buf[8];
  return strcmp(xr_arg_name(v->what, buf), name) == 0 && v->format == format && v->bits == bits;
}

/* A: f6@arg1,arg2; B: f6@arg3/x,arg4/x,arg5/x; none: nothing. */
static void race_entry(int32_t id, const struct xr_arg_call *c, uintptr_t sp) {
  (void)sp;
  int kind = 0;
  if (id == race_id && c->count == 0)
    kind = SEEN_NONE;
  else if (id == race_id && c->count == 2 && is_value(&c->v[0], "arg1", XR_ARGF_D, 1) &&
           is_value(&c->v[1], "arg2", XR_ARGF_D, 2))
    kind = SEEN_A;
  else if (id == race_id && c->count == 3 && is_value(&c->v[0], "arg3", XR_ARGF_X, 3) &&
           is_value(&c->v[1], "arg4", XR_ARGF_X, 4) && is_value(&c->v[2], "arg5", XR_ARGF_X, 5))
    kind = SEEN_B;
  if (kind == 0)
    __atomic_fetch_add(&race_mixed, 1, __ATOMIC_RELAXED);
  else
    __atomic_fetch_or(&race_seen, kind, __ATOMIC_RELAXED);
}
static const struct xr_args_sink race_sink = {race_entry, sink_exit};

static void race_calls(long n) {
  struct xr_arg_regs r = {{1, 2, 3, 4, 5, 6, 0, 0}, {0}, 0x7ffc1000};
  xr_args_hook_fn h = xr_args_hook;
  for (long i = 0; n < 0 ? !__atomic_load_n(&race_stop, __ATOMIC_RELAXED) : i < n; i++)
    h(race_id, XR_T_ENTRY, &r);
}
static void *race_reader(void *arg) {
  (void)arg;
  race_calls(-1);
  return NULL;
}
static void *race_short(void *arg) {
  (void)arg;
  race_calls(100);
  return NULL;
}
/* Threads that read a few times and end, again and again. */
static void *race_churn(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
    pthread_t t;
    if (pthread_create(&t, NULL, race_short, NULL) == 0)
      pthread_join(t, NULL);
  }
  return NULL;
}

/* Sets spec, then waits (10 s at most: a hang, not a timing) until a
 * reader's record shows it. */
static void race_set(const char *spec, int kind) {
  if (__xray_args_set(spec) != XRAY_ARGS_OK) {
    fprintf(stderr, "surface: SPEC '%s' refused\n", spec);
    exit(1);
  }
  __atomic_fetch_and(&race_seen, ~kind, __ATOMIC_RELAXED);
  for (int i = 0; i < 100000 && !(__atomic_load_n(&race_seen, __ATOMIC_RELAXED) & kind); i++)
    usleep(100);
  CHECK(__atomic_load_n(&race_seen, __ATOMIC_RELAXED) & kind, "'%s' never seen", spec);
}

static void race(long n) {
  race_id = id_of("f6");
  __xray_args_set("f6@arg1,arg2");
  xr_args_sink_set(&race_sink);
  enum { READERS = 3 };
  pthread_t t[READERS + 1];
  for (int i = 0; i < READERS; i++)
    pthread_create(&t[i], NULL, race_reader, NULL);
  pthread_create(&t[READERS], NULL, race_churn, NULL);
  for (long i = 0; i < n && failures == 0; i++) {
    race_set("f6@arg3/x,arg4/x,arg5/x", SEEN_B);
    race_set("f6@arg1,arg2", SEEN_A);
    race_set("", SEEN_NONE);
  }
  __atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
  for (int i = 0; i <= READERS; i++)
    pthread_join(t[i], NULL);
  CHECK(race_mixed == 0, "%d records mixed two SPECs (or took another's values)", race_mixed);
  xr_args_sink_set(NULL);
}

/* ---- fork -------------------------------------------------------------------- */
static int forks_stop;

static void *changer(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&forks_stop, __ATOMIC_RELAXED)) {
    __xray_args_set("lookup@arg1,arg2/s");
    __xray_args_set("plain@retval/x");
  }
  return NULL;
}

static void forks(long n) {
  pthread_t t;
  __xray_args_set("plain@retval/x");
  pthread_create(&t, NULL, changer, NULL);
  for (long i = 0; i < n; i++) {
    pid_t child = fork();
    if (child == 0) {
      const char *spec = get();
      int bad = strcmp(spec, "lookup@arg1/d,arg2/s") != 0 && strcmp(spec, "plain@retval/x") != 0;
      bad |= __xray_args_set("look2@arg2/u") != XRAY_ARGS_OK;
      bad |= strcmp(get(), "look2@arg2/u") != 0;
      _exit(bad);
    }
    int status = -1;
    for (int waited = 0; waited < 100000 && waitpid(child, &status, WNOHANG) == 0; waited++)
      usleep(100);
    if (status == -1) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      CHECK(0, "fork %ld: the child hung changing the SPEC", i);
      break;
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork %ld: the child's SPEC", i);
  }
  __atomic_store_n(&forks_stop, 1, __ATOMIC_RELAXED);
  pthread_join(t, NULL);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *what = argc > 1 ? argv[1] : "";
  if (strcmp(what, "traced") == 0) {
    long n = argc > 2 ? atol(argv[2]) : 1;
    for (long i = 0; i < n; i++)
      sink_word += lookup(i, "x");
    printf("args: %s\n", get());
  } else if (strcmp(what, "api") == 0) {
    api();
  } else if (strcmp(what, "hook") == 0) {
    hook();
  } else if (strcmp(what, "bench") == 0) {
    bench(argc > 2 ? atol(argv[2]) : 100000);
  } else if (strcmp(what, "fork") == 0) {
    forks(argc > 2 ? atol(argv[2]) : 20);
  } else if (strcmp(what, "race") == 0) {
    race(argc > 2 ? atol(argv[2]) : 100);
  } else if (strcmp(what, "serve") == 0) {
    char line[64];
    printf("ready %ld\n", (long)getpid());
    while (fgets(line, sizeof line, stdin) && strncmp(line, "quit", 4) != 0) {
      sink_word += lookup(1, "served") + look2(2, 1) + plain(3) + (long)scale(1.5, 2.0f) +
                   f6(1, 2, 3, 4, 5, 6);
      printf("done\n");
    }
  } else {
    fprintf(stderr, "usage: surface traced N | api | hook | bench N | race N | fork N | serve\n");
    return 2;
  }
  if (failures)
    return 1;
  printf("%s: ok\n", what);
  return 0;
}
