# A SPEC given at start reaches a shared object loaded later (its
# functions' sleds sent to the argument trampolines through the object's
# own reach) and a fork child (which inherits it): FDR, one log per
# process; each call's values in the Chrome JSON the runtime writes beside
# each log, and the plugin's call-argument records and return value in
# llvm-xray's reading of the parent's log, named through the object map.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
# shellcheck source=../dso/dso_lib.sh
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
need_llvm_xray
xr_so "$XRAY_CLANG" args_plugin.so "$TEST_SRC_DIR/args_plugin.c"
xr_exe "$XRAY_CLANG" args_dso "$TEST_SRC_DIR/args_dso.c"
spec='plug_fn@arg1,arg2/s,retval;child_fn@arg1,retval/x'
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=dso- xray_args=$spec" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0:trace_output=xray+chrome" \
  ./args_dso "$PWD/args_plugin.so" 2>err.txt || { cat err.txt >&2; fail "args_dso exited $?"; }
logs=()
for f in dso-args_dso.*; do
  case $f in *.json | *.map) ;; *) logs+=("$f") ;; esac
done
expect_eq "logs (parent, child)" 2 "${#logs[@]}"
python3 - "${logs[@]}" <<'PY' || fail "values"
import json, sys
got = []
for log in sys.argv[1:]:
    calls = []
    for e in json.load(open(log + ".json")):
        if e.get("ph") == "X" and e["name"] in ("plug_fn", "child_fn"):
            calls.append((e["ts"], e["name"], json.dumps(e.get("args", {}), sort_keys=True)))
    got.append(" | ".join("%s %s" % c[1:] for c in sorted(calls)))
want = sorted([
    'plug_fn {"arg1": 41, "arg2": "from-parent", "retval": 1041} | child_fn {"arg1": 8, "retval": "0x18"}',
    'child_fn {"arg1": 7, "retval": "0x15"} | plug_fn {"arg1": 42, "arg2": "from-child", "retval": 1042}',
])
if sorted(got) != want:
    sys.exit("got %s\nwant %s" % (sorted(got), want))
PY
# the parent's log through llvm-xray: plug_fn's entry carries 41 and the
# string's pointer, its text in the event after them; its exit 1041
parent=$(grep -l from-parent dso-args_dso.*.json)
parent=${parent%.json}
"$LLVM_XRAY" convert --output-format=yaml "$parent" >parent.yaml || fail "llvm-xray convert"
python3 - "$parent.map" <<'PY' || fail "llvm-xray's plug_fn records"
import sys, yaml
names = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "function":
        names[int(f[1])] = f[4]
recs = yaml.safe_load(open("parent.yaml"))["records"]
got = []
for k, r in enumerate(recs):
    if names.get(r["func-id"]) != "plug_fn" or not r["kind"].startswith("function-"):
        continue
    nxt = recs[k + 1] if k + 1 < len(recs) else {}
    event = nxt.get("data") if nxt.get("kind") == "custom-event" else None
    got.append((r["kind"], r.get("args") or [], event))
assert len(got) == 2, got
(ek, eargs, eev), (xk, xargs, xev) = got
assert ek == "function-enter-arg" and len(eargs) == 2 and eargs[0] == 41, got
assert eev == "xray-args arg2/s=%016x:ok:%s" % (eargs[1], b"from-parent".hex()), eev
assert (xk, xargs, xev) == ("function-exit", [], "xray-args retval/d=%016x" % 1041), got
PY
echo "args.dso_fork: ok"
