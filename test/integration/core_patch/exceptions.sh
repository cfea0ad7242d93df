# C++ exceptions through patched functions and out of handlers running inside
# each trampoline; gdb backtraces through the trampolines (if gdb exists).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cxx exceptions "$TEST_SRC_DIR/exceptions.cc" -O2
./exceptions >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "exited $exit_status"; }
expect_file_eq "exceptions" "$(xr_expected exceptions)" out.txt

command -v gdb >/dev/null || { note "gdb not found: backtrace part skipped"; exit 0; }
[ -z "${XRAY_TEST_EMULATOR:-}" ] || { note "under emulation: backtrace part skipped (gdb debugs the host's programs)"; exit 0; }
# Stop in the handler when it runs inside each trampoline; the backtrace
# must name the trampoline and then the right caller: at an entry the
# function, at an exit or tail exit the function's caller (the function has
# returned: docs/core.md, "Unwinding").
# In "gdb" mode the program runs middle(0) (which calls thrower),
# tail_to_leaf(1) (tail call to leaf) and with_event(). One gdb session stops
# at every handler call and prints the first 4 frames of each backtrace.
cmds=(-ex "break gdb_stop" -ex "break custom_handler" -ex "run gdb" -ex "bt 4")
for _ in 1 2 3 4 5 6 7 8 9; do cmds+=(-ex continue -ex "bt 4"); done
timeout 60 gdb -q -batch -nx "${cmds[@]}" ./exceptions >gdb.txt 2>&1 || true
grep -E '^#[0-9]' gdb.txt |
  sed -E 's/^#([0-9]+) +(0x[0-9a-f]+ in )?([A-Za-z_][A-Za-z_0-9:]*).*/\1 \3/' |
  awk '$1 == 0 && NR > 1 { print line; line = "" } { line = line (line ? " " : "") $2 }
       END { print line }' >stops.txt
cat >expected_stops.txt <<'END'
gdb_stop __xray_FunctionEntry middle main
gdb_stop __xray_FunctionEntry thrower middle
gdb_stop __xray_FunctionExit middle main
gdb_stop __xray_FunctionExit main
gdb_stop __xray_FunctionEntry tail_to_leaf main
gdb_stop __xray_FunctionTailExit main
gdb_stop __xray_FunctionEntry leaf main
gdb_stop __xray_FunctionExit main
gdb_stop __xray_FunctionEntry with_event main
custom_handler __xray_CustomEvent with_event main
END
expect_file_eq "gdb backtraces through the trampolines" expected_stops.txt stops.txt
