# Unwinding through a patched tail exit, in every path of its trampoline
# (none, lean, each copy of the full paths) and through a shared object's
# forwarder and dense path, with and without frame pointers: backtraces
# (_Unwind_Backtrace from the handler and, on x86-64, at every
# single-stepped instruction of that code) name the exact frames, and a C++
# exception thrown by the handler lands in the caller's catch with its value
# and the caller's callee-saved registers intact (tail_unwind.cc). Then
# gdb's backtraces at the same places.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
{ [ -n "${XRAY_DSO_LIB:-}" ] && [ -f "$XRAY_DSO_LIB" ]; } || skip "libxray-dso.a not built"
[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"
READELF=${XRAY_READELF:-readelf}
if [ "$XRAY_TEST_ARCH" = aarch64 ]; then
  object_code=(xr_dso_exit xr_dso_exit_dense)
else
  object_code=(xr_dso_tail_exit xr_dso_tail_exit_dense)
fi
for fp in omit keep; do
  flag=-fomit-frame-pointer
  [ $fp = keep ] && flag=-fno-omit-frame-pointer
  lib=libtail_unwind_$fp.so
  "$XRAY_CLANGXX" -g -O2 "$flag" -fPIC -shared "${XRAY_CFLAGS[@]}" "$TEST_SRC_DIR/tail_unwind_so.cc" \
    -o "$lib" -Wl,--whole-archive "$XRAY_DSO_LIB" -Wl,--no-whole-archive \
    ${XRAY_SANITIZE_FLAGS[@]+"${XRAY_SANITIZE_FLAGS[@]}"}
  # -rdynamic: dladdr names the program's functions and gives the size of
  # the trampoline, and the object finds the runtime's ABI.
  xr_cxx "tail_unwind_$fp" "$TEST_SRC_DIR/tail_unwind.cc" -O2 "$flag" -rdynamic \
    -I"$XRAY_SRC/lib" -L. "-ltail_unwind_$fp" -Wl,-rpath,\$ORIGIN -ldl
  # The object's hidden forwarder and dense path: NAME=offset:size.
  ranges=()
  for name in "${object_code[@]}"; do
    r=$("$READELF" -sW "$lib" | awk -v n="$name" '$8 == n && $4 == "FUNC" { print n "=" $2 ":" $3 }')
    [ -n "$r" ] || fail "$lib has no $name"
    ranges+=("$r")
  done
  "./tail_unwind_$fp" "${ranges[@]}" >"out_$fp.txt" 2>"err_$fp.txt" ||
    { exit_status=$?; cat "out_$fp.txt" "err_$fp.txt" >&2; fail "$flag: exited $exit_status"; }
  expect_file_eq "$flag" "$(xr_expected tail_unwind)" "out_$fp.txt"
done

command -v gdb >/dev/null || { note "gdb not found: gdb part skipped"; exit 0; }
[ -z "${XRAY_TEST_EMULATOR:-}" ] || { note "under emulation: gdb part skipped (gdb debugs the host's programs)"; exit 0; }
# "gdb" mode calls gdb_driver three times, with no handler, a lean one and a
# full one. Stops: at the trampoline's first instruction each time; 3
# instructions further into the lean and the full path (inside the pushes:
# other CFA offsets); in the handler (gdb_at_tail). Not at a `ret`: there
# gdb trusts no CFI of code without debug information and takes the return
# address on top of the stack (its amd64 epilogue unwinder), which is the
# sled's, into the function, whose stale CFI then reads the overwritten
# slots (docs/core.md, "Unwinding").
cmds=(-ex "break __xray_FunctionTailExit" -ex "break gdb_at_tail" -ex "run gdb"
      -ex "bt 6" -ex continue
      -ex "bt 6" -ex "stepi 3" -ex "bt 6" -ex continue -ex "bt 6" -ex continue
      -ex "bt 6" -ex "stepi 3" -ex "bt 6" -ex continue -ex "bt 6" -ex continue)
cat >expected_stops.txt <<'END'
__xray_FunctionTailExit gdb_driver main
__xray_FunctionTailExit gdb_driver main
__xray_FunctionTailExit gdb_driver main
gdb_at_tail gdb_handler __xray_FunctionTailExit gdb_driver main
__xray_FunctionTailExit gdb_driver main
__xray_FunctionTailExit gdb_driver main
gdb_at_tail gdb_handler __xray_FunctionTailExit gdb_driver main
END
for fp in omit keep; do
  timeout 60 gdb -q -batch -nx "${cmds[@]}" "./tail_unwind_$fp" >"gdb_$fp.txt" 2>&1 || true
  grep -E '^#[0-9]' "gdb_$fp.txt" |
    sed -E 's/^#([0-9]+) +(0x[0-9a-f]+ in )?([A-Za-z_][A-Za-z_0-9:]*).*/\1 \3/' |
    awk '$1 == 0 && NR > 1 { print line; line = "" } { line = line (line ? " " : "") $2 }
         END { print line }' >"stops_$fp.txt"
  expect_file_eq "gdb backtraces, $fp frame pointers" expected_stops.txt "stops_$fp.txt"
done
