"""Writes an FDR log (version 2+) with its blocks in reverse order: each
thread's buffers then come latest first, as a ring's queue may hand them
out. Usage: reverse_blocks.py IN OUT"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
blocks, off = [], 32
while off < len(data):
    if data[off] != 0x0F:
        sys.exit("byte %d: not a BufferExtents record" % off)
    n = struct.unpack_from("<Q", data, off + 1)[0]
    blocks.append(data[off:off + 16 + n])
    off += 16 + n
if len(blocks) < 2:
    sys.exit("one block: nothing to reorder")
with open(sys.argv[2], "wb") as f:
    f.write(data[:32])
    for b in reversed(blocks):
        f.write(b)
