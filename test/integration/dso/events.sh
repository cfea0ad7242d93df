# Custom and typed events from a dlopen'd shared object: its event sleds are
# patched with the object and reach the executable's event trampolines.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
xr_so "$XRAY_CLANG" events_plugin.so "$TEST_SRC_DIR/events_plugin.c" -I"$XRAY_INCLUDE"
xr_exe "$XRAY_CLANG" events "$TEST_SRC_DIR/events.c"
./events "$PWD/events_plugin.so" >out.txt 2>err.txt || { exit_status=$?; cat out.txt err.txt >&2; fail "events exited $exit_status"; }
cat >expected.txt <<'END'
patch object 1: 1
function object 1 function 1 entry
custom plugin
typed 7 plu
function object 1 function 1 exit
unpatch object 1: 1
done
END
expect_file_eq "events from a shared object" expected.txt out.txt
