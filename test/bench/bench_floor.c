/* The floors: what the hardware charges before any runtime code runs.
 *
 * Usage: bench_floor CALLS. Plain C loops, no XRay: a call of an empty
 * function, one rdtsc, one rdtscp, one clock_gettime, one gettid system call,
 * and an FDR-style pair of 8-byte records (enter + exit, each stamped with
 * its own rdtsc or rdtscp and stored as a 32-bit delta) into a 1 MiB ring;
 * and the register-saving pieces a trampoline may use: pushfq+popfq,
 * fnstsw (reading the x87 stack depth), and
 * eight 32-byte (ymm) or 16-byte (xmm) stores and loads to the stack; and
 * one open+read+close of /proc/self/maps (what a patcher pays to learn page
 * protections that way); and minimal trampolines: a call to a stub that
 * saves nothing (a handler that saves what it uses itself, e.g. built with
 * no_caller_saved_registers), or the nine caller-saved general registers
 * (plus 8 xmm, or 8 ymm, or
 * 8 ymm and rflags), calls a counting handler through a pointer, restores
 * and returns: the least an entry event can cost with such a handler. Last,
 * writing a
 * 16 MiB file into the current directory (the harness runs this on the same
 * tmpfs as the logs): what flushing a 16 MiB log costs at least.
 * These bound what the modes can reach; docs/performance.md quotes them.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <cpuid.h>
#include <stdbool.h>
#include <unistd.h>
#include <x86intrin.h>

#include "bench_time.h"

__attribute__((noinline)) int empty_fn(int x) { return x; }

#define RING_WORDS (1u << 17) /* 1 MiB of 8-byte records */
static uint64_t ring[RING_WORDS];
static volatile uint64_t sink;

typedef void (*loop_fn)(long);

static void loop_call(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += empty_fn((int)i);
  sink = (uint64_t)s;
}
static void loop_rdtsc(long n) {
  uint64_t s = 0;
  for (long i = 0; i < n; i++)
    s += __rdtsc();
  sink = s;
}
static void loop_rdtscp(long n) {
  uint64_t s = 0;
  unsigned cpu;
  for (long i = 0; i < n; i++)
    s += __rdtscp(&cpu) + cpu;
  sink = s;
}
static void loop_clock(long n) {
  uint64_t s = 0;
  struct timespec ts;
  for (long i = 0; i < n; i++) {
    clock_gettime(CLOCK_REALTIME, &ts);
    s += (uint64_t)ts.tv_nsec;
  }
  sink = s;
}
static void loop_gettid(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += syscall(SYS_gettid);
  sink = (uint64_t)s;
}
static void loop_pushf(long n) {
  for (long i = 0; i < n; i++)
    __asm__ volatile("pushfq\n\tpopfq" ::: "memory", "cc");
}
static void loop_fnstsw(long n) {
  for (long i = 0; i < n; i++) {
    unsigned short sw;
    __asm__ volatile("fnstsw %0" : "=a"(sw));
    sink += sw;
  }
}
static void loop_save_ymm(long n) {
  for (long i = 0; i < n; i++)
    __asm__ volatile("sub $256, %%rsp\n\t"
                     "vmovdqu %%ymm0, 0(%%rsp)\n\tvmovdqu %%ymm1, 32(%%rsp)\n\t"
                     "vmovdqu %%ymm2, 64(%%rsp)\n\tvmovdqu %%ymm3, 96(%%rsp)\n\t"
                     "vmovdqu %%ymm4, 128(%%rsp)\n\tvmovdqu %%ymm5, 160(%%rsp)\n\t"
                     "vmovdqu %%ymm6, 192(%%rsp)\n\tvmovdqu %%ymm7, 224(%%rsp)\n\t"
                     "vmovdqu 0(%%rsp), %%ymm0\n\tvmovdqu 32(%%rsp), %%ymm1\n\t"
                     "vmovdqu 64(%%rsp), %%ymm2\n\tvmovdqu 96(%%rsp), %%ymm3\n\t"
                     "vmovdqu 128(%%rsp), %%ymm4\n\tvmovdqu 160(%%rsp), %%ymm5\n\t"
                     "vmovdqu 192(%%rsp), %%ymm6\n\tvmovdqu 224(%%rsp), %%ymm7\n\t"
                     "add $256, %%rsp" ::: "memory");
}
static void loop_save_xmm(long n) {
  for (long i = 0; i < n; i++)
    __asm__ volatile("sub $128, %%rsp\n\t"
                     "movdqu %%xmm0, 0(%%rsp)\n\tmovdqu %%xmm1, 16(%%rsp)\n\t"
                     "movdqu %%xmm2, 32(%%rsp)\n\tmovdqu %%xmm3, 48(%%rsp)\n\t"
                     "movdqu %%xmm4, 64(%%rsp)\n\tmovdqu %%xmm5, 80(%%rsp)\n\t"
                     "movdqu %%xmm6, 96(%%rsp)\n\tmovdqu %%xmm7, 112(%%rsp)\n\t"
                     "movdqu 0(%%rsp), %%xmm0\n\tmovdqu 16(%%rsp), %%xmm1\n\t"
                     "movdqu 32(%%rsp), %%xmm2\n\tmovdqu 48(%%rsp), %%xmm3\n\t"
                     "movdqu 64(%%rsp), %%xmm4\n\tmovdqu 80(%%rsp), %%xmm5\n\t"
                     "movdqu 96(%%rsp), %%xmm6\n\tmovdqu 112(%%rsp), %%xmm7\n\t"
                     "add $128, %%rsp" ::: "memory");
}

