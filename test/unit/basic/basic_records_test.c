/* Record encoding: the exact bytes of normal and argument records
 * (compiler-rt's xray_records.h), cross-checked against the public struct layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "basic/basic_records.h"
#include "xray/xray_records.h"

static void normal_record_bytes(void **state) {
  (void)state;
  struct xr_basic_record r;
  memset(&r, 0xAA, sizeof(r));
  xr_basic_put_normal(&r, 4, XR_BASIC_ENTRY_ARGS, 7, 0x1122334455667788ull,
                      xr_basic_ids(0x199d, 0x19a0));
  static const uint8_t want[32] = {
      0x00, 0x00, 0x07, 0x03, 0x04, 0x00, 0x00, 0x00,  /* type, cpu, kind, id */
      0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,  /* tsc */
      0x9d, 0x19, 0x00, 0x00, 0xa0, 0x19, 0x00, 0x00,  /* tid, pid */
      0, 0, 0, 0, 0, 0, 0, 0};
  assert_memory_equal(&r, want, 32);

  struct XRayRecord x;
  memcpy(&x, &r, sizeof(x));
  assert_int_equal(x.RecordType, NORMAL);
  assert_int_equal(x.CPU, 7);
  assert_int_equal(x.Type, 3);
  assert_int_equal(x.FuncId, 4);
  assert_true(x.TSC == 0x1122334455667788ull);
  assert_int_equal(x.TId, 0x199d);
  assert_int_equal(x.PId, 0x19a0);
}

static void exit_record_negative_id_and_big_cpu(void **state) {
  (void)state;
  struct xr_basic_record r;
  xr_basic_put_normal(&r, -2, XR_BASIC_TAIL, 0xff, 1, xr_basic_ids(-1, 1));
  static const uint8_t want[32] = {
      0x00, 0x00, 0xff, 0x02, 0xfe, 0xff, 0xff, 0xff,
      0x01, 0, 0, 0, 0, 0, 0, 0,
      0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00, 0x00,
      0, 0, 0, 0, 0, 0, 0, 0};
  assert_memory_equal(&r, want, 32);
}

static void arg_payload_bytes(void **state) {
  (void)state;
  struct xr_basic_record r;
  memset(&r, 0xAA, sizeof(r));
  xr_basic_put_arg(&r, 4, xr_basic_ids(0x199d, 0x19a0), 100);
  static const uint8_t want[32] = {
      0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,  /* type 1, id */
      0x9d, 0x19, 0x00, 0x00, 0xa0, 0x19, 0x00, 0x00,  /* tid, pid */
      0x64, 0, 0, 0, 0, 0, 0, 0,                       /* argument */
      0, 0, 0, 0, 0, 0, 0, 0};
  assert_memory_equal(&r, want, 32);

  struct XRayArgPayload a;
  memcpy(&a, &r, sizeof(a));
  assert_int_equal(a.RecordType, ARG_PAYLOAD);
  assert_int_equal(a.FuncId, 4);
  assert_int_equal(a.TId, 0x199d);
  assert_int_equal(a.PId, 0x19a0);
  assert_true(a.Arg == 100);
}

static void full_width_argument(void **state) {
  (void)state;
  struct xr_basic_record r;
  xr_basic_put_arg(&r, 1, 0, 0xfedcba9876543210ull);
  const uint8_t *b = (const uint8_t *)&r;
  assert_int_equal(b[16], 0x10);
  assert_int_equal(b[23], 0xfe);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(normal_record_bytes),
      cmocka_unit_test(exit_record_negative_id_and_big_cpu),
      cmocka_unit_test(arg_payload_bytes),
      cmocka_unit_test(full_width_argument),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
