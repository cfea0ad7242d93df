#!/usr/bin/env python3
"""Docs, code and tests say what is, not how it got there: no internal
issue reference ("issue 22", "Issue 21, second step", "issues 21, 23")
and no run date or time ("2026-11-26", "12:47 UTC") in docs/, README.md,
lib/, include/, tools/, test/ or cmake/; and docs/performance.md stays a
document of at most 300 lines, not a journal of runs. The history belongs
to git and to CHANGELOG.md, which is read for issue references too and may
carry a date only in a version heading ("## [0.1.0] - 2026-11-26", as Keep
a Changelog writes them).

A URL is not a reference: public upstream links
(https://github.com/llvm/llvm-project/issues/88761, or the
llvm/llvm-project#88761 a link shows) stay.

usage: present_tense.py SOURCE_DIR | --self-test
exit 0 clean, 1 with a finding."""
import os
import re
import sys
import tempfile

SCANNED = ("docs", "README.md", "lib", "include", "tools", "test", "cmake",
           "CHANGELOG.md")
PERFORMANCE = os.path.join("docs", "performance.md")
PERFORMANCE_MAX_LINES = 300
URL = re.compile(r"(?:https?://|www\.)\S+")
ISSUE = re.compile(r"\bissues?\s*#?\s*\d+", re.IGNORECASE)
DATE = re.compile(r"(?<![\w.-])(?:19|20)\d\d-(?:0[1-9]|1[0-2])-"
                  r"(?:0[1-9]|[12]\d|3[01])(?![\w-])")
TIME = re.compile(r"(?<![\w:])\d{1,2}:\d\d\s*UTC\b")
# Keep a Changelog's version heading, the one place a date belongs.
VERSION_HEADING = re.compile(r"^## \[[^\]]+\] - \d{4}-\d\d-\d\d\s*$")


def tree(root):
    """The scanned files under root, build trees and hidden directories
    left out."""
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs
                         if not x.startswith(".") and not x.startswith("build"))
        for n in sorted(names):
            f = os.path.relpath(os.path.join(d, n), root)
            if f.startswith(SCANNED):
                files.append(f)
    return files


def line_findings(f, n, line):
    text = URL.sub(" ", line)
    found = []
    for m in ISSUE.finditer(text):
        found.append("%s:%d: names an internal issue (%s)" % (f, n, m.group(0)))
    dated = f != "CHANGELOG.md" or not VERSION_HEADING.match(line)
    for m in list(DATE.finditer(text)) + list(TIME.finditer(text)):
        if dated:
            found.append("%s:%d: dates a run (%s)" % (f, n, m.group(0)))
    return found


def check(root):
    me = os.path.relpath(os.path.abspath(__file__), os.path.abspath(root))
    findings = []
    for f in tree(root):
        if f == me or f.startswith(os.path.join("test", "integration", "house",
                                                "present_tense")):
            continue
        with open(os.path.join(root, f), "rb") as raw:
            data = raw.read()
        if b"\0" in data:
            continue
        lines = data.decode("utf-8", "replace").splitlines()
        for n, line in enumerate(lines, 1):
            findings.extend(line_findings(f, n, line))
        if f == PERFORMANCE and len(lines) > PERFORMANCE_MAX_LINES:
            findings.append("%s: %d lines, more than %d: a document, not a "
                            "journal (history goes to git and CHANGELOG.md)"
                            % (f, len(lines), PERFORMANCE_MAX_LINES))
    return findings


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for d in ("docs", "lib", "test", "build"):
            os.makedirs(os.path.join(root, d))
        for name, text in {
                "docs/a.md":
                    "Issue 21, second step: 0.725.\n"                    # 1 bad
                    "After issues 21, 23 and 24 (ce13d7f).\n"            # 2 bad
                    "Final run: 2026-11-21 12:47 UTC.\n"                 # 3 bad x2
                    "Re-run (11:20 UTC) of noop.\n"                      # 4 bad
                    "See https://github.com/llvm/llvm-project/issues/88761.\n"
                    "[llvm/llvm-project#88761](https://github.com/llvm/"
                    "llvm-project/issues/88761)\n"
                    "The issue's pair; tissue 5; 3.85-3.93 ns; 0.1.0; 12:47.\n",
                "lib/x.c": "/* fixed in (issue 22) */\nint x;\n",
                "test/t.sh": "# 2026-11-25: clang 14\n",
                "build/skip.md": "issue 1\n",
                "CHANGELOG.md": "## [0.2.0] - Unreleased\n"
                                "## [0.1.0] - 2026-11-26\n"
                                "- Fixed issue 7 on 2026-11-25.\n",
                "docs/performance.md": "line\n" * 301}.items():
            with open(os.path.join(root, name), "w") as out:
                out.write(text)
        got = check(root)
        want = ["CHANGELOG.md:3: names an internal issue (issue 7)",
                "CHANGELOG.md:3: dates a run (2026-11-25)",
                "docs/a.md:1: names an internal issue (Issue 21)",
                "docs/a.md:2: names an internal issue (issues 21)",
                "docs/a.md:3: dates a run (2026-11-21)",
                "docs/a.md:3: dates a run (12:47 UTC)",
                "docs/a.md:4: dates a run (11:20 UTC)",
                "docs/performance.md: 301 lines, more than 300: a document, "
                "not a journal (history goes to git and CHANGELOG.md)",
                "lib/x.c:1: names an internal issue (issue 22)",
                "test/t.sh:1: dates a run (2026-11-25)"]
        if got != want:
            print("self-test: got")
            for g in got:
                print("  " + g)
            return 1
    print("self-test: ok")
    return 0


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    if argv[1] == "--self-test":
        return self_test()
    findings = check(argv[1])
    for f in findings:
        print(f)
    print("%d finding(s): say what is; the history goes to git and CHANGELOG.md"
          % len(findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
