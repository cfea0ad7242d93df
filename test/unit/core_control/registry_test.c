/* log_registry.c against fake modes and a fake handler table: every status
 * for every call order, select vs init_mode, handler installation, buffer
 * iteration, limits, and the start from XRAY_OPTIONS flags. The real
 * end-to-end behaviour is in test/integration/core_control/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "capture.h"
#include "core/dispatch/handlers.h"
#include "core/modes/log_registry.h"
#include "core/options/options.h"
#include "core/base/report.h"

/* ---- fake handler slots (handlers.c is not linked into this test) ------- */
static void *slot_fn[XR_SLOT_COUNT];
static unsigned slot_flags[XR_SLOT_COUNT];
static int installs;
void xr_handler_install(unsigned slot, void *fn, unsigned flags) {
  slot_fn[slot] = fn;
  slot_flags[slot] = flags;
  installs++;
}

/* ---- fake modes with FDR-like state machines ---------------------------- */
static int tell_fd = -1; /* flushes report their status here when >= 0 */
struct fake {
  XRayLogInitStatus state;
  int inits, finalizes, flushes;
  size_t last_bufsz, last_maxbufs, last_argsz;
  char last_config[64];
};

#define FAKE_MODE(tag)                                                        \
  static struct fake tag;                                                     \
  static XRayLogInitStatus tag##_init(size_t b, size_t m, void *a, size_t n) { \
    tag.inits++;                                                              \
    tag.last_bufsz = b;                                                       \
    tag.last_maxbufs = m;                                                     \
    tag.last_argsz = n;                                                       \
    snprintf(tag.last_config, sizeof tag.last_config, "%s",                   \
             a ? (const char *)a : "(null)");                                 \
    if (tag.state != XRAY_LOG_UNINITIALIZED)                                  \
      return tag.state;                                                       \
    return tag.state = XRAY_LOG_INITIALIZED;                                  \
  }                                                                           \
  static XRayLogInitStatus tag##_finalize(void) {                             \
    tag.finalizes++;                                                          \
    if (tell_fd >= 0 && write(tell_fd, "Z", 1) != 1)                          \
      abort();                                                                \
    if (tag.state != XRAY_LOG_INITIALIZED)                                    \
      return tag.state;                                                       \
    return tag.state = XRAY_LOG_FINALIZED;                                    \
  }                                                                           \
  static void tag##_handler(int32_t id, XRayEntryType t) {                    \
    (void)id;                                                                 \
    (void)t;                                                                  \
  }                                                                           \
  static XRayLogFlushStatus tag##_flush(void) {                               \
    tag.flushes++;                                                            \
    if (tag.state != XRAY_LOG_FINALIZED)                                      \
      return XRAY_LOG_NOT_FLUSHING;                                           \
    tag.state = XRAY_LOG_UNINITIALIZED;                                       \
    if (tell_fd >= 0 && write(tell_fd, "F", 1) != 1)                          \
      abort();                                                                \
    return XRAY_LOG_FLUSHED;                                                  \
  }                                                                           \
  __attribute__((unused)) static const struct XRayLogImpl tag##_impl_value = {                        \
      tag##_init, tag##_finalize, tag##_handler, tag##_flush};

FAKE_MODE(basic)
FAKE_MODE(fdr)
FAKE_MODE(user)
FAKE_MODE(other)

/* The built-ins this test links; xray-profiling stays absent (weak NULL). */
const struct XRayLogImpl xr_basic_impl = {basic_init, basic_finalize,
                                          basic_handler, basic_flush};
const struct XRayLogImpl xr_fdr_impl = {fdr_init, fdr_finalize, fdr_handler,
                                        fdr_flush};

static const struct XRayLogImpl incomplete = {NULL, NULL, NULL, NULL};

static int reset(void **state) {
  (void)state;
  __xray_set_log_impl(incomplete); /* no impl, no mode, no handlers */
  __xray_log_remove_buffer_iterator();
  memset(&basic, 0, sizeof basic);
  memset(&fdr, 0, sizeof fdr);
  memset(&user, 0, sizeof user);
  memset(&other, 0, sizeof other);
  memset(slot_fn, 0, sizeof slot_fn);
  installs = 0;
  xr_verbosity = 0;
  return 0;
}

