/* What the CPU says about its time-stamp counter, for core/clock/clock.c. */
#include "arch/arch.h"

#include <cpuid.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
  __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* Valgrind's client request RUNNING_ON_VALGRIND (request number 0x1001,
 * its address in rax, the answer in rdx): valgrind recognises the four
 * rotations of rdi followed by xchg %rbx,%rbx and answers with its nesting
 * depth; a CPU runs them as no-ops (3 + 13 + 61 + 51 = 128: rdi is
 * unchanged) and rdx keeps 0. */
static bool under_valgrind(void) {
  volatile uint64_t request[6] = {0x1001};
  uint64_t depth = 0, rdi = 0;
  __asm__ volatile("rolq $3, %%rdi\n\trolq $13, %%rdi\n\t"
                   "rolq $61, %%rdi\n\trolq $51, %%rdi\n\t"
                   "xchgq %%rbx, %%rbx"
                   : "+d"(depth), "+D"(rdi)
                   : "a"(request)
                   : "cc", "memory");
  return depth != 0;
}

/* Whether the host kernel lists `flag` on the first "flags" line of
 * /proc/cpuinfo (valgrind passes the file through: it is the host CPU's
 * CPUID as the kernel read it). No file, no line: false. Static buffer: the
 * probe runs once (clock.c's pthread_once), maybe on a small signal stack. */
static bool host_lists(const char *flag) {
  static char buf[8192];
  int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  size_t len = 0;
  ssize_t n;
  while (len < sizeof buf - 1 &&
         (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
    len += (size_t)n;
  close(fd);
  buf[len] = 0;
  char *line = strstr(buf, "\nflags");
  char *end = line ? strchr(line + 1, '\n') : NULL;
  if (!end)
    return false; /* no flags line, or cut by the buffer */
  size_t flen = strlen(flag);
  for (char *p = strchr(line + 1, ':'); p && p < end; p = strchr(p + 1, ' '))
    if (strncmp(p + 1, flag, flen) == 0 &&
        (p[1 + flen] == ' ' || p[1 + flen] == '\n'))
      return true;
  return false;
}

/* The TSC: invariant (CPUID 0x80000007 EDX bit 8); its frequency exactly
 * from CPUID 0x15 (crystal clock x TSC/crystal ratio) or the hypervisor
 * timing leaf 0x40000010 (EAX = TSC kHz), else a nominal base from 0x16;
 * rdpid (CPUID 7 ECX bit 22) and rdtscp (0x80000001 EDX bit 27).
 * Under valgrind CPUID is not the CPU's: valgrind answers from a fixed
 * table of a real CPU model (3.19 lists rdtscp in every table for hosts
 * with SSE4.2, rdpid in none), while its decoder translates rdtscp only when
 * the host CPU has it (rdpid never): the program would die of SIGILL. So
 * there each reader also needs the host's own flag in /proc/cpuinfo. */
void xr_arch_clock_probe(struct xr_arch_clock_caps *out) {
  unsigned r[4];
  *out = (struct xr_arch_clock_caps){.exact_source = "cpuid",
                                     .cpu_insn_name = "rdpid",
                                     .ticks_cpu_name = "rdtscp"};
  cpuid(0, 0, r);
  unsigned max_basic = r[0];
  if (max_basic >= 1) {
    cpuid(1, 0, r);
    out->hypervisor = (r[2] >> 31) & 1;
  }
  if (max_basic >= 7) {
    cpuid(7, 0, r);
    out->cpu_insn = (r[2] >> 22) & 1;
  }
  cpuid(0x80000000, 0, r);
  unsigned max_ext = r[0];
  if (max_ext >= 0x80000001) {
    cpuid(0x80000001, 0, r);
    out->ticks_cpu = (r[3] >> 27) & 1;
  }
  if ((out->cpu_insn || out->ticks_cpu) && under_valgrind()) {
    out->emulator = "valgrind";
    out->cpu_insn = out->cpu_insn && host_lists("rdpid");
    out->ticks_cpu = out->ticks_cpu && host_lists("rdtscp");
  }
  if (max_ext >= 0x80000007) {
    cpuid(0x80000007, 0, r);
    out->invariant_ticks = (r[3] >> 8) & 1;
  }
  if (!out->invariant_ticks)
    return; /* the frequency leaves are not needed: no cpuid exits paid */
  if (max_basic >= 0x15) {
    cpuid(0x15, 0, r); /* EAX denominator, EBX numerator, ECX crystal Hz */
    if (r[0] && r[1] && r[2]) {
      out->exact_hz = (uint64_t)r[2] * r[1] / r[0];
      return;
    }
  }
  if (out->hypervisor) {
    cpuid(0x40000000, 0, r);
    if (r[0] >= 0x40000010) {
      cpuid(0x40000010, 0, r);
      if (r[0]) {
        out->exact_hz = (uint64_t)r[0] * 1000u;
        return;
      }
    }
  }
  if (max_basic >= 0x16) {
    cpuid(0x16, 0, r); /* EAX base MHz */
    out->nominal_hz = (uint64_t)(r[0] & 0xffff) * 1000000u;
  }
}