static void loop_read_maps(long n) {
  static char buf[65536];
  for (long i = 0; i < n; i++) {
    int fd = open("/proc/self/maps", O_RDONLY);
    while (read(fd, buf, sizeof buf) > 0) {
    }
    close(fd);
  }
}

/* Minimal trampolines, one per saving policy. Entered with rsp = 8 mod 16
 * (from the asm call below, made with rsp 16-aligned); nine pushes realign. */
static long floor_handler_calls;
static void floor_handler(int id, int type) {
  (void)id;
  (void)type;
  floor_handler_calls++;
}
void (*volatile floor_handler_ptr)(int, int) = floor_handler;

#define TRAMP_PUSH                                                             \
  "push %rax\n push %rdi\n push %rsi\n push %rdx\n push %rcx\n"                \
  "push %r8\n push %r9\n push %r10\n push %r11\n"
#define TRAMP_POP                                                              \
  "pop %r11\n pop %r10\n pop %r9\n pop %r8\n pop %rcx\n"                       \
  "pop %rdx\n pop %rsi\n pop %rdi\n pop %rax\n"
#define TRAMP_CALL                                                             \
  "mov $1, %edi\n xor %esi, %esi\n call *floor_handler_ptr(%rip)\n"
#define SAVE8(op, reg, w)                                                      \
  "sub $" #w "*8, %rsp\n"                                                      \
  op " %" reg "0, 0*" #w "(%rsp)\n " op " %" reg "1, 1*" #w "(%rsp)\n"          \
  op " %" reg "2, 2*" #w "(%rsp)\n " op " %" reg "3, 3*" #w "(%rsp)\n"          \
  op " %" reg "4, 4*" #w "(%rsp)\n " op " %" reg "5, 5*" #w "(%rsp)\n"          \
  op " %" reg "6, 6*" #w "(%rsp)\n " op " %" reg "7, 7*" #w "(%rsp)\n"
#define LOAD8(op, reg, w)                                                      \
  op " 0*" #w "(%rsp), %" reg "0\n " op " 1*" #w "(%rsp), %" reg "1\n"          \
  op " 2*" #w "(%rsp), %" reg "2\n " op " 3*" #w "(%rsp), %" reg "3\n"          \
  op " 4*" #w "(%rsp), %" reg "4\n " op " 5*" #w "(%rsp), %" reg "5\n"          \
  op " 6*" #w "(%rsp), %" reg "6\n " op " 7*" #w "(%rsp), %" reg "7\n"          \
  "add $" #w "*8, %rsp\n"