static void nothing_selected(void **state) {
  (void)state;
  assert_null(__xray_log_get_current_mode());
  assert_int_equal(__xray_log_init(1, 2, NULL, 0), XRAY_LOG_UNINITIALIZED);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_UNINITIALIZED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_NOT_FLUSHING);
  assert_int_equal(__xray_log_process_buffers(NULL), XRAY_LOG_NOT_FLUSHING);
}

static void register_statuses(void **state) {
  (void)state;
  struct XRayLogImpl partial = user_impl_value;
  partial.flush_log = NULL;
  assert_int_equal(__xray_log_register_mode("partial", partial),
                   XRAY_INCOMPLETE_IMPL);
  assert_int_equal(__xray_log_register_mode(NULL, user_impl_value),
                   XRAY_INCOMPLETE_IMPL);
  assert_int_equal(__xray_log_register_mode("xray-fdr", user_impl_value),
                   XRAY_DUPLICATE_MODE);
  assert_int_equal(__xray_log_register_mode("xray-basic", user_impl_value),
                   XRAY_DUPLICATE_MODE);
  assert_int_equal(__xray_log_register_mode("user", user_impl_value),
                   XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_register_mode("user", other_impl_value),
                   XRAY_DUPLICATE_MODE);
  assert_int_equal(__xray_log_select_mode("partial"), XRAY_MODE_NOT_FOUND);
  assert_int_equal(installs, 0); /* registering installs nothing */
}

static void select_statuses(void **state) {
  (void)state;
  assert_int_equal(__xray_log_select_mode("nope"), XRAY_MODE_NOT_FOUND);
  assert_int_equal(__xray_log_select_mode(NULL), XRAY_MODE_NOT_FOUND);
  assert_int_equal(__xray_log_select_mode("xray-profiling"),
                   XRAY_MODE_NOT_FOUND); /* not linked here */
  assert_null(__xray_log_get_current_mode());
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_string_equal(__xray_log_get_current_mode(), "xray-fdr");
  assert_int_equal(__xray_log_select_mode("nope"), XRAY_MODE_NOT_FOUND);
  assert_string_equal(__xray_log_get_current_mode(), "xray-fdr");
  assert_int_equal(installs, 0); /* built-in: nothing installed on select */
  assert_int_equal(fdr.inits, 0);
}

static void builtin_state_machine_through_the_registry(void **state) {
  (void)state;
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_NOT_FLUSHING); /* flush before init */
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_UNINITIALIZED); /* finalize before init */
  assert_int_equal(__xray_log_init_mode("xray-fdr", "buffer_max=2"),
                   XRAY_LOG_INITIALIZED);
  assert_string_equal(fdr.last_config, "buffer_max=2");
  assert_int_equal(fdr.last_bufsz, 0);
  assert_int_equal(fdr.last_maxbufs, 0);
  assert_int_equal(fdr.last_argsz, 0);
  assert_int_equal(__xray_log_init_mode("xray-fdr", ""), XRAY_LOG_INITIALIZED); /* init twice */
  assert_int_equal(fdr.inits, 2);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_NOT_FLUSHING); /* not finalized */
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED); /* twice */
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_NOT_FLUSHING);
  assert_int_equal(__xray_log_init(16, 3, (void *)"x=1", 3),
                   XRAY_LOG_INITIALIZED); /* re-init after flush */
  assert_int_equal(fdr.last_bufsz, 16);
  assert_int_equal(fdr.last_maxbufs, 3);
  assert_int_equal(fdr.last_argsz, 3);
  assert_int_equal(installs, 0);
}

static void init_mode_bad_arguments(void **state) {
  (void)state;
  assert_int_equal(__xray_log_init_mode("xray-fdr", NULL),
                   XRAY_LOG_UNINITIALIZED);
  assert_null(__xray_log_get_current_mode()); /* NULL config selects nothing */
  assert_int_equal(__xray_log_init_mode("nope", ""), XRAY_LOG_UNINITIALIZED);
  assert_int_equal(__xray_log_init_mode(NULL, ""), XRAY_LOG_UNINITIALIZED);
  assert_int_equal(fdr.inits, 0);
}

