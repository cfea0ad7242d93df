"""Prints the slices of a .pftrace, decoded with the Perfetto schema
(pftrace_slices.proto, compiled by protoc into the module given):

  python3 pftrace_slices.py MODULE_DIR TRACE

One line per slice event of a thread's track, in each track's time order:
"TID NS B NAME" or "TID NS E CUT" (CUT: the "cut" annotation, "-" when
none), times in ns on the trace's clock (BOOTTIME); then "thread TID NAME"
and "process PID NAME". Follows the rules the writer uses and the trace
processor applies: per sequence, a cleared incremental state, interned
event names, TracePacketDefaults (clock id, track), ClockSnapshots that tie
an incremental sequence clock (64 and above) to BOOTTIME (6)."""
import collections
import sys

sys.path.insert(0, sys.argv[1])
import pftrace_slices_pb2 as pb  # noqa: E402

BOOTTIME = 6
trace = pb.Trace()
with open(sys.argv[2], "rb") as f:
    trace.ParseFromString(f.read())

seq = collections.defaultdict(lambda: {"names": {}, "defaults": None,
                                       "clocks": {}})
tracks, threads, processes = {}, {}, {}
events = collections.defaultdict(list)  # tid -> [(ns, order, line)]
for order, p in enumerate(trace.packet):
    s = seq[p.trusted_packet_sequence_id]
    if p.sequence_flags & 1:  # SEQ_INCREMENTAL_STATE_CLEARED
        s["names"] = {}
    if p.HasField("trace_packet_defaults"):
        s["defaults"] = p.trace_packet_defaults
    for n in p.interned_data.event_names:
        s["names"][n.iid] = n.name
    if p.HasField("clock_snapshot"):
        boot = [c.timestamp for c in p.clock_snapshot.clocks
                if c.clock_id == BOOTTIME]
        for c in p.clock_snapshot.clocks:
            if c.clock_id != BOOTTIME and boot:
                # [boot time, clock value, last value of an incremental one]
                s["clocks"][c.clock_id] = [boot[0], c.timestamp, c.timestamp,
                                           c.is_incremental]
    if p.HasField("track_descriptor"):
        d = p.track_descriptor
        if d.HasField("thread"):
            tracks[d.uuid] = d.thread.tid
            threads[d.thread.tid] = d.thread.thread_name
        if d.HasField("process"):
            processes[d.process.pid] = d.process.process_name
    if not p.HasField("track_event"):
        continue
    e = p.track_event
    clock = p.timestamp_clock_id or (s["defaults"].timestamp_clock_id
                                     if s["defaults"] else 0) or BOOTTIME
    if clock == BOOTTIME:
        ns = p.timestamp
    else:
        boot, base, last, incremental = s["clocks"][clock]
        value = last + p.timestamp if incremental else p.timestamp
        s["clocks"][clock][2] = value
        ns = boot + value - base
    track = e.track_uuid if e.HasField("track_uuid") else (
        s["defaults"].track_event_defaults.track_uuid)
    tid = tracks[track]
    if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
        name = e.name if e.HasField("name") else s["names"][e.name_iid]
        events[tid].append((ns, order, "%d %d B %s" % (tid, ns, name)))
    elif e.type == pb.TrackEvent.TYPE_SLICE_END:
        cut = [a.string_value for a in e.debug_annotations if a.name == "cut"]
        events[tid].append((ns, order, "%d %d E %s" % (tid, ns,
                                                       cut[0] if cut else "-")))
for tid in sorted(events):
    for _, _, line in sorted(events[tid]):
        print(line)
for tid in sorted(threads):
    print("thread %d %s" % (tid, threads[tid]))
for pid in sorted(processes):
    print("process %d %s" % (pid, processes[pid]))
