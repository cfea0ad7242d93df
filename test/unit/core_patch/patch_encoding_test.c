/* Sled byte encodings (LLVM's X86MCInstLower.cpp) and the in-place rewrite of each
 * sled kind by xr_patch_sled, on writable copies of real unpatched sleds
 * (the port's encoder is reached only through xr_patch_sled: no test-only
 * entry point in the archive). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/patch/patching.h"
#include "xray/xray_interface.h"

enum { SLED = XR_ARCH_CALL_SLED_BYTES }; /* 11 on x86-64 */

static void expect_bytes(const uint8_t *got, const uint8_t *want, size_t n) {
  assert_memory_equal(got, want, n);
}

/* Writable stand-ins for code, 2-aligned like real sleds and within rel32
 * reach of the trampolines (same executable). */
static uint8_t code[64] __attribute__((aligned(16)));
static uintptr_t self[XR_T_CALL_COUNT];

static const uint8_t unpatched_entry[SLED] = {0xEB, 0x09, 0x66, 0x0F, 0x1F, 0x84, 0, 0, 2, 0, 0};
static const uint8_t unpatched_exit[SLED] = {0xC3, 0x2E, 0x66, 0x0F, 0x1F, 0x84, 0, 0, 2, 0, 0};

/* Enables a call sled of `kind` at code + 2 whose trampoline is `rel` bytes
 * past the sled's end (never called: only the bytes are checked); out gets
 * its bytes. */
static int encode(uint8_t out[SLED], uint8_t kind, int32_t id, int64_t rel) {
  uint8_t *sled = code + 2;
  memcpy(sled, kind == EXIT ? unpatched_exit : unpatched_entry, SLED);
  uintptr_t target = (uintptr_t)sled + SLED + (uintptr_t)rel;
  uintptr_t table[XR_T_CALL_COUNT] = {target, target, target, target};
  struct xr_sled d = {(uintptr_t)sled, (uintptr_t)sled, kind, 0, 2};
  int r = xr_patch_sled(&d, id, table, true);
  memcpy(out, sled, SLED);
  return r;
}

static void test_entry_bytes(void **s) {
  (void)s;
  uint8_t out[SLED];
  assert_int_equal(encode(out, ENTRY, 5, 0xff5), 0);
  const uint8_t want[SLED] = {0x41, 0xBA, 5, 0, 0, 0, 0xE8, 0xF5, 0x0F, 0, 0};
  expect_bytes(out, want, SLED);
}

static void test_exit_bytes(void **s) {
  (void)s;
  uint8_t out[SLED];
  assert_int_equal(encode(out, EXIT, 0x01020304, -0x100b), 0);
  /* rel32 = -0x100b = 0xffffeff5; exit jumps (E9) */
  const uint8_t want[SLED] = {0x41, 0xBA, 4, 3, 2, 1, 0xE9, 0xF5, 0xEF, 0xFF, 0xFF};
  expect_bytes(out, want, SLED);
}

static void test_tail_and_log_args_call(void **s) {
  (void)s;
  uint8_t out[SLED];
  const uint8_t want[SLED] = {0x41, 0xBA, 0xFF, 0xFF, 0xFF, 0x0F, 0xE8, 0, 0, 0, 0};
  assert_int_equal(encode(out, TAIL, 0x0FFFFFFF, 0), 0);
  expect_bytes(out, want, SLED);
  assert_int_equal(encode(out, LOG_ARGS_ENTRY, 0x0FFFFFFF, 0), 0);
  expect_bytes(out, want, SLED);
}

/* The farthest reachable trampolines both ways; one byte farther is refused
 * with the sled untouched. */
static void test_rel32_range(void **s) {
  (void)s;
  uint8_t out[SLED];
  assert_int_equal(encode(out, ENTRY, 1, 0x7FFFFFFF), 0);
  const uint8_t far_fwd[4] = {0xFF, 0xFF, 0xFF, 0x7F};
  expect_bytes(out + 7, far_fwd, 4);
  assert_int_equal(encode(out, ENTRY, 1, -(int64_t)0x80000000), 0);
  const uint8_t far_back[4] = {0, 0, 0, 0x80};
  expect_bytes(out + 7, far_back, 4);
  assert_int_equal(encode(out, ENTRY, 1, (int64_t)0x80000000), -1);
  expect_bytes(out, unpatched_entry, SLED);
  assert_int_equal(encode(out, EXIT, 1, -(int64_t)0x80000001), -1);
  expect_bytes(out, unpatched_exit, SLED);
}

static void check_call_sled(uint8_t kind, const uint8_t *unpatched, uint8_t opcode,
                            void (*trampoline)(void)) {
  uint8_t *sled = code + 2;
  xr_self_trampolines(self);
  memcpy(sled, unpatched, SLED);
  struct xr_sled d = {(uintptr_t)sled, (uintptr_t)sled, kind, 0, 2};
  assert_int_equal(xr_patch_sled(&d, 42, self, true), 0);
  int32_t rel = (int32_t)((uintptr_t)trampoline - ((uintptr_t)sled + SLED));
  uint8_t want[SLED] = {0x41, 0xBA, 42, 0, 0, 0, opcode};
  memcpy(want + 7, &rel, 4);
  expect_bytes(sled, want, SLED);
  /* Off again: only the first two bytes change back; the body stays for
   * threads that may sit between the mov and the call. */
  assert_int_equal(xr_patch_sled(&d, 42, self, false), 0);
  memcpy(want, unpatched, 2);
  expect_bytes(sled, want, SLED);
  /* And on again. */
  assert_int_equal(xr_patch_sled(&d, 42, self, true), 0);
  assert_int_equal(sled[0], 0x41);
  assert_int_equal(sled[1], 0xBA);
}

