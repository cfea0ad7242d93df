# A name in either demangler's spelling selects the same functions
# (docs/names.md "Which name"). spelling.cc's functions are named one way by
# the program's own __cxa_demangle (libstdc++'s: GNU's spelling; libc++abi's:
# LLVM's) and another by llvm-xray extract --symbolize (LLVM's demangler, of
# each llvm-xray installed: 13-14 write "> >", 16+ ">>") and by c++filt
# (GNU's). For every function whose two spellings differ: xray_patch with
# the other spelling patches exactly the ids xray_patch with the table's
# spelling patches (the functions of that name), and __xray_function_ids
# finds them. Once with libstdc++, once with libc++ when it is installed.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray

xray_tools=("$LLVM_XRAY")
for v in 13 14 16 19; do
  t=$(command -v "llvm-xray-$v" || true)
  [ -z "$t" ] || [ "$(readlink -f "$t")" = "$(readlink -f "$LLVM_XRAY")" ] || xray_tools+=("$t")
done

# glob_escape NAME: a pattern that matches exactly NAME (\ before \ * ? [ ])
glob_escape() {
  local s=${1//\\/\\\\}
  s=${s//\*/\\*}
  s=${s//\?/\\?}
  s=${s//\[/\\[}
  printf '%s\n' "${s//\]/\\]}"
}

# patched PATTERN: the ids xray_patch=PATTERN patches ("ids: 3 4")
patched() {
  XRAY_OPTIONS="patch_premain=true xray_patch=\"$1\"" ./prog run >out.txt 2>err.txt ||
    fail "xray_patch=\"$1\": exited $?: $(cat err.txt)"
  grep '^ids:' out.txt || fail "xray_patch=\"$1\": printed no ids"
}

# differing OTHER: "id<TAB>table's name<TAB>other name" where the names of
# the file OTHER ("id<TAB>name") differ from the table's (names.txt)
differing() {
  awk -F'\t' 'NR == FNR { t[$1] = $2; next } ($1 in t) && t[$1] != $2 { print $1 "\t" t[$1] "\t" $2 }' \
    names.txt "$1"
}

# check_pairs WHOSE PAIRS: every pair of PAIRS (as `differing` prints them)
# names the same ids in both spellings, the ids of the table's name: through
# __xray_function_ids, and for spelling.cc's own functions (work() calls
# them: the patched ones have events) through xray_patch.
check_pairs() {
  local whose=$1 table other want
  while IFS=$'\t' read -r _ table other; do
    want="ids:$(NAME=$table awk -F'\t' '$2 == ENVIRON["NAME"] { printf " %s", $1 }' names.txt)"
    [ "$want" != "ids:" ] || fail "no id is named [$table]"
    expect_eq "__xray_function_ids, $whose spelling [$other]" "$want" "$(./prog ids "$other")"
    if [[ $table == *spell::* ]]; then
      expect_eq "xray_patch, the table's spelling [$table]" "$want" "$(patched "$(glob_escape "$table")")"
      expect_eq "xray_patch, $whose spelling [$other] (the table's: [$table])" "$want" \
        "$(patched "$(glob_escape "$other")")"
    fi
    note "$whose [$other] = [$table]: $want"
  done <"$2"
}

# expect_differs WHOSE PAIRS TEXT...: each TEXT is part of a name of WHOSE
# spelling that differs from the table's (so the case was really tested)
expect_differs() {
  local whose=$1 pairs=$2 text
  shift 2
  for text in "$@"; do
    cut -f3 "$pairs" | grep -qF -- "$text" ||
      fail "$whose: no name with [$text] differs from the table's; differing: $(cut -f3 "$pairs")"
  done
}

# check_build STDLIB: prog against llvm-xray of each version (and c++filt)
check_build() {
  local stdlib=$1 x v pairs n=0
  ./prog names >names.txt || fail "$stdlib: names mode exited $?"
  for x in "${xray_tools[@]}"; do
    v=$("$x" --version | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p')
    "$x" extract --symbolize prog >map.yaml
    python3 "$TEST_SRC_DIR/expected_ids.py" --names map.yaml >llvm_names.txt
    pairs=pairs_${stdlib}_llvm$v.txt
    differing llvm_names.txt >"$pairs"
    if [ "$stdlib" = libstdc++ ]; then
      # GNU's spelling in the table: each construct of spelling.cc differs
      expect_differs "llvm-xray $v" "$pairs" "operator<<<char [6]>" "operator<<char>" \
        "'lambda'(int)" "'lambda0'(int)" "'unnamed0'" "std::nullptr_t" "first<int>(int)"
    fi
    if [ "$v" -ge 16 ]; then
      expect_differs "llvm-xray $v" "$pairs" "allocator<int>>>> const&"
    fi
    check_pairs "llvm-xray $v" "$pairs"
    n=$((n + $(wc -l <"$pairs")))
  done
  if [ "$stdlib" = libc++ ]; then
    # LLVM's spelling in the table (libc++abi): c++filt's (GNU's) selects
    ./prog symbols >symbols.txt || fail "symbols mode exited $?"
    paste <(cut -f1 symbols.txt) <(cut -f2 symbols.txt | c++filt) >gnu_names.txt
    pairs=pairs_libc++_c++filt.txt
    differing gnu_names.txt >"$pairs"
    expect_differs "c++filt" "$pairs" "operator<< <char [6]>" "operator< <char>" \
      "{lambda(int)#1}" "{lambda(int)#2}" "{unnamed type#2}" "decltype(nullptr)" "first<, int>(int)"
    check_pairs "c++filt" "$pairs"
    n=$((n + $(wc -l <"$pairs")))
  fi
  echo "$stdlib: $n names of another spelling select what the table's select"
}

xr_cxx prog "$TEST_SRC_DIR/spelling.cc"
check_build libstdc++

# libc++ (apt-get install libc++-dev libc++abi-dev): its __cxa_demangle is
# LLVM's
rm -f prog
if xr_cxx prog "$TEST_SRC_DIR/spelling.cc" -stdlib=libc++ 2>libcxx.err; then
  command -v c++filt >/dev/null || skip "c++filt (binutils) not found: libc++ case not run"
  check_build libc++
else
  echo "libc++ not installed: its case not run ($(head -c 200 libcxx.err))"
fi
echo "spelling: ok"
