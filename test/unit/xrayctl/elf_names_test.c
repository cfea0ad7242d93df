/* xrayctl's names from -m BINARY (tools/xrayctl/elf_file.c, instr_map.c,
 * elf_symbols.c, fn_names.c) on small ELF files made here: ids as
 * llvm-xray numbers them (a function that comes back gets a new id),
 * version 0 addresses from RELATIVE and absolute relocations (x86-64 and
 * AArch64 numbers), version 2 PC-relative ones, the symbol chosen among
 * aliases, demangling, .dynsym when there is no .symtab; and refusals:
 * every cut of the file and every flipped byte of its headers is refused
 * or read without reading outside the file (ASan checks the latter in the
 * asan phase). */
#define _GNU_SOURCE
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "xrayctl/elf_file.h"
#include "xrayctl/elf_symbols.h"
#include "xrayctl/fn_names.h"
#include "xrayctl/instr_map.h"

/* The file: header, xray_instr_map (link-time address MAP_ADDR), .rela.dyn,
 * the symbol table and its strings, section names, section headers. */
#define MAP_ADDR 0x3000
#define FN_A 0x1100
#define FN_B 0x1200
#define FN_C 0x1300

struct image {
  unsigned char bytes[8192];
  size_t size;
};

static size_t put(struct image *im, const void *data, size_t n) {
  size_t at = (im->size + 7) & ~(size_t)7;
  assert_true(at + n <= sizeof im->bytes);
  memcpy(im->bytes + at, data, n);
  im->size = at + n;
  return at;
}

struct sled_spec {
  uint64_t address, function;
  uint8_t kind, version;
  int64_t relocate_address, relocate_function; /* -1: none; else the addend */
};

struct options {
  uint16_t machine;
  bool version2;
  bool dynsym_only; /* the symbols in .dynsym, no .symtab */
  bool abs64;       /* the function fields by 64-bit absolute relocations to symbol 1 */
};

/* Entries: A, A, B, A (A comes back: ids 1 A, 2 B, 3 A), C. */
static void make(struct image *im, const struct options *o) {
  memset(im, 0, sizeof *im);
  im->size = sizeof(Elf64_Ehdr);
  const uint64_t fns[5] = {FN_A, FN_A, FN_B, FN_A, FN_C};
  unsigned char map[5 * 32] = {0};
  Elf64_Rela rela[12]; /* two per entry, two elsewhere */
  size_t nrela = 0;
  uint32_t relative = o->machine == EM_X86_64 ? R_X86_64_RELATIVE : R_AARCH64_RELATIVE;
  uint32_t abs64 = o->machine == EM_X86_64 ? R_X86_64_64 : R_AARCH64_ABS64;
  for (int i = 0; i < 5; i++) {
    unsigned char *e = map + 32 * i;
    uint64_t at = MAP_ADDR + 32 * (uint64_t)i;
    uint64_t sled = fns[i] + 4 * (uint64_t)i;
    e[16] = i == 1 ? 1 : 0; /* kind: entry, exit */
    if (o->version2) {
      e[18] = 2;
      uint64_t rel_sled = sled - at, rel_fn = fns[i] - (at + 8);
      memcpy(e, &rel_sled, 8);
      memcpy(e + 8, &rel_fn, 8);
      continue;
    }
    /* version 0, every address in a relocation (zeros in the section) */
    rela[nrela++] = (Elf64_Rela){at, ELF64_R_INFO(0, relative), (int64_t)sled};
    if (o->abs64) /* symbol 1 is at FN_A: the addend is the rest */
      rela[nrela++] = (Elf64_Rela){at + 8, ELF64_R_INFO(1, abs64), (int64_t)(fns[i] - FN_A)};
    else
      rela[nrela++] = (Elf64_Rela){at + 8, ELF64_R_INFO(0, relative), (int64_t)fns[i]};
  }
  /* a relocation elsewhere, and one on the kind byte: both ignored */
  rela[nrela++] = (Elf64_Rela){0x5000, ELF64_R_INFO(0, relative), 0x9999};
  rela[nrela++] = (Elf64_Rela){MAP_ADDR + 16, ELF64_R_INFO(0, relative), 0x9999};
  static const char strtab[] = "\0a_alias\0sized\0b_name\0_ZN2ns3fooEv\0zz_unsized\0later\0";
  /* offsets in strtab: a_alias 1, sized 9, b_name 15, _ZN2ns3fooEv 22, zz_unsized 35, later 46 */
  Elf64_Sym syms[] = {
      {0},
      {9, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, FN_A, 16},  /* sized wins at A */
      {1, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, FN_A, 0},   /* unsized alias */
      {35, ELF64_ST_INFO(STB_LOCAL, STT_FUNC), 0, 1, FN_B, 0},   /* unsized at B */
      {15, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, FN_B, 32}, /* sized at B */
      {46, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, FN_B, 32}, /* same size: b_name < later */
      {22, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, 1, FN_C, 8},  /* demangled: ns::foo() */
      {46, ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT), 0, 1, FN_C, 8}, /* not a function */
      {46, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 0, SHN_UNDEF, FN_C, 8}, /* undefined */
  };
  static const char shstrtab[] = "\0xray_instr_map\0.rela.dyn\0.symtab\0.strtab\0.shstrtab\0";
  /* offsets: xray_instr_map 1, .rela.dyn 16, .symtab 26, .strtab 34, .shstrtab 42 */
  size_t map_off = put(im, map, sizeof map);
  size_t rela_off = put(im, rela, nrela * sizeof rela[0]);
  size_t sym_off = put(im, syms, sizeof syms);
  size_t str_off = put(im, strtab, sizeof strtab);
  size_t shstr_off = put(im, shstrtab, sizeof shstrtab);
  Elf64_Shdr sh[6] = {{0}};
  sh[1] = (Elf64_Shdr){1, SHT_PROGBITS, SHF_ALLOC, MAP_ADDR, map_off, sizeof map, 0, 0, 1, 0};
  sh[2] = (Elf64_Shdr){16, SHT_RELA, SHF_ALLOC, 0, rela_off, nrela * sizeof rela[0], 3, 0, 8,
                       sizeof(Elf64_Rela)};
  sh[3] = (Elf64_Shdr){26, o->dynsym_only ? SHT_DYNSYM : SHT_SYMTAB, 0, 0, sym_off, sizeof syms,
                       4, 1, 8, sizeof(Elf64_Sym)};
  sh[4] = (Elf64_Shdr){34, SHT_STRTAB, 0, 0, str_off, sizeof strtab, 0, 0, 1, 0};
  sh[5] = (Elf64_Shdr){42, SHT_STRTAB, 0, 0, shstr_off, sizeof shstrtab, 0, 0, 1, 0};
  size_t sh_off = put(im, sh, sizeof sh);
  Elf64_Ehdr eh = {0};
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = o->machine;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof eh;
  eh.e_shoff = sh_off;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 6;
  eh.e_shstrndx = 5;
  memcpy(im->bytes, &eh, sizeof eh);
}

