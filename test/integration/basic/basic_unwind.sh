# Exits skipped by longjmp (100000 times) and by C++ exceptions (10000
# times): the shadow stack is unwound at the next exit of a frame below, the
# skipped calls are closed with exits flagged in byte 24 (exactly those
# exits), llvm-xray reads the log, and calls made
# afterwards are still recorded (compiler-rt stops recording once its depth
# counter passes max_stack_depth).
source "$TEST_SRC_DIR/basic_lib.sh"

# unwound_exits BIN LOG: "function count" of the exit records flagged as
# written while unwinding (bit 0 of byte 24, our extension), sorted; fails
# when a flag is on anything but an exit or any other padding byte is set.
unwound_exits() {
  python3 - "$2" <(yaml "$1" "$2") <<'PY' || fail "unwound_exits: $2"
import re, struct, sys
names = dict(re.findall(r"func-id: (-?\d+), function: '?([^',]+)", open(sys.argv[2]).read()))
data = open(sys.argv[1], "rb").read()[32:]
got = {}
for off in range(0, len(data) - 31, 32):
    rtype, kind, fid = struct.unpack_from("<HxBi", data, off)
    pad = data[off + 24:off + 32]
    if rtype != 0:
        continue
    assert pad[1:] == bytes(7) and pad[0] in (0, 1), (off, pad)
    if pad[0]:
        assert kind == 1, (off, kind)
        got[names[str(fid)]] = got.get(names[str(fid)], 0) + 1
for k in sorted(got):
    print(k, got[k])
PY
}

build longjmp
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 max_stack_depth=2" ./longjmp > out.txt
expect_eq "program output" "100000 4" "$(cat out.txt)"
log=$(only_file "xray-log.longjmp.*")
expect_eq "longjmp counts (depth <= 2)" \
"after 1
after2 1
attempt 100000
top 100000" "$(counts longjmp "$log")"
# the skipped exits basic wrote are flagged, and only they: top's (mid and
# leaf are below max_stack_depth)
expect_eq "longjmp unwound exits (depth <= 2)" "top 100000" \
  "$(unwound_exits longjmp "$log")"

rm -f xray-log.longjmp.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 max_stack_depth=8" ./longjmp >/dev/null
expect_eq "longjmp counts (all)" \
"after 1
after2 1
attempt 100000
leaf 100000
mid 100000
top 100000" "$(counts longjmp "$(only_file 'xray-log.longjmp.*')")"
expect_eq "longjmp unwound exits (all)" \
"leaf 100000
mid 100000
top 100000" "$(unwound_exits longjmp "$(only_file 'xray-log.longjmp.*')")"

# Patched from inside g(): g's exit has no entry and is not written
# (compiler-rt writes it, and llvm-xray account then fails).
build late_patch
XRAY_OPTIONS="xray_mode=xray-basic" XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" \
  ./late_patch >/dev/null
expect_eq "late patch counts" "leaf 2" "$(counts late_patch "$(only_file 'xray-log.late_patch.*')")"

[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found (C part passed)"
xr_cxx throw "$PROGS/throw.cc"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./throw > out.txt
expect_eq "program output" "10000 2" "$(cat out.txt)"
expect_eq "exception counts" \
"after(int) 1
catcher(int) 10000
middle(int) 10000
thrower(int) 10000" "$(counts throw "$(only_file 'xray-log.throw.*')")"
expect_eq "exception unwound exits" \
"middle(int) 10000
thrower(int) 10000" "$(unwound_exits throw "$(only_file 'xray-log.throw.*')")"
