#!/usr/bin/env python3
"""Checks a Perfetto trace written by trace_output=perfetto.

perfetto_check.py PB2_DIR TRACE [--account ACCOUNT.csv]... [--chrome JSON]

Decodes TRACE with the schema compiled from xray_perfetto.proto (PB2_DIR
holds protoc's xray_perfetto_pb2.py) and rebuilds it as the trace
processor does:
- every packet is whole, has a sequence id and no field the schema lacks;
- per sequence: a ClockSnapshot ties clock 64 (incremental) to BOOTTIME
  before its first timestamp; a packet that clears the state sets the
  defaults; timestamps are deltas on clock 64, or absolute BOOTTIME with
  timestamp_clock_id 6 (sequence 1); they never go back on a sequence;
- names resolve through the sequence's interned table, each name interned
  once per sequence;
- events sorted by (time, file position), as the trace processor sorts
  them; per track, every end has its begin, a slice ends no earlier than
  it begins and inside its parent, nothing is left open;
- every slice's track is a described thread track (pid, tid), child of a
  described process track;
- --account: `llvm-xray account -format=csv` of the log written beside it:
  the same number of calls per function (slices marked no-entry left out:
  the binary log drops their exits) and the same total time per function.
- --chrome: the Chrome trace JSON of the same run (trace_output=...+chrome):
  the same calls, each slice's begin and end equal to its complete event's
  to the nanosecond (see same_as_chrome).
Prints "name:slices" per function, "marks:" with the cut marks, then
"instants:N", "drops:what=count,...", "threads:name,...", "process:NAME
LABELS", and "bytes_per_event:X" (file size / (2 * slices)).
"""
import collections
import csv
from decimal import Decimal
import os
import sys


def fail(msg):
    print("perfetto_check: " + msg, file=sys.stderr)
    sys.exit(1)


def no_unknown(msg, where):
    try:
        unknown = msg.UnknownFields()
    except (AttributeError, NotImplementedError):
        unknown = ()
    if len(unknown) != 0:
        fail("%s: fields the schema lacks: %r" % (where, [f.field_number for f in unknown]))
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        values = value if field.label == field.LABEL_REPEATED else [value]
        for v in values:
            no_unknown(v, where + "." + field.name)


def same_as_chrome(spans, path, base):
    """Every slice is the Chrome writer's complete event of the same call
    (JSON of the same run): same thread, name and cut mark, the same begin
    and end to the nanosecond, counted from the trace's first clock value
    (time 0 of both files), but for a no-entry call's begin, written a few
    ns earlier on purpose. Slices that nested wrongly (an end given to the
    wrong begin) show here as calls of the wrong length."""
    import json
    ours = collections.Counter()
    for tid, name, b, e, cut in spans:
        ours[(tid, name, None if cut == "no-entry" else b - base, e - base, cut)] += 1
    theirs = collections.Counter()
    early = {}
    for ev in json.load(open(path)):
        if ev.get("ph") != "X":
            continue
        b = int(round(float(ev["ts"]) * 1000))
        e = b + int(round(float(ev["dur"]) * 1000))
        cut = ev.get("args", {}).get("cut")
        key = (ev["tid"], ev["name"], None if cut == "no-entry" else b, e, cut)
        theirs[key] += 1
        if cut == "no-entry":
            early[key] = b
    if ours != theirs:
        diff = list((ours - theirs).items())[:3] + list((theirs - ours).items())[:3]
        fail("slices differ from the Chrome trace %s: %r" % (path, diff))
    for tid, name, b, e, cut in spans:
        if cut == "no-entry":
            first = early[(tid, name, None, e - base, cut)]
            if not 0 < first - (b - base) < 4096:
                fail("%s (no-entry) begins at %d, the thread's first time %d"
                     % (name, b - base, first))


