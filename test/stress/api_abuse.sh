# API abuse in each mode (api_abuse.c); the files of the clean cycles must
# be readable.
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
build api_abuse
run none.log ./api_abuse none
grep -q "api_abuse none: ok" none.log || fail "no ok line"
ran=0
for mode in "${MODES[@]}"; do
  have_mode "$mode" || continue
  note "$mode"
  XRAY_OPTIONS="xray_logfile_base=abuse-$mode-" run "$mode.log" ./api_abuse "$mode"
  grep -q "api_abuse $mode: ok" "$mode.log" || fail "$mode: no ok line"
  files=("abuse-$mode"-*)
  [ -e "${files[0]}" ] || fail "$mode: no file written by the clean cycles"
  for f in "${files[@]}"; do
    case $f in *.csv | *.err) continue ;; esac
    if [ "$mode" = xray-profiling ]; then
      case $f in *.folded | *.txt | *.report) continue ;; esac
      check_profile "$f"
    else
      n=$(check_trace "$f" ./api_abuse)
      [ "$n" -gt 0 ] || fail "$mode: $f has no function record"
    fi
  done
  ran=$((ran + 1))
done
echo "api_abuse: ok"
