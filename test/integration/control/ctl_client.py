"""A raw client of the control protocol, for the tests that speak it
without xrayctl (docs/control.md "Protocol").

usage: ctl_client.py SOCKET malformed      one bad request of each kind,
                                           then a good one: a line each
       ctl_client.py SOCKET loop ROUNDS    patch, start profiling, status,
                                           stop, unpatch, ROUNDS times
       ctl_client.py SOCKET race ROUNDS    ROUNDS commands picked at random
                                           (two of these run at once): every
                                           reply whole, ok or error
       ctl_client.py DIR hostile FILE      plays a hostile program: listens
                                           on DIR/<its pid>.sock, answers
                                           hello with a terminal escape in
                                           its name and record with FILE;
                                           prints "ready PID", serves 2"""
import os
import socket
import sys


def ask(path, data, close_write=False):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    try:  # the program answers a too-long request before reading it all
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
    if close_write:
        s.shutdown(socket.SHUT_WR)
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    return out.decode("latin-1")


def malformed(path):
    cases = [
        ("random", os.urandom(3000) + b"\n", False),
        ("oversized", b"xray/1 patch " + b"a" * 5000 + b"\n", False),
        ("truncated", b"xray/1 stat", True),
        ("unknown", b"xray/1 frobnicate\n", False),
        ("version", b"xray/9 hello\n", False),
        ("nul", b"xray/1 patch a\0b\n", False),
        ("args", b"xray/1 stop now\n", False),
        ("range", b"xray/1 top 5 5\n", False),
    ]
    for name, data, close_write in cases:
        reply = ask(path, data, close_write)
        ok = reply.startswith("xray/1 error ") and reply.endswith("\nend\n")
        print(name, "error" if ok else "BAD:" + repr(reply[:200]))
    # a client that connects and leaves at once, one that sends half a line
    for _ in range(20):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.close()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(b"xray/1 pa")
        s.close()
    print("hello", ask(path, b"xray/1 hello\n").split("\n")[1])


def loop(path, rounds):
    steps = (("patch alpha;beta", "xray/1 ok\n2\nend\n"),
             ("start profiling no_flush=true",
              "xray/1 ok\nxray-profiling initialized\nend\n"),
             ("status", None),
             ("stop", "xray/1 ok\nend\n"),
             ("unpatch alpha;beta", "xray/1 ok\n2\nend\n"))
    bad = 0
    for i in range(rounds):
        for line, want in steps:
            got = ask(path, ("xray/1 " + line + "\n").encode())
            if want is None:
                good = got.startswith("xray/1 ok\n") and "state: initialized" in got
            else:
                good = got == want
            if not good:
                bad += 1
                if bad < 5:
                    print(i, line, repr(got[:200]), file=sys.stderr)
    print(rounds * len(steps), "commands,", bad, "unexpected")


def race(path, rounds):
    import random
    lines = ["patch alpha;beta", "unpatch *", "start profiling no_flush=true",
             "stop", "status", "hello", "snapshot", "flush", "patch *"]
    bad = 0
    for _ in range(rounds):
        got = ask(path, ("xray/1 " + random.choice(lines) + "\n").encode())
        if not ((got.startswith("xray/1 ok\n") or got.startswith("xray/1 error "))
                and got.endswith("\nend\n")):
            bad += 1
            print(repr(got[:200]), file=sys.stderr)
    print(rounds, "commands,", bad, "malformed replies")


def hostile(directory, file):
    path = os.path.join(directory, "%d.sock" % os.getpid())
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(4)
    print("ready", os.getpid(), flush=True)
    for _ in range(2):
        c, _ = s.accept()
        request = c.recv(4096).decode()
        if " hello" in request:
            c.sendall(b"xray/1 ok\n%d evil\x1b[2J - -\nend\n" % os.getpid())
        else:
            c.sendall(("xray/1 ok\n%s\nend\n" % file).encode())
        c.close()
    os.unlink(path)


if __name__ == "__main__":
    if sys.argv[2] == "hostile":
        hostile(sys.argv[1], sys.argv[3])
    elif sys.argv[2] == "race":
        race(sys.argv[1], int(sys.argv[3]))
    elif sys.argv[2] == "malformed":
        malformed(sys.argv[1])
    else:
        loop(sys.argv[1], int(sys.argv[3]))
