/* An instrumentation map of version 0 (absolute addresses), written by
 * hand as compilers before PC-relative sleds wrote it, for xrayctl's names
 * module: linked as a PIE by lld, its address fields hold zeros and the
 * addresses are in .rela.dyn's RELATIVE relocations (llvm-xray reads them
 * there too); linked without PIE, they are in the section. `first` comes
 * back after `third`, so ids 1 and 4 name one function (llvm-xray numbers
 * a function anew each time the map's function changes). Not instrumented:
 * only read, never run with a runtime. */
#define NOINLINE __attribute__((noinline, used))
static volatile int sink;
NOINLINE int first(int x) { sink += x; return x + 1; }
NOINLINE int second(int x) { sink += x; return x + 2; }
NOINLINE static int third(int x) { sink += x; return x + 3; }
int main(void) { return first(1) + second(2) + third(3) - 12; }

/* address, function, kind (0 entry, 1 exit), always-instrument, version */
#define SLED(at, fn, kind) ".quad " at ", " fn "\n.byte " kind ", 0, 0\n.zero 13\n"
__asm__(".section xray_instr_map, \"aw\"\n"
        SLED("first", "first", "0") SLED("first+4", "first", "1")
        SLED("second", "second", "0") SLED("third", "third", "0")
        SLED("first+8", "first", "1")
        ".previous\n");
