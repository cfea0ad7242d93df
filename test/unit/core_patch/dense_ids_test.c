/* Dense ids at the end of their space: objects registered with hand-built
 * maps (never patched) after the next id base was moved near 2^28. The
 * last object that fits gets ids up to 2^28 - 1 exactly; the next gets no
 * base: said at verbosity 1 while a dense mode runs, counted, `id-base -`
 * and no function lines in a dense map, the none path in its dispatch copy,
 * dropped by the LLVM 20 wrapper. An object with a base gets its offset and
 * dense paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../core_control/capture.h"
#include "core/dispatch/dso_abi.h"
#include "core/dispatch/handlers.h"
#include "core/objects/objects.h"
#include "core/base/report.h"
#include "core/names/object_map.h"
#include "core/dispatch/hot_tables.h"
#include "core/dispatch/dense_ids_lean.h"

/* Two functions, entry and exit each, at made-up addresses (v2: relative). */
static unsigned char maps[3][4 * 32];
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static const unsigned char *two_functions(unsigned char *m, uint64_t at) {
  for (int i = 0; i < 4; i++) {
    unsigned char *e = m + 32 * i;
    uint64_t fn = at + (i / 2) * 0x100, sled = fn + (i % 2) * 0x20;
    memset(e, 0, 32);
    put64(e, sled - (uint64_t)(uintptr_t)e);
    put64(e + 8, fn - (uint64_t)(uintptr_t)(e + 8));
    e[16] = (unsigned char)(i % 2); /* entry, exit */
    e[18] = 2;
  }
  return m + 4 * 32;
}
static void tramp(void) {}
static int32_t register_two(int n) {
  struct xr_dso_trampolines t = {tramp, tramp, tramp, tramp};
  return __xray_register_dso(maps[n], two_functions(maps[n], 0x7f0000001000ull + n * 0x10000),
                             NULL, NULL, t);
}

static int32_t seen_id = -1;
static void handler(int32_t id, int type) { (void)type; seen_id = id; }
static void dense_path(void) {}

static void last_ids_then_none(void **state) {
  (void)state;
  const uint32_t limit = XR_DENSE_ID_LIMIT;
  int32_t a = register_two(0);
  assert_int_equal(a, 1);
  assert_int_equal(xr_objects_id_base[a], 0); /* object 0 of this test has no functions */

  xr_objects_lock();
  xr_objects_next_id_base = limit - 3; /* room for exactly two ids */
  xr_objects_unlock();
  int32_t b = register_two(1);
  assert_int_equal(xr_objects_id_base[b], limit - 3);
  assert_int_equal(xr_objects_packed_of_dense((int32_t)(limit - 1)), xr_pack_id(2, b));
  assert_int_equal(xr_objects_packed_of_dense(1), xr_pack_id(1, a));
  assert_int_equal(xr_objects_packed_of_dense((int32_t)(limit - 4)), -1);

  xr_verbosity = 1;
  xr_objects_dense_recording("xray-fdr");
  capture_begin();
  int32_t c = register_two(2);
  const char *said = capture_end();
  assert_int_equal(c, 3);
  assert_int_equal(xr_objects_id_base[c], XR_NO_ID_BASE);
  assert_non_null(strstr(said, "xray-fdr: object 3 ('') is not traced: its 2 functions do not "
                               "fit in the 268435455 dense ids (objects without ids so far: 1)"));

  /* The dispatch copies while a dense handler is installed. */
  xr_handler_install(XR_SLOT_ARG0, (void *)handler, XR_HANDLER_LEAN | XR_HANDLER_DENSE);
  void *volatile slots[2][4], *volatile handlers[2][2];
  int32_t offset[2] = {7, 7};
  for (int i = 0; i < 2; i++) {
    struct xr_dso_dense d = {slots[i], handlers[i], &offset[i],
                             {dense_path, dense_path, dense_path, dense_path}};
    /* registered from_dso but not loaded by the loader: dispatch needs only the registry */
    __xray_dso_dense_dispatch(i == 0 ? b : c, &d);
  }
  assert_int_equal(offset[0], (int32_t)(limit - 3 - ((uint32_t)b << 24)));
  assert_ptr_equal(slots[0][0], (void *)dense_path);
  assert_ptr_equal(handlers[0][0], (void *)handler);
  assert_int_equal(offset[1], 7); /* no base: untouched */
  assert_ptr_equal(slots[1][0], xr_trampoline_paths[XR_T_ENTRY][XR_PATH_NONE]);

  /* LLVM 20's objects: the wrapper adds the base, or drops the event. */
  xr_dense_wrap_arg0(xr_pack_id(2, b), 0);
  assert_int_equal(seen_id, (int32_t)(limit - 1));
  seen_id = -1;
  xr_dense_wrap_arg0(xr_pack_id(1, c), 0);
  assert_int_equal(seen_id, -1);

  /* The map beside an FDR log. */
  char dir[] = "/tmp/dense_ids_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char log[64], map[80], line[512];
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(map, sizeof map, "%s/log.map", dir);
  assert_int_equal(xr_object_map_write(log, true), 0);
  FILE *f = fopen(map, "r");
  assert_non_null(f);
  int functions_of_c = 0, last_of_b = 0, c_line = 0;
  while (fgets(line, sizeof line, f)) {
    int id, obj, fn;
    if (strncmp(line, "object 3 ", 9) == 0)
      c_line = strstr(line, " id-base - ") != NULL;
    if (sscanf(line, "function %d %d %d", &id, &obj, &fn) == 3) {
      functions_of_c += obj == c;
      last_of_b += obj == b && fn == 2 && id == (int32_t)(limit - 1);
    }
  }
  fclose(f);
  unlink(map);
  rmdir(dir);
  assert_int_equal(c_line, 1);
  assert_int_equal(functions_of_c, 0);
  assert_int_equal(last_of_b, 1);
  xr_handler_install(XR_SLOT_ARG0, NULL, XR_HANDLER_LEAN);
  xr_objects_dense_recording(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(last_ids_then_none)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
