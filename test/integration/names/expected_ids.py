"""Ids that xray_patch / xray_skip should select, from llvm-xray's view.

usage: expected_ids.py MAP.yaml PATCH SKIP
MAP.yaml is `llvm-xray extract --symbolize` output. PATCH and SKIP are
';'-separated glob lists (as the runtime takes them; empty: unset). Prints
"ids: 1 2 ..." like the test program's run mode. Python's fnmatch has the
same meaning of * ? [..] [!..] for the patterns the tests use.
"""
import fnmatch
import re
import sys


def functions(path):
    names = {}
    line_re = re.compile(r"id: *(\d+),.*function-name: *('(?:[^']|'')*'|[^,}]+)")
    for line in open(path):
        m = line_re.search(line)
        if m:
            name = m.group(2).strip()
            if name.startswith("'"):
                name = name[1:-1].replace("''", "'")
            names[int(m.group(1))] = name
    return names


def patterns(text):
    return [p.strip(" \t") for p in text.split(";") if p.strip(" \t")]


def main():
    names = functions(sys.argv[1])
    patch, skip = patterns(sys.argv[2]), patterns(sys.argv[3])
    chosen = []
    for fid, name in sorted(names.items()):
        matches = lambda ps: any(fnmatch.fnmatchcase(name, p) for p in ps)
        if (not patch or matches(patch)) and not matches(skip):
            chosen.append(fid)
    print("ids:" + "".join(" %d" % i for i in chosen))


def names_table(path):
    """ "id<TAB>name" lines, as the program's names mode prints them."""
    for fid, name in sorted(functions(path).items()):
        print("%d\t%s" % (fid, name))


if __name__ == "__main__":
    if sys.argv[1] == "--names":
        names_table(sys.argv[2])
    else:
        main()