static int file_of(const void *bytes, size_t n) {
  int fd = memfd_create("elf", 0);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bytes, n), (ssize_t)n);
  return fd;
}

/* Ids and names of the image through the lower layers: "1 0x1100 sized ..." */
static void read_ids(const struct image *im, char *out, size_t cap) {
  int fd = file_of(im->bytes, im->size);
  struct ctl_elf e;
  struct ctl_instr_map m;
  char err[256];
  out[0] = '\0';
  assert_int_equal(ctl_elf_open(&e, fd, err, sizeof err), 0);
  if (ctl_instr_map_read(&e, &m, err, sizeof err) != 0) {
    snprintf(out, cap, "error: %s", err);
  } else {
    char *names[8];
    assert_true(m.count <= 8);
    assert_int_equal(ctl_elf_symbols_at(&e, m.functions, m.count, names, err, sizeof err), 0);
    size_t len = 0;
    for (size_t i = 0; i < m.count; i++) {
      len += (size_t)snprintf(out + len, cap - len, "%s%zu 0x%llx %s", i ? ", " : "", i + 1,
                              (unsigned long long)m.functions[i], names[i] ? names[i] : "-");
      free(names[i]);
    }
    ctl_instr_map_free(&m);
  }
  ctl_elf_close(&e);
  close(fd);
}

#define IDS "1 0x1100 sized, 2 0x1200 b_name, 3 0x1100 sized, 4 0x1300 _ZN2ns3fooEv"

