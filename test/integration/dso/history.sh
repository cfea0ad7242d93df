# Objects built with OLDER libxray-dso.a from this repository's history,
# loaded into a program linked with this tree's libxray.a: exact counts per
# function in basic, FDR and profiling mode (abi.golden describes the ABI;
# this runs it). And the other way: an object of this tree's libxray-dso.a
# in a program linked with an older libxray.a (basic mode). One commit per
# generation of dso_abi.h (XR_DSO_ABI_VERSION), its last or first commit:
#   1e25b58 generation 0: trampolines jump to the executable's, no dispatch
#     (FDR leaves it unpatched: packed ids would reach its dense path)
#   ea82025 generation 1: __xray_dso_dispatch (no dense paths)
#   0125354 generation 2: __xray_dso_dense_dispatch
# Needs the history: skipped (with the reason) outside a git clone, in a
# shallow one, or where a commit is missing; x86-64 only (the AArch64 port
# came after these commits).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
need_llvm_xray
command -v python3 >/dev/null || skip "no python3"
{ [ -z "${XRAY_TEST_EMULATOR:-}" ] && [ "$XRAY_TEST_ARCH" = x86_64 ]; } ||
  skip "the old commits have no AArch64 libxray-dso.a"
command -v git >/dev/null || skip "git not found"
git -C "$XRAY_SRC" rev-parse --git-dir >/dev/null 2>&1 || skip "$XRAY_SRC is not a git clone"
[ "$(git -C "$XRAY_SRC" rev-parse --is-shallow-repository)" = false ] ||
  skip "a shallow clone: the old commits are not there (git fetch --unshallow)"
command -v cmake >/dev/null || skip "cmake not found"

# old_build COMMIT TARGET...: builds those targets of that commit (xray_dso:
# libxray-dso.a, xray: libxray.a) in old-COMMIT/build; the tree from git
# archive, the work tree untouched.
old_build() {
  local commit=$1 target; shift
  if [ ! -d "old-$commit/src" ]; then
    mkdir -p "old-$commit/src"
    git -C "$XRAY_SRC" archive "$commit" | tar -x -C "old-$commit/src" || fail "git archive $commit"
    cmake -S "old-$commit/src" -B "old-$commit/build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER="$XRAY_CLANG" >"old-$commit/cmake.log" 2>&1 ||
      { cat "old-$commit/cmake.log" >&2; fail "configuring $commit"; }
  fi
  for target in "$@"; do
    cmake --build "old-$commit/build" --target "$target" >>"old-$commit/cmake.log" 2>&1 ||
      { cat "old-$commit/cmake.log" >&2; fail "building $target of $commit"; }
  done
}

xr_modes_build # the executable and its linked chain: this tree's
xr_modes_expected_counts >expected.txt
# run MODE PLUGIN: ./modes with PLUGIN in MODE; counts.txt, err.txt
run() {
  rm -f xray-log.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$1 verbosity=1" \
    XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 XRAY_FDR_OPTIONS=func_duration_threshold_us=0 \
    ./modes "$2" >out.txt 2>err.txt || { rc=$?; cat err.txt >&2; fail "$1 with $2 exited $rc"; }
  xr_log_counts "$(only_file "xray-log.modes.??????")" >counts.txt || fail "$1: reading the log of $2"
}