static void test_patch_entry_sled(void **s) {
  (void)s;
  check_call_sled(ENTRY, unpatched_entry, 0xE8, __xray_FunctionEntry);
}
static void test_patch_exit_sled(void **s) {
  (void)s;
  check_call_sled(EXIT, unpatched_exit, 0xE9, __xray_FunctionExit);
}
static void test_patch_tail_sled(void **s) {
  (void)s;
  check_call_sled(TAIL, unpatched_entry, 0xE8, __xray_FunctionTailExit);
}
static void test_patch_log_args_sled(void **s) {
  (void)s;
  check_call_sled(LOG_ARGS_ENTRY, unpatched_entry, 0xE8, __xray_ArgLoggerEntry);
}

/* A shared object's sled: its packed id, and a call to the trampoline its
 * own table names (not the executable's). */
static void test_object_sled_uses_its_trampolines(void **s) {
  (void)s;
  uint8_t *sled = code + 2;
  memcpy(sled, unpatched_entry, SLED);
  uintptr_t table[XR_T_CALL_COUNT] = {(uintptr_t)(code + 40), (uintptr_t)(code + 44),
                                     (uintptr_t)(code + 48), (uintptr_t)(code + 52)};
  struct xr_sled d = {(uintptr_t)sled, (uintptr_t)sled, TAIL, 0, 2};
  int32_t packed = (3 << 24) | 17;
  assert_int_equal(xr_patch_sled(&d, packed, table, true), 0);
  int32_t rel = (int32_t)((uintptr_t)(code + 48) - ((uintptr_t)sled + SLED));
  uint8_t want[SLED] = {0x41, 0xBA, 17, 0, 0, 3, 0xE8};
  memcpy(want + 7, &rel, 4);
  expect_bytes(sled, want, SLED);
}

static void check_event_sled(uint8_t kind, uint8_t version, uint8_t jump) {
  uint8_t *sled = code + 4;
  memset(code, 0xCC, sizeof code);
  sled[0] = 0xEB;
  sled[1] = jump;
  struct xr_sled d = {(uintptr_t)sled, (uintptr_t)sled, kind, 0, version};
  assert_int_equal(xr_patch_sled(&d, 7, self, true), 0);
  assert_int_equal(sled[0], 0x66);
  assert_int_equal(sled[1], 0x90);
  assert_int_equal(sled[2], 0xCC); /* nothing else touched */
  assert_int_equal(code[3], 0xCC);
  assert_int_equal(xr_patch_sled(&d, 7, self, false), 0);
  assert_int_equal(sled[0], 0xEB);
  assert_int_equal(sled[1], jump);
  assert_int_equal(sled[2], 0xCC);
}

static void test_patch_event_sleds(void **s) {
  (void)s;
  check_event_sled(CUSTOM_EVENT, 2, 0x0F);
  check_event_sled(CUSTOM_EVENT, 1, 0x0F);
  check_event_sled(CUSTOM_EVENT, 0, 0x14);
  check_event_sled(TYPED_EVENT, 2, 0x14);
}

/* A sled at an odd address is refused untouched: its 16-bit first store
 * could straddle an instruction-fetch block (patch_x86_64.c, b). */
static void test_odd_address_refused(void **s) {
  (void)s;
  uint8_t *sled = code + 3;
  memset(code, 0xCC, sizeof code);
  memcpy(sled, unpatched_entry, SLED);
  struct xr_sled d = {(uintptr_t)sled, (uintptr_t)sled, ENTRY, 0, 2};
  xr_self_trampolines(self);
  assert_int_equal(xr_patch_sled(&d, 1, self, true), -1);
  expect_bytes(sled, unpatched_entry, SLED);
  sled[0] = 0xEB;
  sled[1] = 0x0F;
  d.kind = CUSTOM_EVENT;
  assert_int_equal(xr_patch_sled(&d, 1, self, true), -1);
  assert_int_equal(sled[0], 0xEB);
  assert_int_equal(sled[1], 0x0F);
}

static void test_unknown_kind_refused(void **s) {
  (void)s;
  memset(code, 0xCC, sizeof code);
  struct xr_sled d = {(uintptr_t)code, (uintptr_t)code, 6, 0, 2};
  assert_int_equal(xr_patch_sled(&d, 1, self, true), -1);
  assert_int_equal(code[0], 0xCC);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_entry_bytes),
      cmocka_unit_test(test_exit_bytes),
      cmocka_unit_test(test_tail_and_log_args_call),
      cmocka_unit_test(test_rel32_range),
      cmocka_unit_test(test_patch_entry_sled),
      cmocka_unit_test(test_patch_exit_sled),
      cmocka_unit_test(test_patch_tail_sled),
      cmocka_unit_test(test_patch_log_args_sled),
      cmocka_unit_test(test_object_sled_uses_its_trampolines),
      cmocka_unit_test(test_patch_event_sleds),
      cmocka_unit_test(test_odd_address_refused),
      cmocka_unit_test(test_unknown_kind_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