__asm__(".text\n .p2align 6\n floor_tramp_none:\n sub $8, %rsp\n" TRAMP_CALL
        "add $8, %rsp\n ret\n"
        ".p2align 6\n floor_tramp_gpr:\n" TRAMP_PUSH TRAMP_CALL TRAMP_POP
        "ret\n"
        ".p2align 6\n floor_tramp_xmm:\n" TRAMP_PUSH SAVE8("movdqu", "xmm", 16)
        TRAMP_CALL LOAD8("movdqu", "xmm", 16) TRAMP_POP "ret\n"
        ".p2align 6\n floor_tramp_ymm:\n" TRAMP_PUSH SAVE8("vmovdqu", "ymm", 32)
        TRAMP_CALL LOAD8("vmovdqu", "ymm", 32) TRAMP_POP "ret\n"
        ".p2align 6\n floor_tramp_ymm_flags:\n pushfq\n sub $8, %rsp\n"
        TRAMP_PUSH SAVE8("vmovdqu", "ymm", 32) TRAMP_CALL
        LOAD8("vmovdqu", "ymm", 32) TRAMP_POP "add $8, %rsp\n popfq\n ret\n");

/* Calls a stub like a sled does (mov r10d, id; call) from below the red
 * zone, at a fixed offset from a 64-byte boundary, so the stubs' vector save
 * areas are 32-byte aligned in every process (with `off` = 144 for the
 * others, 128 for floor_tramp_ymm_flags, which pushes 16 bytes more). In
 * this tight loop a 16-mod-32 area, whose stores are reloaded at once, cost
 * 1-20 ns more depending on the process; the real trampolines showed no such
 * effect (run.sh --scenario noop-stack), so the floors avoid it. */
#define CALL_STUB(stub, off)                                                   \
  __asm__ volatile("mov %%rsp, %%rbx\n and $-64, %%rsp\n sub $" #off ", %%rsp\n" \
                   "mov $1, %%r10d\n call " stub "\n mov %%rbx, %%rsp"           \
                   ::: "rbx", "memory", "cc")
static void loop_tramp_none(long n) {
  for (long i = 0; i < n; i++)
    CALL_STUB("floor_tramp_none", 144);
}
static void loop_tramp_gpr(long n) {
  for (long i = 0; i < n; i++)
    CALL_STUB("floor_tramp_gpr", 144);
}
static void loop_tramp_xmm(long n) {
  for (long i = 0; i < n; i++)
    CALL_STUB("floor_tramp_xmm", 144);
}
static void loop_tramp_ymm(long n) {
  for (long i = 0; i < n; i++)
    CALL_STUB("floor_tramp_ymm", 144);
}
static void loop_tramp_ymm_flags(long n) {
  for (long i = 0; i < n; i++)
    CALL_STUB("floor_tramp_ymm_flags", 128);
}

/* One "call" = enter record + exit record, as FDR writes them. */
static void loop_pair_rdtsc(long n) {
  uint64_t last = __rdtsc();
  unsigned pos = 0;
  for (long i = 0; i < n; i++) {
    uint64_t t = __rdtsc();
    ring[pos] = (uint64_t)(uint32_t)(t - last) << 32 | ((uint32_t)i << 4);
    last = t;
    t = __rdtsc();
    ring[pos + 1] =
        (uint64_t)(uint32_t)(t - last) << 32 | ((uint32_t)i << 4 | 2);
    last = t;
    pos = (pos + 2) & (RING_WORDS - 1);
  }
}
static void loop_pair_rdtscp(long n) {
  unsigned cpu;
  uint64_t last = __rdtscp(&cpu);
  unsigned pos = 0;
  for (long i = 0; i < n; i++) {
    uint64_t t = __rdtscp(&cpu);
    ring[pos] = (uint64_t)(uint32_t)(t - last) << 32 | ((uint32_t)i << 4);
    last = t;
    t = __rdtscp(&cpu);
    ring[pos + 1] =
        (uint64_t)(uint32_t)(t - last) << 32 | ((uint32_t)i << 4 | 2);
    last = t;
    pos = (pos + 2) & (RING_WORDS - 1);
  }
}

