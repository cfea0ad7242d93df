/* The fault-safe copy of a /s value's string (lib/args/args_copy.c), on
 * real mappings: a valid string, NULL, a PROT_NONE page, a string that
 * runs to the end of a page without a NUL (the next page PROT_NONE),
 * unmapped memory, longer than the bound, exactly the bound; and the
 * program's errno left alone. Built twice: copy_test, and
 * copy_fallback_test (ARGS_COPY_FALLBACK), which first installs a seccomp
 * filter that makes process_vm_readv fail with ENOSYS, as qemu-user does,
 * so the same cases run through the pipe (skipped, 77, where no filter can
 * be installed). Its filter is for the whole process: the test checks the
 * call really is refused before it counts on it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "args/args_copy.h"
#include "core/modes/arg_values.h"

#ifdef ARGS_COPY_FALLBACK
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

static size_t page;
static char *pages; /* [readable][PROT_NONE] */

static int map_pages(void **state) {
  (void)state;
  page = (size_t)sysconf(_SC_PAGESIZE);
  pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED)
    return -1;
  return mprotect(pages + page, page, PROT_NONE);
}

static uint8_t copy(const void *p, char out[XR_ARG_STRING_MAX], uint8_t *len) {
  memset(out, '#', XR_ARG_STRING_MAX);
  return xr_args_copy_string((uint64_t)(uintptr_t)p, out, len);
}

static void valid(void **state) {
  (void)state;
  char out[XR_ARG_STRING_MAX];
  uint8_t len = 99;
  assert_int_equal(copy("hello", out, &len), XR_ARGS_OK);
  assert_int_equal(len, 5);
  assert_memory_equal(out, "hello", 5);
  assert_int_equal(copy("", out, &len), XR_ARGS_OK);
  assert_int_equal(len, 0);
  /* a string that ends just before the PROT_NONE page is whole */
  char *end = pages + page - 4;
  memcpy(end, "abc", 4);
  assert_int_equal(copy(end, out, &len), XR_ARGS_OK);
  assert_int_equal(len, 3);
  assert_memory_equal(out, "abc", 3);
}

static void null_pointer(void **state) {
  (void)state;
  char out[XR_ARG_STRING_MAX];
  uint8_t len = 99;
  assert_int_equal(copy(NULL, out, &len), XR_ARGS_NULL);
  assert_int_equal(len, 0);
}

static void unreadable(void **state) {
  (void)state;
  char out[XR_ARG_STRING_MAX];
  uint8_t len = 99;
  assert_int_equal(copy(pages + page, out, &len), XR_ARGS_UNREADABLE); /* PROT_NONE */
  assert_int_equal(len, 0);
  assert_int_equal(copy(pages + page + 100, out, &len), XR_ARGS_UNREADABLE);
  /* unmapped: a page given back */
  char *gone = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(gone != MAP_FAILED);
  strcpy(gone, "freed");
  assert_int_equal(munmap(gone, page), 0);
  assert_int_equal(copy(gone, out, &len), XR_ARGS_UNREADABLE);
  assert_int_equal(len, 0);
  /* an address no process has */
  assert_int_equal(copy((void *)(uintptr_t)0xffffffffffffff00u, out, &len), XR_ARGS_UNREADABLE);
  assert_int_equal(copy((void *)(uintptr_t)8, out, &len), XR_ARGS_UNREADABLE);
}

/* 10 bytes at a page's end, no NUL, then PROT_NONE: those 10 are kept. */
static void page_end_without_nul(void **state) {
  (void)state;
  char out[XR_ARG_STRING_MAX];
  uint8_t len = 99;
  char *at = pages + page - 10;
  memcpy(at, "0123456789", 10);
  assert_int_equal(copy(at, out, &len), XR_ARGS_PARTIAL);
  assert_int_equal(len, 10);
  assert_memory_equal(out, "0123456789", 10);
  /* one byte */
  pages[page - 1] = 'z';
  assert_int_equal(copy(pages + page - 1, out, &len), XR_ARGS_PARTIAL);
  assert_int_equal(len, 1);
  assert_int_equal(out[0], 'z');
  /* exactly the bound's bytes, then the PROT_NONE page: not cut, partial */
  memset(pages + page - XR_ARG_STRING_MAX, 'q', XR_ARG_STRING_MAX);
  assert_int_equal(copy(pages + page - XR_ARG_STRING_MAX, out, &len), XR_ARGS_PARTIAL);
  assert_int_equal(len, XR_ARG_STRING_MAX);
}

static void longer_than_the_bound(void **state) {
  (void)state;
  char text[101], out[XR_ARG_STRING_MAX];
  for (int i = 0; i < 100; i++)
    text[i] = (char)('a' + i % 26);
  text[100] = '\0';
  uint8_t len = 99;
  assert_int_equal(copy(text, out, &len), XR_ARGS_CUT);
  assert_int_equal(len, XR_ARG_STRING_MAX);
  assert_memory_equal(out, text, XR_ARG_STRING_MAX);
  /* exactly the bound, then its NUL: whole */
  text[XR_ARG_STRING_MAX] = '\0';
  assert_int_equal(copy(text, out, &len), XR_ARGS_OK);
  assert_int_equal(len, XR_ARG_STRING_MAX);
  assert_memory_equal(out, text, XR_ARG_STRING_MAX);
  /* one more: cut */
  text[XR_ARG_STRING_MAX] = 'x';
  text[XR_ARG_STRING_MAX + 1] = '\0';
  assert_int_equal(copy(text, out, &len), XR_ARGS_CUT);
  /* a long string across the page boundary, both pages readable */
  char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(two != MAP_FAILED);
  memset(two + page - 30, 'k', 50);
  two[page + 20] = '\0';
  assert_int_equal(copy(two + page - 30, out, &len), XR_ARGS_OK);
  assert_int_equal(len, 50);
  munmap(two, 2 * page);
}

static void errno_kept(void **state) {
  (void)state;
  char out[XR_ARG_STRING_MAX];
  uint8_t len;
  errno = 1234;
  copy(pages + page, out, &len); /* fails inside: EFAULT */
  assert_int_equal(errno, 1234);
  copy("ok", out, &len);
  assert_int_equal(errno, 1234);
}

#ifdef ARGS_COPY_FALLBACK
/* process_vm_readv fails with ENOSYS from now on, in this process. */
static int refuse_process_vm_readv(void **state) {
  (void)state;
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof code / sizeof code[0], code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
    return -1;
  char byte = 'x', into;
  struct iovec local = {&into, 1}, remote = {&byte, 1};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != -1 || errno != ENOSYS)
    return -1;
  return map_pages(state);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(valid),
      cmocka_unit_test(null_pointer),
      cmocka_unit_test(unreadable),
      cmocka_unit_test(page_end_without_nul),
      cmocka_unit_test(longer_than_the_bound),
      cmocka_unit_test(errno_kept),
  };
#ifdef ARGS_COPY_FALLBACK
  if (refuse_process_vm_readv(NULL) != 0) {
    fprintf(stderr, "SKIP: no seccomp filter here to refuse process_vm_readv\n");
    return 77;
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
#else
  return cmocka_run_group_tests(tests, map_pages, NULL);
#endif
}
