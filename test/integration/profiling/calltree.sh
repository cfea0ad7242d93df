# Exact call counts per path (1 and 4 threads), inclusive times consistent,
# the in-memory blocks equal to the file, folded lines exact.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
command -v python3 >/dev/null || skip "python3 not found"
xr_cc calltree "$TEST_SRC_DIR/calltree.c"
read_profile() { python3 "$TEST_SRC_DIR/profile_reader.py" --llvm-xray "$LLVM_XRAY" -m calltree "$@"; }

note "one thread"
./calltree 0 "profiling_output=xray" > mem1.txt || fail "calltree exited $?"
f=$(only_file "xray-log.calltree.*")
read_profile --check-times "$f" > file1.txt || fail "reader rejected $f"
cat > want1.txt <<'END'
block 0
worker 1
worker;tree 2
worker;tree;eval 2
worker;tree;eval;lex 2
worker;tree;eval;parse 2
worker;tree;eval;parse;lex 6
worker;tree;parse 2
worker;tree;parse;lex 4
END
expect_file_eq "paths, one thread" want1.txt file1.txt
read_profile --ids "$f" | sort > ids_file.txt
sort mem1.txt > ids_mem.txt
expect_file_eq "in-memory blocks vs file" ids_file.txt ids_mem.txt
rm -f xray-log.calltree.*

note "four threads, folded by calls"
./calltree 4 "profiling_output='xray,folded' folded_value=calls" > mem4.txt || fail "calltree 4 exited $?"
f=$(only_file "xray-log.calltree.??????")
read_profile --check-times "$f" > file4.txt || fail "reader rejected $f"
expect_eq "blocks (main itself entered before patching: no events)" 4 "$(grep -c '^block' file4.txt)"
expect_eq "worker blocks" 4 "$(grep -c '^worker 1$' file4.txt)"
expect_eq "lex under eval;parse, per thread" 4 "$(grep -c '^worker;tree;eval;parse;lex 6$' file4.txt)"
read_profile --merge "$f" > merged4.txt
cat > want4.txt <<'END'
worker 4
worker;tree 8
worker;tree;eval 8
worker;tree;eval;lex 8
worker;tree;eval;parse 8
worker;tree;eval;parse;lex 24
worker;tree;parse 8
worker;tree;parse;lex 16
END
expect_file_eq "merged paths, four threads" want4.txt merged4.txt
cat > want4.folded <<'END'
worker 4
worker;tree 8
worker;tree;eval 8
worker;tree;eval;parse 8
worker;tree;eval;parse;lex 24
worker;tree;eval;lex 8
worker;tree;parse 8
worker;tree;parse;lex 16
END
expect_file_eq "folded (calls)" want4.folded "$f.folded"
tids=$(python3 - "$f" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(); off = 32; tids = set()
while off < len(d):
    size, _n, tid = struct.unpack_from("<IIQ", d, off); tids.add(tid); off += size
print(len(tids))
PY
)
expect_eq "distinct thread ids" 4 "$tids"
rm -f xray-log.calltree.*

note "folded by time: same paths, values are local nanoseconds"
./calltree 0 "profiling_output=folded" > mem_folded.txt || fail "calltree exited $?"
f=$(only_file "xray-log.calltree.*.folded")
[ ! -e "${f%.folded}" ] || fail "xray file written though not asked for"
# the blocks are built only for the xray file or for no_flush readers
expect_eq "in-memory blocks without xray output" 0 "$(wc -c < mem_folded.txt)"
awk '{print $1}' "$f" > paths.txt
grep -v '^block' want1.txt | sed 's/ [0-9]*$//' | sort > want_paths.txt
sort paths.txt > got_paths.txt
expect_file_eq "folded paths" want_paths.txt got_paths.txt
awk 'NF != 2 || $2 !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$f" || fail "malformed folded line"
rm -f xray-log.calltree.*
./calltree 0 "profiling_output=folded no_flush=true" > mem_noflush.txt || fail "calltree exited $?"
sort mem_noflush.txt > ids_noflush.txt
expect_file_eq "in-memory blocks with no_flush" ids_mem.txt ids_noflush.txt

note "local times add up: the folded values (local ns) sum to the roots' totals"
./calltree 4 "profiling_output=xray+folded+report" > /dev/null || fail "calltree exited $?"
f=$(only_file "xray-log.calltree.??????")
python3 - "$f" <<'PY' || fail "local times do not add up"
import re, struct, sys
path = sys.argv[1]
freq = int(re.search(r"# clock (\d+) Hz", open(path + ".txt").read()).group(1))
d = open(path, "rb").read()
off, root_ticks = 32, 0
while off < len(d):
    size, _n, _tid = struct.unpack_from("<IIQ", d, off)
    p, end = off + 16, off + size
    while p < end:
        depth = 0
        while struct.unpack_from("<i", d, p)[0] != 0:
            depth, p = depth + 1, p + 4
        count, ticks = struct.unpack_from("<QQ", d, p + 4)
        p += 20
        if depth == 1:
            root_ticks += ticks
    off = end
lines = open(path + ".folded").read().split("\n")[:-1]
local_ns = sum(int(l.rsplit(" ", 1)[1]) for l in lines)
total_ns = root_ticks * 10**9 // freq
# each line is rounded down once: the sum may fall short by under 1 ns a line
print("roots %d ns, sum of local %d ns, %d lines" % (total_ns, local_ns, len(lines)))
sys.exit(0 if total_ns - len(lines) <= local_ns <= total_ns else 1)
PY
echo "calltree: ok"
