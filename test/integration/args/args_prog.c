/* Functions with known arguments and results of every kind the argument
 * SPEC names, called once each, and the values they were called with
 * written to expect.txt (one line per captured value: function, value
 * name, the value's 64 bits in hex, its string status and text for /s),
 * so the checkers compare what every output recorded against what the
 * calls really passed, bit for bit.
 *
 *   args_prog run          the calls, then exit (the mode writes at exit)
 *   args_prog serve DIR    waits for DIR/go<N> files: for each, makes
 *                          request(N*100+i, "req-N-i") for i in 0..2, then
 *                          writes DIR/done<N>; exits when DIR/stop appears
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, used))

static FILE *expect;

static uint64_t bits_d(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static double from_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static uint32_t bits_f(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float from_bits_f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static void want(const char *fn, const char *what, uint64_t bits) {
  fprintf(expect, "%s %s 0x%016llx\n", fn, what, (unsigned long long)bits);
}
/* A string value: its pointer, status and the bytes that must be kept. */
static void want_s(const char *fn, const char *what, const void *p, const char *status,
                   const char *text, size_t len) {
  fprintf(expect, "%s %s 0x%016llx %s ", fn, what, (unsigned long long)(uintptr_t)p, status);
  for (size_t i = 0; i < len; i++)
    fprintf(expect, "%02x", (unsigned char)text[i]);
  fprintf(expect, "\n");
}

volatile long sink;
volatile double dsink; /* doubles kept as doubles: a NaN has no long */

NOINLINE long int_args(long a, long b, long c, long d, long e, long f) {
  sink = a ^ b ^ c ^ d ^ e ^ f;
  return (long)((unsigned long)a - (unsigned long)b + (unsigned long)c - (unsigned long)d +
                (unsigned long)e - (unsigned long)f); /* wraps, never overflows */
}
NOINLINE long int8_args(long a, long b, long c, long d, long e, long f, long g, long h) {
  sink = a ^ h;
  return (long)((unsigned long)a + (unsigned long)b + (unsigned long)c + (unsigned long)d +
                (unsigned long)e + (unsigned long)f + (unsigned long)g + (unsigned long)h);
}
NOINLINE void *ptr_args(void *p, unsigned long u, unsigned long x) {
  sink = (long)u ^ (long)x;
  return (char *)p + 1;
}
NOINLINE double fp_args(double a, double b, double c, double d, double e, double f, double g,
                        double h) {
  dsink = a + b + c + d + e + f + g + h;
  return from_bits(0x7ff4000000c0ffeeULL); /* a NaN with a payload */
}
volatile float fsink;
NOINLINE float float_args(float a, float b) {
  fsink = a;
  fsink = b; /* used, so the caller passes it */
  return -0.0f;
}
NOINLINE unsigned long mixed(long a, double x, long b, float y) {
  sink = a + b;
  dsink = x + y;
  return 0xfeedfacecafebeefULL;
}
struct lpair {
  long a, b;
};
struct dpair {
  double x, y;
};
NOINLINE long spair(struct lpair s) {
  sink = s.a;
  return s.a + s.b;
}
NOINLINE double dpair(struct dpair s) {
  dsink = s.x;
  return s.x * s.y;
}
NOINLINE const char *str_arg(const char *s) {
  sink = (long)(uintptr_t)s;
  return s;
}
NOINLINE int request(int id, const char *name) {
  sink = id + name[0];
  return id * 2;
}