static void ids_and_symbols(void **state) {
  (void)state;
  struct image im;
  char out[512];
  static const struct options cases[] = {
      {EM_X86_64, false, false, false}, {EM_AARCH64, false, false, false},
      {EM_X86_64, true, false, false},  {EM_AARCH64, true, false, false},
      {EM_X86_64, false, false, true},  {EM_AARCH64, false, false, true},
      {EM_X86_64, false, true, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    make(&im, &cases[i]);
    read_ids(&im, out, sizeof out);
    assert_string_equal(out, IDS);
  }
}

static const char *path_of(int fd, char *buf, size_t cap) {
  snprintf(buf, cap, "/proc/self/fd/%d", fd);
  return buf;
}

/* Through the table: demangled names by id, the map's names first. */
static void names_by_id(void **state) {
  (void)state;
  struct image im;
  make(&im, &(struct options){EM_X86_64, false, false, false});
  int fd = file_of(im.bytes, im.size);
  char path[64], err[256];
  struct ctl_names *n = ctl_names_open(path_of(fd, path, sizeof path), NULL, err, sizeof err);
  assert_non_null(n);
  assert_string_equal(ctl_names_get(n, 1), "sized");
  assert_string_equal(ctl_names_get(n, 2), "b_name");
  assert_string_equal(ctl_names_get(n, 3), "sized");
  /* demangled by the system's libstdc++ (or libc++abi), loaded at run time */
  assert_string_equal(ctl_names_get(n, 4), "ns::foo()");
  assert_null(ctl_names_get(n, 0));
  assert_null(ctl_names_get(n, 5));
  ctl_names_close(n);

  static const char map[] =
      "# XRay object map of log: function <packed id> <object> <function> <name>\n"
      "object 0 loaded base 0x1 functions 4 build-id - id-base 0 path p\n"
      "object 1 loaded base 0x2 functions 1 build-id - id-base 4 path q\n"
      "function 2 0 2 the map's b\nfunction 16777217 1 1 in_q\n";
  int mfd = file_of(map, sizeof map - 1);
  char mpath[64];
  n = ctl_names_open(path, path_of(mfd, mpath, sizeof mpath), err, sizeof err);
  assert_non_null(n);
  assert_string_equal(ctl_names_get(n, 1), "sized");
  assert_string_equal(ctl_names_get(n, 2), "the map's b");
  assert_string_equal(ctl_names_get(n, 16777217), "in_q");
  ctl_names_close(n);
  close(mfd);
  close(fd);
}

static void expect_refusal(const struct image *im, const char *message) {
  int fd = file_of(im->bytes, im->size);
  char path[64], err[256], want[320];
  assert_null(ctl_names_open(path_of(fd, path, sizeof path), NULL, err, sizeof err));
  snprintf(want, sizeof want, "%s: %s", path, message);
  assert_string_equal(err, want);
  close(fd);
}

static void refusals(void **state) {
  (void)state;
  struct image im;
  const struct options x86 = {EM_X86_64, false, false, false};
  make(&im, &x86);
  im.bytes[EI_CLASS] = ELFCLASS32;
  expect_refusal(&im, "not a 64-bit little-endian ELF file");
  make(&im, &x86);
  im.bytes[offsetof(Elf64_Ehdr, e_machine)] = EM_386;
  expect_refusal(&im, "ELF machine 3 is neither x86-64 nor AArch64");
  make(&im, &x86);
  im.bytes[offsetof(Elf64_Ehdr, e_type)] = ET_REL;
  expect_refusal(&im, "not an executable or shared object (ELF type 1)");
  make(&im, &x86);
  im.bytes[offsetof(Elf64_Ehdr, e_shoff) + 3] = 0x7f;
  expect_refusal(&im, "section headers lie outside the file");
  make(&im, &x86);
  im.bytes[sizeof(Elf64_Ehdr) + 16] = 9; /* the first entry's kind */
  expect_refusal(&im, "xray_instr_map entry 0 is not a sled (kind 9, version 0)");
  make(&im, &x86);
  /* the second relocation (entry 0's function) of type 7: not one that gives an address */
  memcpy(im.bytes + sizeof(Elf64_Ehdr) + 5 * 32 + sizeof(Elf64_Rela) + 8, "\x07\0\0\0", 4);
  expect_refusal(&im, "xray_instr_map entry 0 has no address (an unrelocated object file?)");
  /* the section name no longer found */
  make(&im, &x86);
  char *name = memmem(im.bytes, im.size, "xray_instr_map", 14);
  assert_non_null(name);
  name[0] = 'y';
  expect_refusal(&im, "no xray_instr_map section (not built with -fxray-instrument, or no "
                      "function was instrumented)");
}

/* Every prefix of the file and every byte of it changed: refused with a
 * message, or read; never read outside the file. */
static void hostile_files(void **state) {
  (void)state;
  struct image im, bad;
  const struct options kinds[] = {{EM_X86_64, false, false, false},
                                  {EM_AARCH64, true, false, true}};
  for (size_t k = 0; k < 2; k++) {
    make(&im, &kinds[k]);
    for (size_t cut = 0; cut <= im.size; cut++) {
      int fd = file_of(im.bytes, cut);
      char path[64], err[256] = "";
      struct ctl_names *n = ctl_names_open(path_of(fd, path, sizeof path), NULL, err, sizeof err);
      assert_true((n == NULL) == (err[0] != '\0'));
      ctl_names_close(n);
      close(fd);
    }
    for (size_t at = 0; at < im.size; at++)
      for (int v = 0; v < 3; v++) {
        static const unsigned char values[3] = {0x00, 0xff, 0x41};
        bad = im;
        bad.bytes[at] = bad.bytes[at] == values[v] ? (unsigned char)(values[v] ^ 1) : values[v];
        int fd = file_of(bad.bytes, bad.size);
        char path[64], err[256] = "";
        struct ctl_names *n = ctl_names_open(path_of(fd, path, sizeof path), NULL, err, sizeof err);
        assert_true((n == NULL) == (err[0] != '\0'));
        for (int32_t id = -1; n != NULL && id < 8; id++)
          (void)ctl_names_get(n, id);
        ctl_names_close(n);
        close(fd);
      }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ids_and_symbols), cmocka_unit_test(names_by_id),
      cmocka_unit_test(refusals),        cmocka_unit_test(hostile_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
