# `xrayctl args PID SPEC` on a running server: a program started with FDR
# and no SPEC serves three rounds of requests; the SPEC is given before the
# second round and cleared before the third. The log has the values of the
# second round's requests exactly (ids, names, return values) and none in
# the first and third.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/args_lib.sh"
export XRAYCTL_DIR=$TEST_WORK_DIR/ctl
mkdir -p sync
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=ctl- xray_control=true xray_control_dir=$XRAYCTL_DIR" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0" ./args_prog serve sync >out.txt 2>err.txt &
pid=$!
trap 'touch sync/stop; wait $pid || true' EXIT
xr_poll test -S "$XRAYCTL_DIR/$pid.sock" || fail "no control socket"
round() {
  touch "sync/go$1"
  xr_poll test -e "sync/done$1" || fail "round $1 not served"
}
round 1
"$XRAYCTL" args $pid 'request@arg1,arg2/s,retval' >set.txt || fail "xrayctl args"
expect_eq "xrayctl args: what it understood, each pattern's matches" \
  "args: request@arg1/d,arg2/s,retval/d
1 request@arg1/d,arg2/s,retval/d" "$(cat set.txt)"
round 2
"$XRAYCTL" args $pid --clear >clear.txt || fail "xrayctl args --clear"
expect_eq "xrayctl args --clear" "args: none" "$(cat clear.txt)"
round 3
touch sync/stop
trap - EXIT
wait $pid || fail "the program exited $?"
log=$(log_of ctl-)
"$LLVM_XRAY" convert -output-format=yaml --symbolize -m "$PROG_FILE" "$log" >ctl.yaml ||
  fail "llvm-xray convert"
python3 - <<'PY' || fail "the requests' values"
import yaml
recs = yaml.safe_load(open("ctl.yaml"))["records"]
calls = []  # (kind, args, the event right after it)
for i, r in enumerate(recs):
    if r["function"] != "request" or not r["kind"].startswith("function-"):
        continue
    nxt = recs[i + 1] if i + 1 < len(recs) else {}
    event = nxt.get("data") if nxt.get("kind") == "custom-event" else None
    calls.append((r["kind"], r.get("args") or [], event))
assert len(calls) == 18, calls  # 9 requests, an entry and an exit each
for k in range(9):
    n, i = 1 + k // 3, k % 3
    rid = n * 100 + i
    (ek, eargs, eev), (xk, xargs, xev) = calls[2 * k], calls[2 * k + 1]
    assert xk == "function-exit" and xargs == [], calls[2 * k + 1]
    if n != 2:
        assert (ek, eargs, eev, xev) == ("function-enter", [], None, None), (n, i, calls[2 * k:2 * k + 2])
        continue
    text = ("req-2-%d" % i).encode().hex()
    assert ek == "function-enter-arg" and len(eargs) == 2 and eargs[0] == rid, calls[2 * k]
    assert eev == "xray-args arg2/s=%016x:ok:%s" % (eargs[1], text), eev
    assert xev == "xray-args retval/d=%016x" % (2 * rid), xev
PY
echo "args.control: ok"
