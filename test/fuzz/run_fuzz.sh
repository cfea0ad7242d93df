# Runs one fuzz target (bash run_fuzz.sh MODE TARGET PROGRAM).
#   MODE replay: PROGRAM is the replay build; runs every seed once.
#   MODE fuzz:   PROGRAM is the libFuzzer build; fuzzes for
#                $XRAY_FUZZ_SECONDS (default 30) starting from the seeds;
#                on a crash prints the input and the report and fails.
# Seeds: test/fuzz/corpus/TARGET/ (committed), plus for sled_map the real
# xray_instr_map sections of small instrumented programs compiled here.
set -euo pipefail
mode=$1 target=$2 program=$3
rm -rf "$TEST_WORK_DIR"
mkdir -p "$TEST_WORK_DIR/seeds" "$TEST_WORK_DIR/corpus"
cd "$TEST_WORK_DIR"
cp "$FUZZ_CORPUS_DIR/$target/"* seeds/ 2>/dev/null || true

# sled_map input = 3-byte header (flags, u16 map length) + map + fn_idx.
add_sled_seed() { # NAME MAP_FILE [IDX_FILE]
  local name=$1 map=$2 idx=${3:-} len flags=0
  len=$(stat -c %s "$map")
  [ "$len" -le 65535 ] || return 0
  [ -z "$idx" ] || flags=8
  {
    printf '%b' "\\x$(printf %02x "$flags")\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))"
    cat "$map"
    [ -z "$idx" ] || cat "$idx"
  } >"seeds/$name"
}
objcopy_tool=$(command -v llvm-objcopy || command -v objcopy || true)
if [ "$target" = sled_map ] && [ -n "${XRAY_CLANG:-}" ] && [ -n "$objcopy_tool" ]; then
  cat >seed.c <<'C'
int leaf(int x) { return x * 3 + 1; }
int tail(int x) { return leaf(x + 1); }
__attribute__((xray_log_args(1))) int logged(int x) { return x ? tail(x) : 0; }
int loop(int n) { int s = 0; for (int i = 0; i < n; i++) s += logged(i); return s; }
int main(int argc, char **argv) { (void)argv; return loop(argc) & 1; }
C
  for variant in "-O0" "-O2" "-O1 -no-pie" "-O2 -flto -fuse-ld=lld"; do
    # shellcheck disable=SC2086  # each variant is a list of flags
    "$XRAY_CLANG" $variant -fxray-instrument \
      -fxray-instruction-threshold=1 seed.c -o seed 2>/dev/null || continue
    tag=$(echo "$variant" | tr -c 'a-zA-Z0-9\n' '_')
    "$objcopy_tool" --dump-section xray_instr_map=map.bin seed /dev/null 2>/dev/null || continue
    idx=""
    "$objcopy_tool" --dump-section xray_fn_idx=idx.bin seed /dev/null 2>/dev/null && idx=idx.bin
    add_sled_seed "real$tag" map.bin "$idx"
    add_sled_seed "real${tag}_noidx" map.bin
    rm -f map.bin idx.bin
  done
fi
# fn_names: byte 0 '1' then an ELF file (-m), small instrumented programs
# compiled here (and stripped: .dynsym only), beside the committed maps
# (byte 0 '0').
if [ "$target" = fn_names ] && [ -n "${XRAY_CLANG:-}" ]; then
  cat >seed.c <<'C'
int leaf(int x) { return x * 3 + 1; }
static int tail(int x) { return leaf(x + 1); }
int main(int argc, char **argv) { (void)argv; return tail(argc) & 1; }
C
  for variant in "-O1" "-O1 -no-pie" "-O1 -s -rdynamic" "-O1 -shared -fPIC"; do
    # shellcheck disable=SC2086  # each variant is a list of flags
    "$XRAY_CLANG" $variant -fxray-instrument -fxray-instruction-threshold=1 \
      "$(if "$XRAY_CLANG" -fxray-instrument -fno-xray-link-deps -x c -E /dev/null -o /dev/null 2>/dev/null; then
           echo -fno-xray-link-deps; else echo -fnoxray-link-deps; fi)" seed.c -o seed 2>/dev/null || continue
    { printf 1; cat seed; } >"seeds/elf$(echo "$variant" | tr -c 'a-zA-Z0-9\n' '_')"
  done
  if "$XRAY_CLANG" -O1 -fuse-ld=lld "$FUZZ_CORPUS_DIR/../../integration/names/fn_names_v0.c" \
       -o v0 2>/dev/null; then
    { printf 1; cat v0; } >seeds/elf_v0_relocations
  fi
fi
[ -n "$(ls seeds)" ] || { echo "no seeds for $target" >&2; exit 1; }

if [ "$mode" = replay ]; then
  # A cross build (test/integration/cross.sh): under the emulator.
  exec ${XRAY_TEST_EMULATOR:-} "$program" seeds
fi

seconds=${XRAY_FUZZ_SECONDS:-30}
set +e
# -close_fd_mask=2: the runtime reports every bad option on stderr, which
# would slow fuzzing to a crawl; a crash input is replayed below with stderr.
dict=()
case $target in options | mode_config) dict=(-dict="$(dirname "$FUZZ_CORPUS_DIR")/options.dict") ;; esac
# fn_names' ELF seeds are whole programs (about 16 KB): cut to 4 KB they
# would lose their section headers, and the fuzzer every path behind them.
max_len=4096
[ "$target" != fn_names ] || max_len=65536
"$program" corpus seeds "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -max_len=$max_len -close_fd_mask=2 -print_final_stats=1 \
  >fuzz.log 2>&1
rc=$?
set -e
tail -n 25 fuzz.log
if [ $rc -ne 0 ]; then
  for crash in crash-* leak-* timeout-* oom-*; do
    [ -e "$crash" ] || continue
    echo "=== failing input $crash:"
    od -An -c "$crash" | head -n 20
    echo "=== replay:"
    "$program" "$crash" 2>&1 | tail -n 40 || true
  done
  echo "FAIL: fuzz target $target found a problem (inputs kept in $TEST_WORK_DIR)" >&2
  exit 1
fi
echo "corpus: $(find corpus -mindepth 1 -maxdepth 1 | wc -l) inputs after ${seconds}s"