static void init_mode_selects_an_unselected_mode(void **state) {
  (void)state;
  assert_int_equal(__xray_log_select_mode("xray-basic"), XRAY_REGISTRATION_OK);
  /* compiler-rt would return UNINITIALIZED here; we select and initialise. */
  assert_int_equal(__xray_log_init_mode("xray-fdr", "a=b"),
                   XRAY_LOG_INITIALIZED);
  assert_string_equal(__xray_log_get_current_mode(), "xray-fdr");
  assert_int_equal(fdr.inits, 1);
  assert_int_equal(basic.inits, 0);
}

static void init_mode_bin_passes_the_size(void **state) {
  (void)state;
  assert_int_equal(__xray_log_init_mode_bin("xray-basic", "abc", 2),
                   XRAY_LOG_INITIALIZED);
  assert_int_equal(basic.last_argsz, 2);
  assert_string_equal(__xray_log_get_current_mode(), "xray-basic");
  assert_int_equal(__xray_log_init_mode_bin("xray-basic", NULL, 2),
                   XRAY_LOG_UNINITIALIZED);
}

static void user_mode_installs_its_handler_on_select(void **state) {
  (void)state;
  assert_int_equal(__xray_log_select_mode("user"), XRAY_REGISTRATION_OK);
  assert_ptr_equal(slot_fn[XR_SLOT_ARG0], (void *)user_handler);
  assert_int_equal(slot_flags[XR_SLOT_ARG0], 0); /* full, not lean */
  assert_int_equal(user.inits, 0);
  /* Moving to a built-in removes the user mode's handler. */
  assert_int_equal(__xray_log_select_mode("xray-basic"), XRAY_REGISTRATION_OK);
  assert_null(slot_fn[XR_SLOT_ARG0]);
}

static void user_mode_via_init_mode(void **state) {
  (void)state;
  assert_int_equal(__xray_log_init_mode("user", "cfg"), XRAY_LOG_INITIALIZED);
  assert_string_equal(__xray_log_get_current_mode(), "user");
  assert_ptr_equal(slot_fn[XR_SLOT_ARG0], (void *)user_handler);
  assert_string_equal(user.last_config, "cfg");
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
}

static void set_and_remove_log_impl(void **state) {
  (void)state;
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  __xray_set_log_impl(other_impl_value);
  assert_string_equal(__xray_log_get_current_mode(), "xray-fdr"); /* name kept */
  assert_ptr_equal(slot_fn[XR_SLOT_ARG0], (void *)other_handler);
  assert_int_equal(__xray_log_init(0, 0, NULL, 0), XRAY_LOG_INITIALIZED);
  assert_int_equal(other.inits, 1);
  assert_int_equal(fdr.inits, 0);

  slot_fn[XR_SLOT_ARG1] = (void *)1;
  __xray_remove_log_impl();
  assert_null(slot_fn[XR_SLOT_ARG0]);
  assert_null(slot_fn[XR_SLOT_ARG1]);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_UNINITIALIZED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_NOT_FLUSHING);
  assert_int_equal(other.finalizes, 0);

  __xray_set_log_impl(other_impl_value);
  __xray_set_log_impl(incomplete);
  assert_null(__xray_log_get_current_mode());
  assert_null(slot_fn[XR_SLOT_ARG0]);
  assert_int_equal(__xray_log_init(0, 0, NULL, 0), XRAY_LOG_UNINITIALIZED);
}

static XRayBuffer three_buffers(XRayBuffer b) {
  static const char data[3][4] = {"one", "two", "six"};
  if (b.Data == NULL)
    return (XRayBuffer){data[0], 3};
  if (b.Data == data[0])
    return (XRayBuffer){data[1], 3};
  if (b.Data == data[1])
    return (XRayBuffer){data[2], 2};
  return (XRayBuffer){NULL, 0};
}

static char seen[64];
static int processed;
static void processor(const char *mode, XRayBuffer b) {
  processed++;
  size_t o = strlen(seen);
  snprintf(seen + o, sizeof seen - o, "%s:%.*s;", mode ? mode : "(null)",
           (int)b.Size, (const char *)b.Data);
}

