/* fdr_snapshot.c / fdr_triggers.c pieces that need no running program: the
 * busy status, deferred signal snapshots outside recording, and the
 * snapshot_signal parser. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fdr/fdr_triggers.h"
#include "xray/xray_fdr.h"

static void busy_while_another_snapshot_holds_the_slot(void **s) {
  (void)s;
  char path[64] = "x";
  assert_true(xr_fdr_snapshot_trylock());
  assert_false(xr_fdr_snapshot_trylock());
  assert_int_equal(__xray_fdr_snapshot(path, sizeof path), XRAY_SNAPSHOT_BUSY);
  assert_string_equal(path, "");
  xr_fdr_snapshot_unlock();
  path[0] = 'x';
  assert_int_equal(__xray_fdr_snapshot(path, sizeof path),
                   XRAY_SNAPSHOT_NOT_RECORDING);
  assert_string_equal(path, "");
  assert_int_equal(__xray_fdr_snapshot(NULL, 0), XRAY_SNAPSHOT_NOT_RECORDING);
}

static void deferred_snapshots_are_taken_by_the_lock_holder(void **s) {
  (void)s;
  /* Not recording: each deferred snapshot is taken (and finds nothing to
   * do); none is left owed, and the lock is free afterwards. */
  assert_true(xr_fdr_snapshot_trylock());
  xr_fdr_snapshot_defer_signal(SIGUSR2);
  xr_fdr_snapshot_defer_signal(SIGUSR2);
  xr_fdr_snapshot_drain(); /* lock held: a no-op */
  assert_false(xr_fdr_snapshot_trylock());
  xr_fdr_snapshot_unlock();
  xr_fdr_snapshot_drain();
  assert_true(xr_fdr_snapshot_trylock());
  xr_fdr_snapshot_unlock();
}

static void signal_names(void **s) {
  (void)s;
  assert_int_equal(xr_fdr_parse_signal("SIGUSR2"), SIGUSR2);
  assert_int_equal(xr_fdr_parse_signal("USR1"), SIGUSR1);
  assert_int_equal(xr_fdr_parse_signal("12"), 12);
  assert_int_equal(xr_fdr_parse_signal("SIGRTMIN+2"), SIGRTMIN + 2);
  assert_int_equal(xr_fdr_parse_signal("RTMAX-0"), SIGRTMAX);
  /* refused, each with a message */
  assert_int_equal(xr_fdr_parse_signal("SIGKILL"), 0);
  assert_int_equal(xr_fdr_parse_signal("STOP"), 0);
  assert_int_equal(xr_fdr_parse_signal("SIGSEGV"), 0);
  assert_int_equal(xr_fdr_parse_signal("0"), 0);
  assert_int_equal(xr_fdr_parse_signal("65"), 0);
  assert_int_equal(xr_fdr_parse_signal("12x"), 0);
  assert_int_equal(xr_fdr_parse_signal("SIGFOO"), 0);
  assert_int_equal(xr_fdr_parse_signal(""), 0);
  assert_int_equal(xr_fdr_parse_signal("SIGRTMIN+99"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(busy_while_another_snapshot_holds_the_slot),
      cmocka_unit_test(deferred_snapshots_are_taken_by_the_lock_holder),
      cmocka_unit_test(signal_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
