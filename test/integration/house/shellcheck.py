#!/usr/bin/env python3
"""shellcheck (Debian's) on every shell script of the source tree: the
files named *.sh and those whose #! line names sh or bash (.ci/run, ...),
with the settings of the top-level .shellcheckrc (bash; sourced files
followed). No finding may be left, and every `# shellcheck disable=...`
must say why on its own line (`# shellcheck disable=SC2086  # reason`);
the .shellcheckrc disables nothing.

The scripts are those git tracks when the tree is a git checkout, else
every file but build trees and hidden directories (.ci/ excepted).

usage: shellcheck.py [-j N] SHELLCHECK SOURCE_DIR
       shellcheck.py --self-test SHELLCHECK
exit 0 clean, 1 with a finding, 77 when SHELLCHECK is not there
(XRAY_STATIC_REQUIRED=1: 1)."""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

from static_tool import skip_or_fail, take_jobs

SHEBANG = re.compile(rb"^#!\s*(/usr)?/bin/(env\s+)?(ba)?sh\b")
DIRECTIVE = re.compile(r"#\s*shellcheck\s+disable=")
REASONED = re.compile(r"#\s*shellcheck\s+disable=[A-Za-z0-9,]+\s+#\s*\S")


def git(root, *args):
    return subprocess.run(["git", "-C", root] + list(args), check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()


def candidates(root):
    try:
        if os.path.realpath(git(root, "rev-parse", "--show-toplevel").strip()) != \
                os.path.realpath(root):
            raise OSError("not the top of a checkout")
        return [n for n in git(root, "ls-files", "-z").split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x == ".ci" or
                       not (x.startswith(".") or x.startswith("build"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def scripts(root):
    found = []
    for rel in sorted(candidates(root)):
        path = os.path.join(root, rel)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        if rel.endswith(".sh"):
            found.append(rel)
            continue
        with open(path, "rb") as f:
            if SHEBANG.match(f.readline(200)):
                found.append(rel)
    return found


def unreasoned(root, files):
    """Suppressions without their reason, and any in .shellcheckrc."""
    out = []
    for rel in files:
        with open(os.path.join(root, rel), errors="replace") as f:
            for n, line in enumerate(f, 1):
                if DIRECTIVE.search(line) and not REASONED.search(line):
                    out.append("%s:%d: a shellcheck suppression without its reason "
                               "(# shellcheck disable=SCnnnn  # why)" % (rel, n))
    rc = os.path.join(root, ".shellcheckrc")
    if os.path.exists(rc):
        with open(rc) as f:
            for n, line in enumerate(f, 1):
                if re.match(r"\s*disable\s*=", line):
                    out.append(".shellcheckrc:%d: a suppression for every script; "
                               "silence the line that needs it" % n)
    return out


def run_shellcheck(tool, root, files, jobs):
    """shellcheck in jobs parts at once; its gcc-style lines, sorted."""
    parts = [files[i::jobs] for i in range(jobs) if files[i::jobs]]

    def one(part):
        p = subprocess.run([tool, "-f", "gcc"] + part, cwd=root,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if p.returncode not in (0, 1):
            return ["shellcheck exited %d: %s" % (p.returncode, p.stdout.strip())]
        return p.stdout.splitlines()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        lines = [l for part in pool.map(one, parts) for l in part]
    return sorted(lines, key=lambda l: (l.split(":")[0],) + tuple(
        int(x) if x.isdigit() else 0 for x in l.split(":")[1:3]))


def check(tool, root, jobs):
    files = scripts(root)
    if not files:
        print("no shell script under %s" % root)
        return 1
    findings = run_shellcheck(tool, root, files, jobs) + unreasoned(root, files)
    for f in findings:
        print(f)
    kinds = {}
    for f in findings:
        m = re.search(r"\[(SC\d+)\]$", f)
        kinds[m.group(1) if m else "unreasoned"] = kinds.get(m.group(1) if m else "unreasoned", 0) + 1
    print("shellcheck: %d script(s), %d finding(s)%s" % (
        len(files), len(findings), "".join(", %s %d" % kv for kv in sorted(kinds.items()))))
    return 1 if findings else 0


def self_test(tool):
    here = os.path.dirname(os.path.realpath(__file__))
    with tempfile.TemporaryDirectory() as root:
        shutil.copy(os.path.join(here, "..", "..", "..", ".shellcheckrc"),
                    os.path.join(root, ".shellcheckrc"))
        os.makedirs(os.path.join(root, "t", "area"))
        os.makedirs(os.path.join(root, ".ci"))
        texts = {
            "t/area/a_lib.sh": "helper() { echo \"$1\"; }\n",
            "t/area/uses.sh": 'source "$TEST_SRC_DIR/a_lib.sh"\nhelper x\n',
            "t/area/bad.sh": 'f=$1\nrm -f $f\n',
            "t/area/silent.sh": '# shellcheck disable=SC2086\nrm -f $1\n'
                                '# shellcheck disable=SC2086  # split on purpose\nls $2\n',
            ".ci/run": "#!/usr/bin/env bash\ncd $HOME\n",
            "t/area/data.txt": "rm -f $x\n",
        }
        for name, text in texts.items():
            with open(os.path.join(root, name), "w") as out:
                out.write(text)
        if scripts(root) != [".ci/run", "t/area/a_lib.sh", "t/area/bad.sh",
                             "t/area/silent.sh", "t/area/uses.sh"]:
            print("self-test: scripts %s" % scripts(root))
            return 1
        files = scripts(root)
        got = [re.sub(r":\d+: .*\[(SC\d+)\]$", r" \1", l)
               for l in run_shellcheck(tool, root, files, 2)]
        got += [l.split(": ")[0] for l in unreasoned(root, files)]
        want = [".ci/run:2 SC2164", ".ci/run:2 SC2086", "t/area/bad.sh:2 SC2086",
                "t/area/silent.sh:1"]
        if sorted(got) != sorted(want):
            print("self-test: got %s" % got)
            return 1
    print("self-test: ok")
    return 0


def main(argv):
    args = argv[1:]
    jobs, args = take_jobs(args)
    if len(args) == 2 and args[0] == "--self-test":
        tool = shutil.which(args[1])
        if tool is None:
            return skip_or_fail("%s not found: shellcheck not run" % args[1])
        return self_test(tool)
    if len(args) != 2:
        print(__doc__)
        return 2
    tool = shutil.which(args[0])
    if tool is None:
        return skip_or_fail("%s not found: shellcheck not run" % args[0])
    return check(tool, args[1], jobs)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
