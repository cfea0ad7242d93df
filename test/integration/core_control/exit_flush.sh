# A mode started by the environment (xray_mode + patch_premain) writes its
# file at exit, once per process (compiler-rt leaves FDR and profiling data
# unwritten); a mode that is only selected writes nothing.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"

archive_symbols=$(nm "$XRAY_LIB" 2>/dev/null || true)
have_mode() { grep -qE " [DRdrVv] $1\$" <<<"$archive_symbols"; }
have_mode xr_fdr_impl || have_mode xr_profiling_impl || skip "no FDR or profiling mode in the archive"

xr_cc prog "$TEST_SRC_DIR/quiet_prog.c"
env -u XRAY_OPTIONS ./prog >want.out 2>want.err
# fib calls: parent fib(15) + fib(10) = 1973 + 177; child fib(12) + fib(13) = 465 + 753
parent_calls=2150
child_calls=1218

if have_mode xr_fdr_impl; then
  mkdir fdr
  XRAY_OPTIONS="xray_mode=xray-fdr patch_premain=true xray_logfile_base=fdr/f-" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0" ./prog >fdr.out 2>fdr.err || fail "fdr run: exit status $?"
  { cmp -s want.out fdr.out && cmp -s want.err fdr.err; } || fail "fdr run: output changed"
  expect_eq "FDR files (parent, child)" 2 "$(find fdr -mindepth 1 -maxdepth 1 | wc -l)"
  if [ -n "${LLVM_XRAY:-}" ]; then
    counts=$(for f in fdr/*; do "$LLVM_XRAY" account -m prog "$f" | awk '/ fib$/ {print $2}'; done | sort -n | tr '\n' ' ')
    expect_eq "fib calls recorded by FDR" "$child_calls $parent_calls " "$counts"
  fi

  mkdir fdr_selected
  XRAY_OPTIONS="xray_mode=xray-fdr xray_logfile_base=fdr_selected/f-" ./prog >/dev/null 2>sel.err || fail "fdr select-only run"
  expect_eq "select-only FDR writes nothing" 0 "$(find fdr_selected -mindepth 1 -maxdepth 1 | wc -l)"
  expect_file_eq "select-only FDR is quiet" want.err sel.err
fi

if have_mode xr_profiling_impl; then
  mkdir prof
  XRAY_OPTIONS="xray_mode=xray-profiling patch_premain=true xray_logfile_base=prof/p-" ./prog >prof.out 2>prof.err || fail "profiling run: exit status $?"
  { cmp -s want.out prof.out && cmp -s want.err prof.err; } || fail "profiling run: output changed"
  expect_eq "profiling files (parent, child)" 2 "$(find prof -mindepth 1 -maxdepth 1 | wc -l)"
  for f in prof/*; do
    expect_eq "profile magic in $f" "forpyarx" "$(head -c 8 "$f")"
  done
fi
echo PASS
