# Quiet by default: with valid XRAY_OPTIONS and verbosity 0 an instrumented
# program's stdout and stderr (and its child's, which inherits XRAY_OPTIONS)
# are byte-identical to the same program built without XRay. Every
# built-in mode present in the archive is exercised.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"

mkdir -p plain xray logs
"$XRAY_CLANG" -g -O1 "$TEST_SRC_DIR/quiet_prog.c" -o plain/prog
xr_cc xray/prog "$TEST_SRC_DIR/quiet_prog.c"

option_sets=(
  ""
  "patch_premain=true"
  "verbosity=0:patch_premain=false:xray_logfile_base=logs/q-"
  "xray_page_size_override=4096,patch_premain=1"
)
archive_symbols=$(nm "$XRAY_LIB" 2>/dev/null || true)
have_mode() { grep -qE " [DRdrVv] $1\$" <<<"$archive_symbols"; }
if have_mode xr_basic_impl; then
  option_sets+=("xray_mode=xray-basic xray_logfile_base=logs/b-"
                "xray_naive_log=true patch_premain=true xray_logfile_base=logs/n-")
fi
if have_mode xr_fdr_impl; then
  option_sets+=("xray_mode=xray-fdr" "xray_mode=xray-fdr patch_premain=true xray_logfile_base=logs/f-"
                "xray_fdr_log=true")
fi
if have_mode xr_profiling_impl; then
  option_sets+=("xray_mode=xray-profiling patch_premain=true xray_logfile_base=logs/p-")
fi

i=0
for opts in "${option_sets[@]}"; do
  i=$((i + 1))
  (cd plain && XRAY_OPTIONS=$opts ./prog >../plain.$i.out 2>../plain.$i.err) || fail "plain run $i"
  XRAY_OPTIONS=$opts xray/prog >xray.$i.out 2>xray.$i.err || fail "xray run $i exit status $? [$opts]"
  cmp -s plain.$i.out xray.$i.out || { diff plain.$i.out xray.$i.out >&2; fail "stdout differs with XRAY_OPTIONS='$opts'"; }
  cmp -s plain.$i.err xray.$i.err || { diff plain.$i.err xray.$i.err >&2; fail "stderr differs with XRAY_OPTIONS='$opts'"; }
done
if have_mode xr_basic_impl; then
  # The basic runs really recorded: one log per process (parent, child).
  expect_eq "basic logs written quietly" 2 "$(find logs -maxdepth 1 -name 'n-prog.*' | wc -l)"
fi
expect_eq "parent + child lines" 3 "$(wc -l <xray.1.out)" # parent, child, child exit
note "$i option sets compared"
echo PASS