static void process_buffers(void **state) {
  (void)state;
  seen[0] = 0;
  processed = 0;
  __xray_log_set_buffer_iterator(three_buffers);
  assert_int_equal(__xray_log_process_buffers(processor), XRAY_LOG_NOT_FLUSHING);
  assert_int_equal(processed, 0); /* no impl */
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_process_buffers(processor), XRAY_LOG_FLUSHED);
  assert_string_equal(seen, "xray-fdr:one;xray-fdr:two;xray-fdr:si;");
  __xray_log_remove_buffer_iterator();
  processed = 0;
  assert_int_equal(__xray_log_process_buffers(processor), XRAY_LOG_FLUSHED);
  assert_int_equal(processed, 0); /* no iterator: nothing, still FLUSHED */
  assert_int_equal(__xray_log_process_buffers(NULL), XRAY_LOG_NOT_FLUSHING);
  __xray_log_set_buffer_iterator(NULL); /* same as removing */
  assert_int_equal(__xray_log_process_buffers(processor), XRAY_LOG_FLUSHED);
  assert_int_equal(processed, 0);
}

static void limits(void **state) {
  (void)state;
  char name[300];
  memset(name, 'm', sizeof name - 1);
  name[sizeof name - 1] = 0;
  capture_begin();
  XRayLogRegisterStatus s = __xray_log_register_mode(name, user_impl_value);
  const char *err = capture_end();
  assert_int_equal(s, XRAY_INCOMPLETE_IMPL);
  assert_non_null(strstr(err, "name longer than 127 bytes"));
  name[127] = 0; /* 127 bytes: fits */
  assert_int_equal(__xray_log_register_mode(name, user_impl_value),
                   XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_select_mode(name), XRAY_REGISTRATION_OK);
  assert_string_equal(__xray_log_get_current_mode(), name);
  /* "user" and the long one are registered: 14 more fit, then the limit. */
  int ok = 0;
  for (int i = 0; i < 14; i++) {
    snprintf(name, sizeof name, "mode-%d", i);
    ok += __xray_log_register_mode(name, user_impl_value) == XRAY_REGISTRATION_OK;
  }
  assert_int_equal(ok, 14);
  capture_begin();
  s = __xray_log_register_mode("one-too-many", user_impl_value);
  err = capture_end();
  assert_int_equal(s, XRAY_INCOMPLETE_IMPL);
  assert_non_null(strstr(err, "16 modes are registered already"));
  assert_int_equal(__xray_log_select_mode("mode-13"), XRAY_REGISTRATION_OK);
}

/* ---- start from XRAY_OPTIONS ---------------------------------------------- */

static void flags(const char *text) {
  xr_options_set_defaults(&xr_flags_table, &xr_flags);
  assert_int_equal(xr_options_parse(&xr_flags_table, &xr_flags, text, "test"), 0);
}

/* Each start runs in a child: start-up happens once per process. The child
 * exits with a bit mask of what went wrong (0 = all as expected). */