def main():
    pb2_dir, path = sys.argv[1], sys.argv[2]
    sys.path.insert(0, pb2_dir)
    import xray_perfetto_pb2 as pb  # noqa: E402

    data = open(path, "rb").read()
    trace = pb.Trace()
    try:
        trace.ParseFromString(data)
    except Exception as e:  # noqa: BLE001
        fail("%s does not parse as a Trace: %s" % (path, e))
    if not trace.packet:
        fail("no packets")
    no_unknown(trace, "Trace")

    BEGIN, END, INSTANT = 1, 2, 3
    seq_clock = {}      # seq -> last ns on clock 64, once its snapshot came
    seq_defaults = {}   # seq -> (clock id, track uuid)
    seq_names = {}      # seq -> {iid: name}
    seen_names = collections.defaultdict(set)
    tracks = {}         # uuid -> ("thread", pid, tid, name, parent) | ("process", pid, name, labels)
    events = []         # (ts, index, track, type, name, notes)
    primary = None
    base = 0
    for i, p in enumerate(trace.packet):
        if not p.HasField("trusted_packet_sequence_id"):
            fail("packet %d has no sequence id" % i)
        seq = p.trusted_packet_sequence_id
        if p.HasField("clock_snapshot"):
            cs = p.clock_snapshot
            if cs.HasField("primary_trace_clock"):
                primary = cs.primary_trace_clock
                base = cs.clocks[0].timestamp
            clocks = {c.clock_id: c for c in cs.clocks}
            if 64 in clocks:
                if not clocks[64].is_incremental or 6 not in clocks:
                    fail("packet %d: clock 64 not incremental or not tied to BOOTTIME" % i)
                if clocks[64].timestamp != clocks[6].timestamp:
                    fail("packet %d: clock 64 is not BOOTTIME" % i)
                seq_clock[seq] = clocks[64].timestamp
            continue
        if p.sequence_flags & 1:
            seq_names[seq] = {}
            if not p.HasField("trace_packet_defaults"):
                fail("packet %d clears state without defaults" % i)
        if p.HasField("trace_packet_defaults"):
            d = p.trace_packet_defaults
            seq_defaults[seq] = (d.timestamp_clock_id,
                                 d.track_event_defaults.track_uuid)
        for en in p.interned_data.event_names:
            names = seq_names.setdefault(seq, {})
            if en.iid in names or en.name in seen_names[seq]:
                fail("packet %d: %s (iid %d) interned twice on sequence %d"
                     % (i, en.name, en.iid, seq))
            names[en.iid] = en.name
            seen_names[seq].add(en.name)
        if p.HasField("track_descriptor"):
            td = p.track_descriptor
            if td.uuid in tracks:
                fail("track %d described twice" % td.uuid)
            if td.HasField("thread"):
                tracks[td.uuid] = ("thread", td.thread.pid, td.thread.tid,
                                   td.thread.thread_name, td.parent_uuid)
            elif td.HasField("process"):
                tracks[td.uuid] = ("process", td.process.pid,
                                   td.process.process_name,
                                   list(td.process.process_labels))
            else:
                fail("track %d is neither a process's nor a thread's" % td.uuid)
        if not p.HasField("track_event"):
            continue
        te = p.track_event
        clock, track = seq_defaults.get(seq, (0, 0))
        if p.HasField("timestamp_clock_id"):
            clock = p.timestamp_clock_id
        if clock == 64:
            if seq not in seq_clock:
                fail("packet %d: a delta before its sequence's clock snapshot" % i)
            seq_clock[seq] += p.timestamp
            ts = seq_clock[seq]
        elif clock == 6:
            ts = p.timestamp
        else:
            fail("packet %d: timestamp on clock %d" % (i, clock))
        if te.HasField("track_uuid"):
            track = te.track_uuid
        if track == 0:
            fail("packet %d: event on no track" % i)
        if te.HasField("name_iid"):
            if te.name_iid not in seq_names.get(seq, {}):
                fail("packet %d: name iid %d not interned on sequence %d"
                     % (i, te.name_iid, seq))
            name = seq_names[seq][te.name_iid]
        else:
            name = te.name if te.HasField("name") else None
        notes = {}
        for a in te.debug_annotations:
            notes[a.name] = a.string_value if a.HasField("string_value") else a.uint_value
        if te.type == BEGIN and not name:
            fail("packet %d: a slice without a name" % i)
        events.append((ts, i, track, te.type, name, notes))

    if primary != 6:
        fail("the trace's clock is %r, not BOOTTIME (6)" % primary)
    events.sort(key=lambda e: (e[0], e[1]))
    stacks = collections.defaultdict(list)
    spans = []  # (tid, name, begin, end, cut)
    calls = collections.Counter()
    total = collections.Counter()
    marks = collections.Counter()
    drops = collections.Counter()
    instants = 0
    slices = 0
    for ts, i, track, typ, name, notes in events:
        if track not in tracks:
            fail("packet %d: track %d not described" % (i, track))
        if typ == BEGIN:
            if tracks[track][0] != "thread":
                fail("packet %d: a slice on a process track" % i)
            stacks[track].append((ts, name, notes))
        elif typ == END:
            if not stacks[track]:
                fail("packet %d: an end without its begin on track %d" % (i, track))
            b, bname, bnotes = stacks[track].pop()
            spans.append((tracks[track][2], bname, b, ts,
                          notes.get("cut") or bnotes.get("cut")))
            if ts < b:
                fail("packet %d: %s ends before it begins" % (i, bname))
            cut = notes.get("cut") or bnotes.get("cut")
            if cut:
                marks[cut] += 1
            if cut != "no-entry":
                calls[bname] += 1
                total[bname] += ts - b
            slices += 1
            if stacks[track] and stacks[track][-1][0] > b:
                fail("packet %d: %s begins before its parent" % (i, bname))
        elif typ == INSTANT:
            if name == "xray dropped":
                drops[notes["what"]] += notes["count"]
            else:
                instants += 1
        else:
            fail("packet %d: event type %d" % (i, typ))
    for track, stack in stacks.items():
        if stack:
            fail("track %d: %d slices never end" % (track, len(stack)))
    threads = []
    process = None
    for uuid, t in tracks.items():
        if t[0] == "thread":
            parent = tracks.get(t[4])
            if parent is None or parent[0] != "process" or parent[1] != t[1]:
                fail("thread track %d has no process track of pid %d" % (uuid, t[1]))
            threads.append(t[3])
        else:
            process = "%s;%s" % (t[2], ",".join(t[3]))

    args = sys.argv[3:]
    for k, a in enumerate(args):
        if a != "--account":
            continue
        acalls = collections.Counter()
        atotal = collections.Counter()
        with open(args[k + 1]) as f:
            for row in csv.DictReader(f):
                acalls[row["function"]] += int(row["count"])
                atotal[row["function"]] += Decimal(row["sum"]) * 10**9
        if acalls != calls:
            fail("slices differ from llvm-xray account (%s): ours %r, account %r"
                 % (args[k + 1], dict(calls), dict(acalls)))
        # slices that nest wrongly trade their ends: their functions' total
        # times differ from account's (1 ns per call for our rounding,
        # account's 7 digits)
        for name in calls:
            slack = calls[name] + Decimal(total[name]) / 10**6
            if abs(Decimal(total[name]) - atotal[name]) > slack:
                fail("%s: slices last %d ns in all, account %s ns"
                     % (name, total[name], atotal[name]))
    for k, a in enumerate(args):
        if a == "--chrome":
            same_as_chrome(spans, args[k + 1], base)
    for name in sorted(calls):
        print("%s:%d" % (name, calls[name]))
    print("marks:" + ",".join("%s=%d" % kv for kv in sorted(marks.items())))
    print("instants:%d" % instants)
    print("drops:" + ",".join("%s=%d" % kv for kv in sorted(drops.items())))
    print("threads:" + ",".join(sorted(threads)))
    print("process:%s" % process)
    if slices:
        print("bytes_per_event:%.2f" % (os.path.getsize(path) / (2.0 * slices)))


main()