tested=0
for commit in 1e25b58 ea82025 0125354; do
  if ! git -C "$XRAY_SRC" cat-file -e "$commit^{commit}" 2>/dev/null; then
    note "commit $commit is not in this clone: its generation is not tested"
    continue
  fi
  old_build "$commit" xray_dso
  XRAY_DSO_LIB="$PWD/old-$commit/build/lib/libxray-dso.a" \
    xr_so "$XRAY_CLANG" "plugin-$commit.so" "$TEST_SRC_DIR/plugin.c"
  plugin="$PWD/plugin-$commit.so"
  run basic "$plugin"
  expect_file_eq "basic, a plugin of $commit" expected.txt counts.txt
  xr_modes_profile "$plugin" folded+report
  case $commit in
  1e25b58) # trampolines that pass packed ids: FDR leaves it unpatched and
    # says so once; every id of the log is one the map names (xr_log_counts)
    run fdr "$plugin"
    grep -v '^plugin_' expected.txt >expected_fdr.txt
    expect_file_eq "fdr, a plugin of $commit" expected_fdr.txt counts.txt
    gen0_said="object 3 ('.*plugin-$commit.so') is not traced and stays unpatched: it was built with a libxray-dso.a whose trampolines pass packed ids (generation 0)"
    expect_eq "fdr: $commit's plugin named as unpatched" 1 "$(grep -c "$gen0_said" err.txt)"
    # Loaded and patched before FDR starts: unpatched when it starts, left
    # out by __xray_patch (SUCCESS), refused by id (FAILED)
    xr_exe "$XRAY_CLANG" late_fdr "$TEST_SRC_DIR/late_fdr.c"
    rm -f xray-log.*
    XRAY_OPTIONS="verbosity=1" XRAY_FDR_OPTIONS=func_duration_threshold_us=0 \
      ./late_fdr "$plugin" >out.txt 2>err.txt || { rc=$?; cat err.txt >&2; fail "late_fdr exited $rc"; }
    expect_eq "late fdr: patching statuses" "patch before fdr 1;patch 1;patch object 3;" \
      "$(tr '\n' ';' <out.txt)"
    xr_log_counts "$(only_file "xray-log.late_fdr.??????")" | tr '\n' ';' >counts.txt ||
      fail "late fdr: reading the log"
    expect_eq "late fdr: only the executable" "exe_leaf enter 3 exit 3;" "$(cat counts.txt)"
    expect_eq "late fdr: $commit's plugin named as unpatched" 1 \
      "$(grep -c "${gen0_said/object 3/object 1}" err.txt)"
    # xrayctl status counts it while FDR records
    XRAYCTL=$(dirname "$XRAY_LIB")/../bin/xrayctl
    [ -x "$XRAYCTL" ] || fail "xrayctl not built at $XRAYCTL"
    rm -f late.in; mkfifo late.in
    XRAY_OPTIONS="xray_control=true xray_control_dir=$PWD/ctl" \
      XRAY_FDR_OPTIONS=func_duration_threshold_us=0 ./late_fdr "$plugin" wait <late.in >late.out 2>&1 &
    late_pid=$!
    exec 7>late.in
    xr_poll grep -qx recording late.out || fail "late_fdr did not start: $(cat late.out)"
    expect_eq "late fdr: status" "objects not traced: 1" \
      "$(XRAYCTL_DIR=$PWD/ctl "$XRAYCTL" status "$late_pid" | grep '^objects not traced')"
    echo go >&7
    exec 7>&-
    wait "$late_pid" || fail "late_fdr with control exited $?" ;;
  0125354) # dense paths: FDR traces it
    run fdr "$plugin"
    expect_file_eq "fdr, a plugin of $commit" expected.txt counts.txt ;;
  ea82025) # no dense paths: FDR leaves it out and says so
    run fdr "$plugin"
    grep -v '^plugin_' expected.txt >expected_fdr.txt
    expect_file_eq "fdr, a plugin of $commit" expected_fdr.txt counts.txt
    expect_eq "fdr: $commit's plugin named as not traced" 1 \
      "$(grep -c "object 3 ('.*plugin-$commit.so') is not traced: it was built with a libxray-dso.a without dense paths" err.txt)" ;;
  esac
  tested=$((tested + 1))
done

# This tree's object in an older runtime (its executable and linked chain
# as that commit built them): the object finds the new dispatch missing and
# uses what that runtime serves (generation 1: __xray_dso_dispatch; 0: the
# executable's trampolines).
xr_so "$XRAY_CLANG" plugin-new.so "$TEST_SRC_DIR/plugin.c"
for commit in 1e25b58 ea82025; do
  [ -d "old-$commit" ] || continue
  old_build "$commit" xray
  mkdir -p "runtime-$commit"
  (
    cd "runtime-$commit"
    XRAY_LIB="$OLDPWD/old-$commit/build/lib/libxray.a" XRAY_INCLUDE="$OLDPWD/old-$commit/src/include" \
      XRAY_DSO_LIB="$OLDPWD/old-$commit/build/lib/libxray-dso.a" xr_modes_build
    run basic "$OLDPWD/plugin-new.so"
    expect_file_eq "basic, this tree's plugin in the runtime of $commit" ../expected.txt counts.txt
  )
  tested=$((tested + 1))
done
[ $tested -gt 0 ] || skip "none of the old commits is in this clone"
