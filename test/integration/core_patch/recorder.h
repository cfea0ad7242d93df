/* Shared by the core_patch test programs: a handler that records events in a
 * fixed array (no locks needed on one thread) and prints them by name. */
#ifndef CORE_PATCH_RECORDER_H
#define CORE_PATCH_RECORDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xray/xray_interface.h>

#define NOXRAY __attribute__((xray_never_instrument, noinline))
#define TRACED __attribute__((xray_always_instrument, noinline))

struct recorded {
  int32_t id;
  int type;
  uint64_t arg;
  int has_arg;
};
static struct recorded rec[4096];
static int rec_count;

NOXRAY static void record_arg0(int32_t id, XRayEntryType type) {
  if (rec_count < 4096)
    rec[rec_count++] = (struct recorded){id, (int)type, 0, 0};
}
NOXRAY static void record_arg1(int32_t id, XRayEntryType type, uint64_t arg) {
  if (rec_count < 4096)
    rec[rec_count++] = (struct recorded){id, (int)type, arg, 1};
}

struct named {
  const char *name;
  void *address;
};

/* Name of function `id`, found by comparing __xray_function_address(id) with
 * the addresses of the program's functions. */
NOXRAY static const char *name_of(const struct named *fns, int n, int32_t id) {
  uintptr_t a = __xray_function_address(id);
  for (int i = 0; i < n; i++)
    if ((uintptr_t)fns[i].address == a)
      return fns[i].name;
  return "?";
}

NOXRAY static void print_ids(const struct named *fns, int n) {
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    printf("id %zu %s\n", id, name_of(fns, n, (int32_t)id));
}

NOXRAY static void print_and_clear(const char *title, const struct named *fns, int n) {
  static const char *const kinds[] = {"enter", "exit", "tail", "enter-arg"};
  printf("[%s]\n", title);
  for (int i = 0; i < rec_count; i++) {
    printf("%s %s", kinds[rec[i].type & 3], name_of(fns, n, rec[i].id));
    if (rec[i].has_arg)
      printf(" %llu", (unsigned long long)rec[i].arg);
    printf("\n");
  }
  rec_count = 0;
}

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#endif
