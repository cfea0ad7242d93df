# The argument trampolines through real functions (values.c): every
# argument and result register as the hook saw it and as the caller got
# it back, bit for bit (NaN payloads, -0.0, floats, structs, a long double
# result, ymm/zmm arguments kept whole while the hook clobbers them), the
# per-sled choice (entry-only, exit-only, log-args, tail exits, functions
# without bits counted by the usual handler), no hook. Then gdb's
# backtraces from inside the hook, at an entry and at an exit.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
objects=()
if [ "$XRAY_TEST_ARCH" = x86_64 ]; then # vector arguments in ymm / zmm need the flags
  for v in avx avx512; do
    flag=-m$v; [ $v = avx512 ] && flag=-mavx512f
    "$XRAY_CLANG" -g -O1 "${XRAY_CFLAGS[@]}" -I"$XRAY_SRC/lib" "$flag" -c "$TEST_SRC_DIR/vec_$v.c" \
      -o "vec_$v.o"
    objects+=("vec_$v.o")
  done
fi
xr_cc values "$TEST_SRC_DIR/values.c" ${objects[@]+"${objects[@]}"} -I"$XRAY_SRC/lib" -lm
./values >out.txt 2>err.txt || { exit_status=$?; cat out.txt err.txt >&2; fail "exited $exit_status"; }
expect_file_eq "captured values" "$(xr_expected values)" out.txt

command -v gdb >/dev/null || { note "gdb not found: gdb part skipped"; exit 0; }
[ -z "${XRAY_TEST_EMULATOR:-}" ] || { note "under emulation: gdb part skipped (gdb debugs the host's programs)"; exit 0; }
timeout 60 gdb -q -batch -nx -ex "break gdb_at_hook" -ex "run gdb" -ex "bt 8" -ex continue \
  -ex "bt 8" -ex continue ./values >gdb.txt 2>&1 || true
grep -E '^#[0-9]' gdb.txt |
  sed -E 's/^#([0-9]+) +(0x[0-9a-f]+ in )?([A-Za-z_][A-Za-z_0-9]*).*/\1 \3/' |
  awk '$1 == 0 && NR > 1 { print line; line = "" } { line = line (line ? " " : "") $2 }
       END { print line }' >stops.txt
cat >expected_stops.txt <<'END'
gdb_at_hook gdb_hook xr_args_entry_trampoline gdb_entry main
gdb_at_hook gdb_hook xr_args_exit_trampoline main
END
expect_file_eq "gdb backtraces from the hook" expected_stops.txt stops.txt
