# Names across objects: xray_patch / xray_skip reach shared objects, linked
# and dlopen'd (patch_premain), patterns and names through the API cover
# every object with packed ids, symbolize names the object's file, and a
# dlclose'd then reloaded plugin is named and patched afresh. A pattern is
# said to match nothing only when no object matched it: before main (the
# executable and the linked objects; objects loaded later may still match)
# and, when objects registered since, at exit; once per process (not by a
# fork child), at verbosity 0 only on a terminal.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
dso=$XRAY_SRC/test/integration/dso
xr_so "$XRAY_CLANG" libsecond.so "$dso/second.c"
xr_so "$XRAY_CLANG" libfirst.so "$dso/first.c" -L. -lsecond -Wl,-rpath,\$ORIGIN
xr_so "$XRAY_CLANG" plugin.so "$dso/plugin.c"
xr_exe "$XRAY_CLANG" objects "$TEST_SRC_DIR/objects.c" -L. -lfirst -Wl,-rpath,\$ORIGIN

run() { # OPTIONS: prints the premain line
  XRAY_OPTIONS="patch_premain=true $1" ./objects run "$PWD/plugin.so" 2>err.txt ||
    fail "[$1] exited $?: $(cat err.txt)"
}
expect_eq "xray_patch across objects" \
  "premain: 0:exe_leaf:E 0:exe_leaf:X 3:plugin_fn:E 3:plugin_leaf:E 3:plugin_leaf:X 3:plugin_fn:X" \
  "$(run "xray_patch='plugin_*;exe_*'")"
expect_eq "xray_skip across objects" \
  "premain: 0:exe_leaf:E 0:exe_leaf:X 2:first_add:E 2:first_add:X 2:first_other:E 2:first_other:X 3:plugin_fn:E 3:plugin_fn:X" \
  "$(run "xray_skip='second_*;plugin_leaf'")"

# Patterns that match nothing. first_add: only libfirst.so (linked);
# second_mul: only libsecond.so (linked, a dependency of libfirst.so);
# plugin_leaf: only plugin.so (dlopen'd in main); the typos: nothing. Exact
# lines: the linked objects' patterns never, the plugin's only before main
# (with "loaded later may still match"), the typos before main and at exit.
opts="patch_premain=true xray_patch='first_add;plugin_leaf;typo_fn' xray_skip='second_mul;typo_skip'"
cat >want_nomatch.txt <<'END'
XRay: XRAY_OPTIONS: xray_patch pattern 'plugin_leaf' matches no instrumented function of the executable or the 2 instrumented shared objects loaded so far (names: llvm-xray extract --symbolize, or docs/names.md); the program runs on, and shared objects loaded later may still match
XRay: XRAY_OPTIONS: xray_patch pattern 'typo_fn' matches no instrumented function of the executable or the 2 instrumented shared objects loaded so far (names: llvm-xray extract --symbolize, or docs/names.md); the program runs on, and shared objects loaded later may still match
XRay: XRAY_OPTIONS: xray_skip pattern 'typo_skip' matches no instrumented function of the executable or the 2 instrumented shared objects loaded so far (names: llvm-xray extract --symbolize, or docs/names.md); the program runs on, and shared objects loaded later may still match
XRay: XRAY_OPTIONS: xray_patch pattern 'typo_fn' matches no instrumented function of the executable and the 3 instrumented shared objects of this run (names: llvm-xray extract --symbolize, or docs/names.md)
XRay: XRAY_OPTIONS: xray_skip pattern 'typo_skip' matches no instrumented function of the executable and the 3 instrumented shared objects of this run (names: llvm-xray extract --symbolize, or docs/names.md)
END
# nomatch_lines PROGRAM [ARGS]: the "matches no" lines of a verbosity=1 run
nomatch_lines() {
  XRAY_OPTIONS="$opts verbosity=1" "$@" >out.txt 2>err.txt ||
    fail "[$*] exited $?: $(cat err.txt)"
  grep 'matches no' err.txt | sed 's/^==[0-9]*==//' >got_nomatch.txt
}
nomatch_lines ./objects run "$PWD/plugin.so" fork
expect_file_eq "patterns that match nothing (verbosity=1)" want_nomatch.txt got_nomatch.txt
expect_eq "the selection still applies" \
  "premain: 2:first_add:E 2:first_add:X 3:plugin_leaf:E 3:plugin_leaf:X" "$(grep premain out.txt)"
expect_eq "fork child exited" "child: 0" "$(grep child out.txt)"
# The executable linked with -z now: the loader still runs every linked
# object's constructor before the executable's.
xr_exe "$XRAY_CLANG" objects_now "$TEST_SRC_DIR/objects.c" -L. -lfirst -Wl,-rpath,\$ORIGIN -Wl,-z,now
nomatch_lines ./objects_now run "$PWD/plugin.so"
expect_file_eq "patterns that match nothing (-z now)" want_nomatch.txt got_nomatch.txt
# verbosity 0, stderr not a terminal: nothing; on a terminal: the same lines.
XRAY_OPTIONS="$opts" ./objects run "$PWD/plugin.so" >out.txt 2>err.txt || fail "quiet run exited $?"
[ ! -s err.txt ] || fail "verbosity 0, not a terminal: unexpected $(cat err.txt)"
if command -v script >/dev/null; then
  XRAY_OPTIONS="$opts" script -qec "./objects run $PWD/plugin.so" /dev/null >tty.txt </dev/null ||
    fail "tty run exited $?"
  grep 'matches no' tty.txt | tr -d '\r' | sed 's/^==[0-9]*==//' >got_nomatch.txt
  expect_file_eq "patterns that match nothing (terminal, verbosity 0)" want_nomatch.txt got_nomatch.txt
else
  echo "script (util-linux) not installed: terminal case not run"
fi

./objects api "$PWD/plugin.so" >out.txt 2>err.txt || fail "api exited $?: $(cat err.txt)"
cat >want.txt <<'END'
patch 'first_*;plugin_leaf': 3
matching: 2:first_add:E 2:first_add:X 2:first_other:E 2:first_other:X 3:plugin_leaf:E 3:plugin_leaf:X
unpatch '*': 1
unpatched:
exe_leaf -> 0:1 (objects)
first_add -> 2:1 (libfirst.so)
second_mul -> 1:1 (libsecond.so)
plugin_fn -> 3:2 (plugin.so)
for_each: 0, 1 1 1 1
after dlclose: patch 'plugin_*': 0, name kept: plugin_fn -> 3:2 (plugin.so)
reloaded: patch 'plugin_fn': 1
reloaded: 3:plugin_fn:E 3:plugin_fn:X
END
expect_file_eq "names across objects" want.txt out.txt
echo "objects: ok"