static void run(void) {
  long v[8] = {-1, 0x7fffffffffffffffL, (long)0x8000000000000000UL, 42, 0, -123456789,
               0x1122334455667788L, -2};
  long r = int_args(v[0], v[1], v[2], v[3], v[4], v[5]);
  for (int i = 0; i < 6; i++) {
    char n[8];
    snprintf(n, sizeof n, "arg%d", i + 1);
    want("int_args", n, (uint64_t)v[i]);
  }
  want("int_args", "retval", (uint64_t)r);
#ifdef __aarch64__
  r = int8_args(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
  want("int8_args", "arg7", (uint64_t)v[6]);
  want("int8_args", "arg8", (uint64_t)v[7]);
  want("int8_args", "retval", (uint64_t)r);
#endif

  static char obj[16];
  void *p = ptr_args(obj, ~0UL, 0xdeadbeefUL);
  want("ptr_args", "arg1", (uintptr_t)obj);
  want("ptr_args", "arg2", ~0ULL);
  want("ptr_args", "arg3", 0xdeadbeefULL);
  want("ptr_args", "retval", (uintptr_t)p);

  uint64_t d[8] = {bits_d(1.5), 0x8000000000000000ULL /* -0.0 */, 0x7ff8dead0000beefULL,
                   bits_d(INFINITY), bits_d(-INFINITY), bits_d(1e-310) /* subnormal */,
                   bits_d(0.1), bits_d(-3.25e300)};
  double rd = fp_args(from_bits(d[0]), from_bits(d[1]), from_bits(d[2]), from_bits(d[3]),
                      from_bits(d[4]), from_bits(d[5]), from_bits(d[6]), from_bits(d[7]));
  for (int i = 0; i < 8; i++) {
    char n[8];
    snprintf(n, sizeof n, "fparg%d", i + 1);
    want("fp_args", n, d[i]);
  }
  want("fp_args", "retval", bits_d(rd));

  uint32_t f1 = bits_f(3.14159274f), f2 = 0x7fc0abcdu; /* a float NaN with a payload */
  float rf = float_args(from_bits_f(f1), from_bits_f(f2));
  want("float_args", "fparg1", f1);
  want("float_args", "fparg2", f2);
  want("float_args", "retval", bits_f(rf));

  unsigned long rm = mixed(-7, 2.5, 99, 0.75f);
  want("mixed", "arg1", (uint64_t)(int64_t)-7);
  want("mixed", "fparg1", bits_d(2.5));
  want("mixed", "arg2", 99);
  want("mixed", "fparg2", bits_f(0.75f));
  want("mixed", "retval", rm);

  struct lpair lp = {0x0102030405060708L, -9};
  long rl = spair(lp);
  want("spair", "arg1", (uint64_t)lp.a);
  want("spair", "arg2", (uint64_t)lp.b);
  want("spair", "retval", (uint64_t)rl);
  struct dpair dp = {2.0, -0.5};
  double rdp = dpair(dp);
  want("dpair", "fparg1", bits_d(dp.x));
  want("dpair", "fparg2", bits_d(dp.y));
  want("dpair", "retval", bits_d(rdp));

  /* Strings: valid, NULL, unmapped, at a page end without NUL, longer
   * than the bound. */
  long page = sysconf(_SC_PAGESIZE);
  char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (two == MAP_FAILED || mprotect(two + page, page, PROT_NONE))
    abort();
  char *tail = two + page - 10;
  memset(tail, 'z', 10);
  static char longer[101];
  for (int i = 0; i < 100; i++)
    longer[i] = (char)('A' + i % 26);
  const char *valid = "hello, \"world\"\n";
  str_arg(valid);
  want_s("str_arg", "arg1", valid, "ok", valid, strlen(valid));
  str_arg(NULL);
  want_s("str_arg", "arg1", NULL, "null", "", 0);
  str_arg(two + page);
  want_s("str_arg", "arg1", two + page, "unreadable", "", 0);
  str_arg(tail);
  want_s("str_arg", "arg1", tail, "partial", tail, 10);
  str_arg(longer);
  want_s("str_arg", "arg1", longer, "cut", longer, 64);
}

static int file_exists(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

static void serve(const char *dir) {
  for (int n = 1;; n++) {
    char go[32], done[32];
    snprintf(go, sizeof go, "go%d", n);
    snprintf(done, sizeof done, "done%d", n);
    while (!file_exists(dir, go)) {
      if (file_exists(dir, "stop"))
        return;
      usleep(1000);
    }
    for (int i = 0; i < 3; i++) {
      char name[32];
      snprintf(name, sizeof name, "req-%d-%d", n, i);
      request(n * 100 + i, name);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, done);
    FILE *f = fopen(path, "w");
    if (f == NULL)
      abort();
    fclose(f);
  }
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "serve") == 0) {
    serve(argv[2]);
    return 0;
  }
  expect = fopen("expect.txt", "w");
  if (expect == NULL)
    return 1;
  run();
  fclose(expect);
  return 0;
}
