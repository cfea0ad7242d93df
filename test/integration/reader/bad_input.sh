# Bad files: cut short at many offsets, a wrong magic, an unknown version,
# a block or an event past the end, an unknown record, a garbage object map
# beside a log (its line instead of a byte offset): report and convert
# each end with status 1 (never a crash, a hang or another status) and one
# message that names the file and the byte offset of what is wrong; convert
# leaves no output behind.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/reader_lib.sh"
build_workers
basic=$(run_workers workers basic- xray-basic "func_duration_threshold_us=0" 2 50 0)
fdr=$(run_workers workers fdr- xray-fdr "func_duration_threshold_us=0" 2 50 0)
v1=$(run_workers workers v1- xray-fdr "func_duration_threshold_us=0:format_version=1" 2 50 0)
prof=$(run_workers workers prof- xray-profiling "profiling_output=xray+report" 2 50 0)

# rejected FILE OFFSET WHAT: report and convert exit 1 with
# "xrayctl: FILE: byte OFFSET: ...WHAT..." (OFFSET '*': any number)
rejected() {
  local file=$1 at=$2 what=$3 rc cmd
  [ "$at" != '*' ] || at='[0-9][0-9]*'
  for cmd in report convert; do
    rc=0
    if [ $cmd = report ]; then
      timeout 60 "$XRAYCTL" report "$file" --frequency 1000000000 >out.txt 2>err.txt || rc=$?
    else
      rm -f out.folded
      timeout 60 "$XRAYCTL" convert "$file" --frequency 1000000000 --to folded -o out.folded \
        >out.txt 2>err.txt || rc=$?
      [ ! -e out.folded ] || fail "convert $file: left out.folded behind"
    fi
    [ $rc = 1 ] || fail "$cmd $file: status $rc, want 1: $(cat err.txt)"
    grep -q "^xrayctl: $file: byte $at: .*$what" err.txt ||
      fail "$cmd $file: message [$(cat err.txt)], want 'byte $2: ...$what'"
  done
}
# cut FILE BYTES OUT
cut_at() { head -c "$2" "$1" >"$3"; }
# poke FILE OFFSET HEXBYTES OUT: a copy with bytes replaced
poke() {
  local hex=$3 esc=
  while [ -n "$hex" ]; do
    esc+="\\x${hex:0:2}"
    hex=${hex:2}
  done
  cp "$1" "$4"
  printf '%b' "$esc" | dd of="$4" bs=1 seek="$2" conv=notrunc status=none
}

note "cut short"
cut_at "$basic" 10 b.10 && rejected b.10 10 "too short for a trace header"
cut_at "$basic" $((32 + 3 * 32 + 5)) b.r && rejected b.r 128 "runs past the end of the file"
size=$(stat -c %s "$fdr")
for at in 31 40 47 48 60 100 $((size / 2)) $((size - 9)) $((size - 1)); do
  cut_at "$fdr" $at "f.$at" && rejected "f.$at" '*' ""
done
size=$(stat -c %s "$v1")
for at in 40 100 $((size / 2)) $((size - 1)); do
  cut_at "$v1" $at "v.$at" && rejected "v.$at" '*' ""
done
size=$(stat -c %s "$prof")
for at in 20 40 50 $((size / 2)) $((size - 1)); do
  cut_at "$prof" $at "p.$at" && rejected "p.$at" '*' ""
done

note "wrong magic, unknown versions"
poke "$basic" 2 0700 magic && rejected magic 0 "not an XRay trace"
poke "$fdr" 0 0900 fdr9 && rejected fdr9 0 "FDR log version 9 unknown"
poke "$basic" 0 0400 basic4 && rejected basic4 0 "basic log version 4 unknown"
poke "$prof" 8 01 prof_version && rejected prof_version 8 "profile version"

note "past the end, unknown records"
# the first block's BufferExtents says 1 MiB more than there is
n=$(od -An -tu8 -j 33 -N 8 "$fdr" | tr -d ' ')
poke "$fdr" 33 "$(printf '%016x' $((n + 1048576)) | sed 's/\(..\)/\1 /g' | awk '{for(i=NF;i>0;i--) printf "%s", $i}')" \
  extents && rejected extents 32 "runs past the end of the file"
# a custom event whose size runs past its block: the record after the
# preamble (BufferExtents, NewBuffer, Walltime, Pid, NewCPUId) of the first block
at=$((32 + 16 + 64))
poke "$fdr" $at 0bffffff7f extra_event && rejected extra_event $at "runs past the end of its block"
poke "$fdr" $at 1f unknown_meta && rejected unknown_meta $at "metadata record of kind 15 unknown"
poke "$basic" $((32 + 32)) 0500 basic_type && rejected basic_type 64 "record type 5 unknown"
# a profile block that claims more than the file holds
poke "$prof" 32 ffffff00 prof_block && rejected prof_block 32 "runs past the end of the file"

note "a garbage object map beside the log"
cp "$basic" with_map
printf 'garbage\n' >with_map.map
for cmd in report convert; do
  rc=0
  rm -f out.json
  if [ $cmd = report ]; then
    "$XRAYCTL" report with_map >out.txt 2>err.txt || rc=$?
  else
    "$XRAYCTL" convert with_map --to chrome -o out.json >out.txt 2>err.txt || rc=$?
    [ ! -e out.json ] || fail "convert with a garbage map: left out.json behind"
  fi
  [ $rc = 1 ] || fail "$cmd with a garbage map: status $rc, want 1: $(cat err.txt)"
  grep -q "^xrayctl: with_map.map: line 1: " err.txt ||
    fail "$cmd with a garbage map: message [$(cat err.txt)], want 'with_map.map: line 1: ...'"
done
rm with_map.map
"$XRAYCTL" report with_map >/dev/null || fail "the same log without its map"

echo "bad_input: ok"
