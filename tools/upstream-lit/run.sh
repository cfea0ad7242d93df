#!/bin/sh
# Run compiler-rt's XRay lit tests (compiler-rt/test/xray/TestCases/Posix of
# a user's llvm-project checkout) against our libxray.a, or against the
# clang's own compiler-rt runtime for comparison. See docs/usage.md.
#
#   tools/upstream-lit/run.sh LLVM_PROJECT [ours|compiler-rt] [lit options]
#
# Environment: BUILD (our build dir, default ./build), CLANG_VERSION
# (default 14), LIT (lit command, default: lit, else llvm's lit.py),
# ADAPT_XRAY_SHARED=1 (ours only: build the -fxray-shared tests' shared
# objects with libxray-dso.a instead, for clangs before 20).
# shellcheck disable=SC2012 # ls of fixed LLVM install paths
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LLVM_PROJECT [ours|compiler-rt] [lit options]" >&2; exit 2; }
tests="$1/compiler-rt/test/xray/TestCases/Posix"
[ -d "$tests" ] || tests="$1"    # or the Posix directory itself
[ -d "$tests" ] || { echo "$0: no tests under $1" >&2; exit 2; }
tests=$(cd "$tests" && pwd)
runtime=${2:-ours}
if [ $# -ge 2 ]; then shift 2; else shift 1; fi

v=${CLANG_VERSION:-14}
llvm_bin=/usr/lib/llvm-$v/bin
[ -x "$llvm_bin/clang" ] || llvm_bin=$(dirname "$(command -v "clang-$v")")
# FileCheck and split-file may live only in another LLVM's bin directory.
tools_path=$llvm_bin
for tool in FileCheck split-file; do
    [ -x "$llvm_bin/$tool" ] && continue
    d=$(dirname "$(ls /usr/lib/llvm-*/bin/$tool 2>/dev/null | sort -V | tail -1)")
    [ "$d" = . ] || tools_path="$tools_path:$d"
done
build=$(cd "${BUILD:-$root/build}" && pwd)
archive="$build/lib/libxray.a"
if [ "$runtime" = ours ] && [ ! -f "$archive" ]; then
    echo "$0: $archive missing: build the runtime first" >&2; exit 2
fi
# clang 13 to 16 spell it -fnoxray-link-deps, 19 and later -fno-xray-link-deps.
if [ "$v" -ge 19 ]; then no_link_deps=-fno-xray-link-deps; else no_link_deps=-fnoxray-link-deps; fi
crt_libdir=$(dirname "$("clang-$v" -print-file-name=libclang_rt.xray-x86_64.a)")
[ -f "$crt_libdir/libclang_rt.xray-x86_64.a" ] ||
    crt_libdir=$(dirname "$(ls /usr/lib/llvm-"$v"/lib/clang/*/lib/linux/libclang_rt.xray-x86_64.a | head -1)")

if [ -n "${LIT:-}" ]; then lit=$LIT
elif command -v lit >/dev/null 2>&1; then lit=lit
else lit="python3 $(ls /usr/lib/llvm-*/build/utils/lit/lit.py | sort -V | tail -1)"
fi

suite=$(mktemp -d "${TMPDIR:-/tmp}/xray-upstream-lit.XXXXXX")
cp "$here/lit.cfg.py" "$suite/lit.cfg.py"
echo "tests: $tests" >&2
echo "runtime: $runtime, clang $v, exec dir $suite" >&2
# shellcheck disable=SC2086 # $lit may be "python3 .../lit.py"
exec $lit "$suite" \
    --param runtime="$runtime" --param tests="$tests" --param exec_root="$suite" \
    --param clang="clang-$v" --param clangxx="clang++-$v" --param llvm_bin="$llvm_bin" --param tools_path="$tools_path" \
    --param src_root="$root" --param archive="$archive" \
    --param dso_archive="$build/lib/libxray-dso.a" --param adapt_xray_shared="${ADAPT_XRAY_SHARED:-0}" \
    --param no_link_deps="$no_link_deps" --param crt_libdir="$crt_libdir" "$@"
