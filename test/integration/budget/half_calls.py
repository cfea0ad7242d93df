#!/usr/bin/env python3
"""Reads `llvm-xray convert -f yaml --symbolize` of a trace on stdin and
checks that FUNCTION has no half call in llvm-xray's reading: per thread,
its entries and exits alternate, entry first, and an entry without its exit
is the thread's last function record (a call still running when the trace
was taken). An exit the mode wrote for a call whose end it did not see (a
thread preempted in the call while the budget culled its exits; flagged by
the "xray-unwound" custom event before it) is an exit here, as it is to
llvm-xray; they are counted. Prints "some calls, N closed as unwound" and
exits 0, or names the first half call and exits 1.

usage: half_calls.py FUNCTION < trace.yaml"""
import re
import sys

RECORD = re.compile(r"function: '?([^,']*)'?, .*thread: (\d+), .*kind: ([a-z-]+)")


def main():
    function = sys.argv[1]
    open_call = {}  # thread -> True while FUNCTION's call is open
    calls = unwound = 0
    for n, line in enumerate(sys.stdin, 1):
        m = RECORD.search(line)
        if not m:
            continue
        name, thread, kind = m.groups()
        if not kind.startswith("function-"):
            unwound += "xray-unwound" in line and name == function
            continue
        if open_call.get(thread) and name != function:
            print(f"line {n}: thread {thread} goes on after {function}'s entry "
                  f"without its exit: {line.strip()}")
            return 1
        if name != function:
            continue
        enter = kind.startswith("function-enter")
        if enter == bool(open_call.get(thread)):
            print(f"line {n}: thread {thread}: {kind} of {function} "
                  f"{'while its call is open' if enter else 'without its entry'}")
            return 1
        open_call[thread] = enter
        calls += not enter
    print(f"{'some' if calls else 'no'} calls, {unwound} closed as unwound")
    return 0


if __name__ == "__main__":
    sys.exit(main())