/* Fastest of 64 blocks of n/64 operations, as the driver does
 * (bench_main.c). */
static void measure(const char *name, loop_fn f, long n, const char *unit) {
  long per = n / 64 + 1;
  double best = 1e300;
  f(per); /* warm caches and the ring */
  for (int b = 0; b < 64; b++) {
    double t0 = now_ns();
    f(per);
    double t = now_ns() - t0;
    if (t < best)
      best = t;
  }
  printf("M %s %.3f %s\n", name, best / (double)per, unit);
}

/* Fastest of 8 writes of a fresh 16 MiB file (created, written in 1 MiB
 * chunks, closed, removed). */
static void measure_file_write(void) {
  size_t size = 16u << 20;
  char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED)
    return;
  memset(buf, 0x5a, size);
  double best = 1e300;
  for (int r = 0; r < 8; r++) {
    double t0 = now_ns();
    int fd = open("floor-write.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
      return;
    for (size_t off = 0; off < size;) {
      ssize_t w = write(fd, buf + off, 1u << 20);
      if (w <= 0)
        break;
      off += (size_t)w;
    }
    close(fd);
    double t = now_ns() - t0;
    unlink("floor-write.tmp");
    if (t < best)
      best = t;
  }
  munmap(buf, size);
  printf("M floor-write-16MiB %.3f ms\n", best / 1e6);
}

/* The rows of an instruction the CPU lacks are skipped, with the reason on
 * stderr (run.sh lists it; the row shows "-"): executed anyway, it may kill
 * the run (SIGILL under valgrind, or on a CPU that really lacks it). */
static bool have_rdtscp(void) {
  unsigned a, b, c, d;
  return __get_cpuid(0x80000001u, &a, &b, &c, &d) && (d >> 27 & 1);
}
static void measure_if(bool have, const char *why, const char *name,
                       loop_fn f, long n, const char *unit) {
  if (have)
    measure(name, f, n, unit);
  else
    fprintf(stderr, "bench_floor: %s skipped: %s\n", name, why);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  bool rdtscp = have_rdtscp();
  /* AVX as the compiler's runtime checks it: CPUID and the OS's XCR0 */
  bool avx = __builtin_cpu_supports("avx");
  const char *no_rdtscp = "the CPU has no rdtscp (CPUID 0x80000001 EDX bit 27)";
  const char *no_avx = "no AVX (CPUID 1 ECX bit 28, with ymm state in XCR0)";
  measure("floor-call", loop_call, n, "ns/call");
  measure("floor-rdtsc", loop_rdtsc, n, "ns/op");
  measure_if(rdtscp, no_rdtscp, "floor-rdtscp", loop_rdtscp, n, "ns/op");
  measure("floor-clock_gettime", loop_clock, n, "ns/op");
  measure("floor-gettid", loop_gettid, n / 10 + 1, "ns/op");
  measure("floor-fdr-pair-rdtsc", loop_pair_rdtsc, n, "ns/call");
  measure_if(rdtscp, no_rdtscp, "floor-fdr-pair-rdtscp", loop_pair_rdtscp, n, "ns/call");
  measure("floor-pushfq-popfq", loop_pushf, n, "ns/op");
  measure("floor-fnstsw", loop_fnstsw, n, "ns/op");
  measure_if(avx, no_avx, "floor-save-8ymm", loop_save_ymm, n, "ns/op");
  measure("floor-save-8xmm", loop_save_xmm, n, "ns/op");
  measure("floor-read-proc-maps", loop_read_maps, n / 1000 + 1, "ns/op");
  measure("floor-tramp-none", loop_tramp_none, n, "ns/event");
  measure("floor-tramp-gpr", loop_tramp_gpr, n, "ns/event");
  measure("floor-tramp-gpr-xmm", loop_tramp_xmm, n, "ns/event");
  measure_if(avx, no_avx, "floor-tramp-gpr-ymm", loop_tramp_ymm, n, "ns/event");
  measure_if(avx, no_avx, "floor-tramp-gpr-ymm-flags", loop_tramp_ymm_flags, n,
             "ns/event");
  measure_file_write();
  printf("C ok\n");
  return 0;
}