static int run_child(int (*body)(void)) {
  pid_t pid = fork();
  if (pid == 0)
    exit(body());
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

/* Whether the environment started the mode shows in the exit policy: it
 * finalizes and flushes only a mode the environment started. */
static bool exit_policy_flushes(const struct fake *mode) {
  int finalizes = mode->finalizes, flushes = mode->flushes;
  xr_registry_exit_policy(false);
  return mode->finalizes == finalizes + 1 && mode->flushes == flushes + 1;
}

static int start_basic(void) {
  flags("xray_mode=xray-basic");
  xr_registry_start_from_flags();
  int bad = 0;
  bad |= (basic.inits != 1) << 0;
  bad |= strcmp(basic.last_config, "") != 0 ? 2 : 0;
  bad |= strcmp(__xray_log_get_current_mode(), "xray-basic") != 0 ? 8 : 0;
  bad |= !exit_policy_flushes(&basic) ? 4 : 0;
  return bad;
}

/* Selected only: the program initialises it itself, and the exit policy
 * leaves it to the program. */
static int start_fdr_select_only(void) {
  flags("xray_mode=xray-fdr");
  xr_registry_start_from_flags();
  int bad = 0;
  bad |= fdr.inits != 0 ? 1 : 0;
  bad |= strcmp(__xray_log_get_current_mode(), "xray-fdr") != 0 ? 4 : 0;
  bad |= __xray_log_init(0, 0, NULL, 0) != XRAY_LOG_INITIALIZED ? 8 : 0;
  xr_registry_exit_policy(false);
  bad |= fdr.finalizes != 0 || fdr.flushes != 0 ? 2 : 0;
  return bad;
}

static int start_fdr_premain(void) {
  flags("xray_mode=xray-fdr patch_premain=true");
  xr_registry_start_from_flags();
  return (fdr.inits != 1) | (!exit_policy_flushes(&fdr) ? 2 : 0);
}

static int start_legacy_naive(void) {
  flags("xray_naive_log=true");
  xr_registry_start_from_flags();
  return (basic.inits != 1) |
         (strcmp(__xray_log_get_current_mode(), "xray-basic") != 0 ? 2 : 0);
}

static int start_legacy_fdr(void) {
  flags("xray_fdr_log=true");
  xr_registry_start_from_flags();
  return (fdr.inits != 0) |
         (strcmp(__xray_log_get_current_mode(), "xray-fdr") != 0 ? 2 : 0);
}

static int start_nothing(void) {
  flags("");
  xr_registry_start_from_flags();
  return (__xray_log_get_current_mode() != NULL) | (installs != 0 ? 2 : 0);
}

static int start_user_mode_registered_later(void) {
  flags("xray_mode=late patch_premain=1");
  xr_registry_start_from_flags();
  int bad = __xray_log_get_current_mode() != NULL;
  bad |= __xray_log_register_mode("late", other_impl_value) !=
                 XRAY_REGISTRATION_OK
             ? 2 : 0;
  const char *m = __xray_log_get_current_mode();
  bad |= (!m || strcmp(m, "late") != 0) ? 4 : 0;
  bad |= other.inits != 1 ? 8 : 0;
  bad |= slot_fn[XR_SLOT_ARG0] != (void *)other_handler ? 16 : 0;
  return bad;
}

static void start_from_flags(void **state) {
  (void)state;
  assert_int_equal(run_child(start_basic), 0);
  assert_int_equal(run_child(start_fdr_select_only), 0);
  assert_int_equal(run_child(start_fdr_premain), 0);
  assert_int_equal(run_child(start_legacy_naive), 0);
  assert_int_equal(run_child(start_legacy_fdr), 0);
  assert_int_equal(run_child(start_nothing), 0);
  assert_int_equal(run_child(start_user_mode_registered_later), 0);
}

/* The exit hook: finalize + flush an environment-started mode that is still
 * initialised; leave alone one the program already flushed. The fake finalize and flush
 * write "Z" / "F" to a pipe the parent reads after the child exited. */
static int exit_pipe[2];
static void exit_hook(void **state, const char *options, bool program_flushes,
                      const char *expected) {
  (void)state;
  assert_int_equal(pipe(exit_pipe), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(exit_pipe[0]);
    flags(options);
    xr_registry_start_from_flags();
    if (program_flushes) {
      __xray_log_finalize();
      __xray_log_flushLog(); /* writes "F" before exit */
    }
    tell_fd = exit_pipe[1];
    exit(0);
  }
  close(exit_pipe[1]);
  char got[8] = "";
  size_t len = 0;
  for (ssize_t n; len < sizeof got - 1 &&
                  (n = read(exit_pipe[0], got + len, sizeof got - 1 - len)) > 0;)
    len += (size_t)n; /* until the child is gone (EOF) */
  got[len] = 0;
  close(exit_pipe[0]);
  int status;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  assert_string_equal(got, expected);
}

static void exit_flushes_env_started_mode(void **state) {
  exit_hook(state, "xray_mode=xray-fdr patch_premain=1", false, "ZF");
}
static void exit_leaves_program_flushed_mode(void **state) {
  exit_hook(state, "xray_mode=xray-fdr patch_premain=1", true, "");
}
static void exit_ignores_select_only_mode(void **state) {
  exit_hook(state, "xray_mode=xray-fdr", false, "");
}

int main(void) {
#define T(f) cmocka_unit_test_setup(f, reset)
  const struct CMUnitTest tests[] = {
      T(nothing_selected),
      T(register_statuses),
      T(select_statuses),
      T(builtin_state_machine_through_the_registry),
      T(init_mode_bad_arguments),
      T(init_mode_selects_an_unselected_mode),
      T(init_mode_bin_passes_the_size),
      T(user_mode_installs_its_handler_on_select),
      T(user_mode_via_init_mode),
      T(set_and_remove_log_impl),
      T(process_buffers),
      T(start_from_flags),
      T(exit_flushes_env_started_mode),
      T(exit_leaves_program_flushed_mode),
      T(exit_ignores_select_only_mode),
      T(limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
