"""What the static checks (shellcheck.py, clang_tidy.py) share: how a run
ends when its tool is missing, and the -j N of their command lines.

A missing tool skips the test (exit 77) in an ordinary build; run-all.sh's
static phase sets XRAY_STATIC_REQUIRED=1, and there it is a failure."""
import os


def required():
    """True in the static phase: nothing may be left unchecked."""
    return os.environ.get("XRAY_STATIC_REQUIRED") == "1"


def skip_or_fail(why):
    print(why)
    return 1 if required() else 77


def take_jobs(args, default=2):
    """(jobs, the other arguments) from a command line that may start with
    -j N."""
    if len(args) >= 2 and args[0] == "-j":
        return max(1, int(args[1])), args[2:]
    return default, args
