#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""wire_fuzz: a hostile client of gpuref-simd, written from bridge/PROTOCOL.md alone.

It speaks the wire format from its own code (framing, CRCs, SEQ/ACK, NAK, go-back-N), never
through bridge/host, and attacks a server it starts: starvation by two flooding clients,
overrun past the window, RESET followed by bytes in one write, requests before HELLO, another
major version and a too small MaxPayload, control types sent with REL, silent and non-reading
clients, random garbage and
corrupted frames, and the server killed under a waiting client. After each class it checks that
the server lives and that another client's round trip (a SCRATCH write read back, ID_MAGIC)
is right. TAP on stdout; the seed and count are printed, and --seed/--count replay a run.

Usage: wire_fuzz.py GPUREF_SIMD [--seed N] [--count N] [--dir DIR]
"""
import argparse
import os
import random
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

SYNC = 0x5AA55247
T_ACK, T_NAK, T_KEEPALIVE, T_RESET, T_RESET_ACK = 0x01, 0x02, 0x03, 0x04, 0x05
T_HELLO, T_HELLO_RSP = 0x10, 0x90
T_RD32, T_RD32_RSP, T_WR32, T_WR32_RSP = 0x11, 0x91, 0x12, 0x92
T_AP_RD, T_AP_RD_RSP = 0x13, 0x93
REL = 1
ID_MAGIC, SCRATCH = 0x000, 0x020
MAGIC = 0x47505552  # ID_MAGIC reads "GPUR" (0x47 0x50 0x55 0x52, most significant first)
IDLE_MS = 1500      # the server's --idle-ms here: silent clients go after this


def crc(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def frame(ftype, payload=(), flags=0, seq=0, ack=0):
    """One frame as PROTOCOL.md draws it."""
    body = struct.pack("<II", (len(payload) << 16) | (flags << 8) | ftype, (ack << 16) | seq)
    out = struct.pack("<I", SYNC) + body + struct.pack("<I", crc(body))
    if payload:
        p = struct.pack("<%dI" % len(payload), *payload)
        out += p + struct.pack("<I", crc(p))
    return out


class Peer:
    """The host end of one link: reliable frames kept until acknowledged, replayed on NAK or
    after a quiet while, every reliable frame from the device acknowledged."""

    def __init__(self, path, connect=True):
        self.path = path
        self.sock = None
        self.buf = b""
        self.tx_seq = 0
        self.acked = 0
        self.rx_seq = 0
        self.unacked = {}  # seq -> frame fields
        self.frames = []   # good frames received: (type, flags, seq, ack, payload)
        self.progress = time.monotonic()
        self.hello = None
        self.replay_after = 0.5  # seconds without acknowledgement progress before a replay
        self.last_tx = time.monotonic()
        if connect:
            self.connect()

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(self.path)

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None

    def raw(self, data):
        self.sock.settimeout(10)
        self.sock.sendall(data)
        self.last_tx = time.monotonic()

    def send(self, ftype, payload=(), write=True):
        seq = self.tx_seq & 0xFFFF
        self.tx_seq += 1
        self.unacked[seq] = (ftype, tuple(payload))
        f = frame(ftype, payload, REL, seq, self.rx_seq & 0xFFFF)
        if write:
            self.raw(f)
        return f

    def ctrl(self, ftype, payload=()):
        self.raw(frame(ftype, payload, 0, 0, self.rx_seq & 0xFFFF))

    def replay_from(self, n):
        out = b""
        s = n
        while s in self.unacked:
            t, p = self.unacked[s]
            out += frame(t, p, REL, s, self.rx_seq & 0xFFFF)
            s = (s + 1) & 0xFFFF
        if out:
            self.raw(out)
        self.progress = time.monotonic()

    def take_ack(self, a):
        while self.acked & 0xFFFF != a and (self.acked & 0xFFFF) in self.unacked:
            del self.unacked[self.acked & 0xFFFF]
            self.acked += 1
            self.progress = time.monotonic()

    def parse(self):
        """Frames out of the buffered bytes (the SYNC hunt of PROTOCOL.md)."""
        got = []
        while True:
            i = self.buf.find(struct.pack("<I", SYNC))
            if i < 0:
                self.buf = self.buf[-3:]
                return got
            self.buf = self.buf[i:]
            if len(self.buf) < 16:
                return got
            w1, w2, hcrc = struct.unpack_from("<III", self.buf, 4)
            if crc(self.buf[4:12]) != hcrc or (w1 >> 16) > 1027:
                self.buf = self.buf[1:]
                continue
            n = w1 >> 16
            need = 16 + (4 * n + 4 if n else 0)
            if len(self.buf) < need:
                return got
            payload = ()
            if n:
                p = self.buf[16:16 + 4 * n]
                if crc(p) != struct.unpack_from("<I", self.buf, 16 + 4 * n)[0]:
                    self.buf = self.buf[1:]
                    continue
                payload = struct.unpack("<%dI" % n, p)
            self.buf = self.buf[need:]
            got.append((w1 & 0xFF, (w1 >> 8) & 0xFF, w2 & 0xFFFF, w2 >> 16, payload))

    def pump(self, timeout=0.05):
        """Reads what came, acts on it as the link layer does; returns the new good frames."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1 << 16)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.buf += data
        except socket.timeout:
            pass
        new = []
        rel_seen = False
        for f in self.parse():
            t, flags, seq, ack, payload = f
            if t not in (T_RESET, T_RESET_ACK):
                self.take_ack(ack)
            if t == T_NAK:
                self.replay_from(ack)
                continue
            if flags & REL:
                rel_seen = True
                if seq == self.rx_seq & 0xFFFF:
                    self.rx_seq += 1
                    new.append(f)
                continue
            new.append(f)
        if rel_seen:
            self.ctrl(T_ACK)
        elif time.monotonic() - self.last_tx > 0.1:
            self.ctrl(T_KEEPALIVE)  # a host with nothing to send for keepalive_ms (100)
        if self.unacked and time.monotonic() - self.progress > self.replay_after:
            self.replay_from(self.acked & 0xFFFF)
        self.frames += new
        return new

    def wait_for(self, pred, timeout=10.0):
        end = time.monotonic() + timeout
        for f in self.frames:
            if pred(f):
                self.frames.remove(f)
                return f
        while time.monotonic() < end:
            for f in self.pump():
                if pred(f):
                    self.frames.remove(f)
                    return f
        return None

    def open(self, epoch=0x1234, together=False):
        """RESET then HELLO: the link as a host brings it up. together: both in one write."""
        self.tx_seq = self.acked = self.rx_seq = 0
        self.unacked.clear()
        self.frames.clear()
        reset = frame(T_RESET, (epoch,))
        if together:
            self.raw(reset + self.send(T_HELLO, ((1 << 16) | 0, 1027), write=False))
        else:
            self.raw(reset)
            if not self.wait_for(lambda f: f[0] == T_RESET_ACK and f[4][0] & 0xFFFF == epoch, 5):
                return None
            self.send(T_HELLO, ((1 << 16) | 0, 1027))
        if together and not self.wait_for(lambda f: f[0] == T_RESET_ACK and f[4][0] & 0xFFFF == epoch, 5):
            return None
        f = self.wait_for(lambda f: f[0] == T_HELLO_RSP, 5)
        self.hello = f[4] if f else None
        return self.hello

    def rd32(self, rid, offsets, timeout=10.0):
        self.send(T_RD32, ((len(offsets) << 16) | rid,) + tuple(offsets))
        f = self.wait_for(lambda f: f[0] == T_RD32_RSP and f[4][0] & 0xFFFF == rid, timeout)
        return None if f is None else [f[4][2 + 2 * i] for i in range(len(offsets))]

    def wr32(self, rid, offset, value, timeout=10.0):
        self.send(T_WR32, ((1 << 16) | rid, 0, (0xF << 16) | offset, value))
        f = self.wait_for(lambda f: f[0] == T_WR32_RSP and f[4][0] & 0xFFFF == rid, timeout)
        return None if f is None else f[4][1] & 3


class Run:
    def __init__(self, simd, seed, count, workdir):
        self.simd = simd
        self.rng = random.Random(seed)
        self.count = count
        self.dir = workdir
        self.path = os.path.join(workdir, "wire.sock")
        self.n = 0
        self.failed = 0
        self.server = None

    def tap(self, good, what, detail=""):
        self.n += 1
        print("%s %d - %s" % ("ok" if good else "not ok", self.n, what), flush=True)
        if not good:
            self.failed += 1
            if detail:
                for line in str(detail).splitlines():
                    print("#   " + line)

    def start(self):
        log = open(os.path.join(self.dir, "server.log"), "ab")
        self.server = subprocess.Popen([self.simd, "--socket", self.path, "--board", "stream",
                                        "--idle-ms", str(IDLE_MS), "--verbose"],
                                       stdout=log, stderr=log)
        end = time.monotonic() + 120
        while time.monotonic() < end and self.server.poll() is None:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.path)
                s.close()
                return True
            except OSError:
                time.sleep(0.2)
        return False

    def round_trip(self, what, timeout=20.0, once=False):
        """Another client's round trip: SCRATCH written and read back, ID_MAGIC read (once: a
        single connection, each answer within 10 s, as a host's dead time; else retried)."""
        end = time.monotonic() + timeout
        err = "no attempt"
        tries = 0
        while time.monotonic() < end and not (once and tries):
            tries += 1
            if self.server.poll() is not None:
                err = "the server exited with %s" % self.server.returncode
                break
            p = None
            try:
                p = Peer(self.path)
                if not p.open(0x0777):
                    err = "no HELLO_RSP"
                    continue
                v = self.rng.getrandbits(32)
                if p.wr32(1, SCRATCH, v) != 0:
                    err = "WR32 of SCRATCH not answered OKAY"
                    continue
                got = p.rd32(2, [SCRATCH, ID_MAGIC])
                if got == [v, MAGIC]:
                    self.tap(True, "%s: the server lives and another client's round trip is right" % what)
                    return True
                err = "read %r, expected %r" % (got, [v, MAGIC])
            except OSError as e:
                err = "socket: %s" % e
                time.sleep(0.2)
            finally:
                if p:
                    p.close()
        self.tap(False, "%s: the server lives and another client's round trip is right" % what, err)
        return False

    # ---- the classes ---------------------------------------------------------------------

    def departures(self, since, want, timeout=10.0):
        """The server's log lines (--verbose) for this process's clients that left after byte
        `since`: (frames sent to the RTL, most frames of other clients sent while one of its
        frames was next), once `want` of them are there."""
        pat = re.compile(r"client \d+ \(pid %d\) left: (\d+) frames sent to the RTL, at most (\d+) "
                         r"of other clients' sent" % os.getpid())
        end = time.monotonic() + timeout
        while True:
            with open(os.path.join(self.dir, "server.log"), "rb") as f:
                f.seek(since)
                got = [(int(a), int(b)) for a, b in pat.findall(f.read().decode(errors="replace"))]
            if len(got) >= want or time.monotonic() > end:
                return got
            time.sleep(0.2)

    def starvation(self):
        """Two clients (processes of their own) flood RD32s of 64 reads without regard to
        credit, 1,024 frames a write, reading and dropping whatever comes back; another client's
        round trips still work, each on its first connection, and each of its frames waits
        behind at most one frame of each flooder on the way to the RTL (the server's own count,
        from its log): with three clients, 2."""
        since = os.path.getsize(os.path.join(self.dir, "server.log"))
        flooders = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--flood", self.path,
                                      str(0x100 + k)], stdout=subprocess.PIPE) for k in range(2)]
        time.sleep(1.5)
        good = all([self.round_trip("starvation: two clients flooding, round trip %d" % i, once=True) for i in range(3)])
        waits = self.departures(since, 3)
        sent = 0
        for f in flooders:
            f.terminate()
            out, _ = f.communicate(timeout=10)
            sent += int(out.decode().strip() or 0)
        print("# starvation: the flooders pushed %d RD32 frames of 64 reads" % sent)
        print("# starvation: the round trips' clients (frames sent, most others' frames sent ahead "
              "of one): %s" % waits)
        self.tap(len(waits) == 3 and all(n >= 2 and w <= 2 for n, w in waits),
                 "starvation: each round trip's frames waited behind at most 2 frames of the two "
                 "flooders on the way to the RTL (one each per turn)",
                 "server log: %s (3 clients expected, each 2 or more frames sent, at most 2 others' "
                 "frames ahead of one)" % waits)
        return good

    def overrun(self):
        """3,000 RD32s in one write, far past RxWindow: every one the server acknowledged is
        answered (exactly once), and the rest come in as the client replays them."""
        p = Peer(self.path)
        if not p.open(0x0200):
            self.tap(False, "overrun: the link comes up")
            return
        window = p.hello[1] >> 16
        n = 3000
        data = b"".join(p.send(T_RD32, ((1 << 16) | i, SCRATCH), write=False) for i in range(n))
        p.raw(data)
        answered = {}
        end = time.monotonic() + 60
        max_ack = 0
        while len(answered) < n and time.monotonic() < end:
            for f in p.pump(0.1):
                if f[0] == T_RD32_RSP:
                    rid = f[4][0] & 0xFFFF
                    answered[rid] = answered.get(rid, 0) + 1
            max_ack = max(max_ack, p.acked)
        twice = [i for i, c in answered.items() if c > 1]
        missing = [i for i in range(min(max_ack - 1, n)) if i not in answered]  # SEQ 0 is HELLO
        self.tap(not missing and not twice,
                 "overrun: %d RD32s in one write past RxWindow %d words: every acknowledged one "
                 "answered once (%d acknowledged, %d answered)" % (n, window, max_ack, len(answered)),
                 "missing %s, twice %s" % (missing[:10], twice[:10]))
        self.tap(len(answered) == n, "overrun: the frames refused past the window come in as they are sent again",
                 "%d of %d answered" % (len(answered), n))
        p.close()

    def reset_then_bytes(self):
        """RESET and HELLO in one write: the HELLO is answered (bytes after a RESET are not part
        of the receive buffer it drops)."""
        good = 0
        for i in range(10):
            p = Peer(self.path)
            p.replay_after = 1e9  # the HELLO must be answered as first sent, not as replayed
            if p.open(0x300 + i, together=True):
                good += 1
            p.close()
        self.tap(good == 10, "RESET followed by HELLO in one write: HELLO answered (%d of 10)" % good)

    def before_hello(self):
        """Requests need no HELLO (PROTOCOL.md): after RESET alone, a WR32 and an RD32 are
        executed and answered, as the RTL does."""
        p = Peer(self.path)
        p.ctrl(T_RESET, (0x0400,))
        ok_reset = p.wait_for(lambda f: f[0] == T_RESET_ACK, 5) is not None
        v = self.rng.getrandbits(32)
        w = p.wr32(9, SCRATCH, v, 5)
        got = p.rd32(10, [SCRATCH, ID_MAGIC], 5)
        self.tap(ok_reset and w == 0 and got == [v, MAGIC],
                 "requests before HELLO: executed and answered",
                 "RESET_ACK %s, WR32 %r, RD32 %r" % (ok_reset, w, got))
        p.send(T_HELLO, ((1 << 16), 1027))
        up = p.wait_for(lambda f: f[0] == T_HELLO_RSP, 5) is not None
        self.tap(up and p.rd32(11, [ID_MAGIC]) == [MAGIC], "... and HELLO after them is answered, requests go on")
        p.close()

    def versions(self):
        """HELLO of another major version, or with MaxPayload below 35: answered with the
        device's own HELLO_RSP (version 1.0), so the host can tell why it cannot go on."""
        for what, hello in (("major version 2", ((2 << 16), 1027)), ("MaxPayload 34", ((1 << 16), 34))):
            p = Peer(self.path)
            p.ctrl(T_RESET, (0x0500,))
            p.wait_for(lambda f: f[0] == T_RESET_ACK, 5)
            p.send(T_HELLO, hello)
            f = p.wait_for(lambda f: f[0] == T_HELLO_RSP, 5)
            # LEN 10, or 11 with DevCaps (PROTOCOL.md, "HELLO_RSP payload")
            self.tap(f is not None and f[4][0] == (1 << 16) and len(f[4]) in (10, 11),
                     "HELLO with %s: answered with the device's HELLO_RSP, version 1.0" % what,
                     "HELLO_RSP %r" % (f,))
            p.close()

    def ctrl_rel(self):
        """ACK, NAK, KEEPALIVE and RESET sent with REL: reliable frames like any other (each
        takes its SEQ, is acknowledged, and acts on nothing); the RD32 after them is answered."""
        p = Peer(self.path)
        p.open(0x0900)
        for t in (T_ACK, T_NAK, T_KEEPALIVE, T_RESET):
            p.send(t, (0x0901,) if t == T_RESET else ())
        got = p.rd32(1, [ID_MAGIC], 5)
        self.tap(got == [MAGIC] and not p.unacked,
                 "control types with REL take a SEQ and act on nothing: the RD32 after them is answered",
                 "RD32 %r, unacknowledged SEQs %r" % (got, sorted(p.unacked)))
        p.close()

    def silent(self):
        """40 connections that never speak, and 2 that send one RD32 and never read: they are
        dropped; the idle server uses little CPU; another client gets in."""
        conns = []
        for _ in range(40):
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.path)
                conns.append(s)
            except OSError:
                break
        time.sleep(IDLE_MS / 1000.0 + 1.5)
        ticks = os.sysconf("SC_CLK_TCK")

        def cpu():
            with open("/proc/%d/stat" % self.server.pid) as f:
                v = f.read().rsplit(")", 1)[1].split()
            return (int(v[11]) + int(v[12])) / ticks
        # One silent client connected anew: the server must sleep, not spin.
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.path)
        time.sleep(2.5)  # past the two seconds a new connection keeps the board running
        c0, t0 = cpu(), time.monotonic()
        time.sleep(3)
        share = (cpu() - c0) / (time.monotonic() - t0)
        print("# silent: the server used %.1f%% of a core over 3 s with a silent client" % (100 * share))
        self.tap(share < 0.05, "silent: an idle server with a silent client sleeps (%.1f%% of a core, under 5%%)" % (100 * share))
        s.close()
        for c in conns:
            c.close()
        self.round_trip("silent: 40 silent connections held the slots until dropped")

    def non_reading(self):
        """Clients that ask for 4 KiB reads and never read the answers: dropped at their
        output limit, while others work."""
        peers = []
        for k in range(2):
            p = Peer(self.path)
            p.open(0x600 + k)
            p.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            peers.append(p)
        stop = threading.Event()

        def push(p):
            i = 0
            while not stop.is_set():
                try:
                    p.sock.settimeout(0.5)
                    # AP_RD of 1024 words from BAR1 offset 0, within credit or not
                    p.raw(b"".join(p.send(T_AP_RD, (i & 0xFFFF, 0, 0, 1024), write=False) for _ in range(8)))
                    i += 1
                except (OSError, socket.timeout):
                    time.sleep(0.05)
                    if stop.is_set():
                        return
        threads = [threading.Thread(target=push, args=(p,)) for p in peers]
        for t in threads:
            t.start()
        time.sleep(1)
        self.round_trip("non-reading: two clients that never read their answers")
        stop.set()
        for t in threads:
            t.join(5)
        for p in peers:
            p.close()

    def garbage(self):
        """count random hostile writes: garbage bytes, frames with a bad HCRC or PCRC, truncated
        payloads, unknown types, control types with REL, random SEQ/ACK, byte-split writes."""
        kinds = ["garbage", "bad_hcrc", "bad_pcrc", "truncated", "unknown", "ctrl_rel", "seq", "split"]
        per = {k: 0 for k in kinds}
        p = None
        for i in range(self.count):
            if p is None or self.rng.random() < 0.1:
                if p:
                    p.close()
                p = Peer(self.path)
                if self.rng.random() < 0.7:
                    p.open(0x700 + (i & 0xFF))
            k = self.rng.choice(kinds)
            per[k] += 1
            r = self.rng
            if k == "garbage":
                data = bytes(r.getrandbits(8) for _ in range(r.randrange(1, 200)))
            elif k in ("bad_hcrc", "bad_pcrc", "truncated"):
                f = bytearray(frame(T_RD32, ((1 << 16) | i & 0xFFFF, ID_MAGIC), REL, p.tx_seq & 0xFFFF, p.rx_seq & 0xFFFF))
                if k == "bad_hcrc":
                    f[12] ^= 1 << r.randrange(8)
                elif k == "bad_pcrc":
                    f[16 + r.randrange(8)] ^= 1 << r.randrange(8)
                else:
                    f = f[:r.randrange(5, len(f))]
                data = bytes(f)
            elif k == "unknown":
                data = frame(r.choice([0x06, 0x0F, 0x15, 0x30, 0x7F, 0xFF]), tuple(r.getrandbits(32) for _ in range(r.randrange(0, 8))),
                             r.choice([0, REL]), p.tx_seq & 0xFFFF, p.rx_seq & 0xFFFF)
                if data[5] & REL:
                    p.tx_seq += 1
            elif k == "ctrl_rel":
                data = frame(r.choice([T_ACK, T_NAK, T_KEEPALIVE]), (), REL, r.getrandbits(16), p.rx_seq & 0xFFFF)
            elif k == "seq":
                data = frame(T_RD32, ((1 << 16) | 0xEEEE, ID_MAGIC), REL, r.getrandbits(16), r.getrandbits(16))
            else:
                data = frame(T_KEEPALIVE)
            try:
                if k == "split":
                    for b in data:
                        p.raw(bytes([b]))
                else:
                    p.raw(data)
                p.pump(0)
            except OSError:
                p.close()
                p = None
        if p:
            p.close()
        print("# garbage: %s" % ", ".join("%s %d" % kv for kv in per.items()))
        self.round_trip("garbage: %d random hostile writes" % self.count)

    def killed(self):
        """The server killed (SIGKILL) while a client waits for an answer: the client sees the
        connection end, and a new server serves again."""
        p = Peer(self.path)
        p.open(0x0800)
        p.send(T_AP_RD, (1, 0, 0, 1024))
        self.server.kill()
        self.server.wait()
        ended = False
        end = time.monotonic() + 60
        try:
            while time.monotonic() < end:
                p.pump(0.2)
        except (ConnectionError, OSError):
            ended = True
        self.tap(ended, "killed: the server killed under a waiting client: the connection ends")
        p.close()
        self.tap(self.start(), "killed: a new server starts on the same socket")
        self.round_trip("killed: after the restart")


def flood(path, epoch):
    """One flooding client (a process of its own: --flood PATH EPOCH), until SIGTERM; prints
    how many RD32s it wrote."""
    import signal
    sent = [0]
    signal.signal(signal.SIGTERM, lambda *_: (print(sent[0], flush=True), os._exit(0)))
    p = Peer(path)
    p.open(epoch)
    # 64 reads a frame: each frame keeps the RTL busy far longer than it takes to send
    burst = b"".join(p.send(T_RD32, ((64 << 16) | (i & 0xFFFF),) + (ID_MAGIC,) * 64, write=False)
                     for i in range(1024))
    p.unacked.clear()  # a flooder never replays: it only pushes
    p.sock.setblocking(False)
    view, at = memoryview(burst), 0
    while True:
        try:
            at += p.sock.send(view[at:])
            if at == len(burst):
                at = 0
                sent[0] += 1024
        except BlockingIOError:
            pass
        try:
            while p.sock.recv(1 << 16):
                pass
        except BlockingIOError:
            pass
        except OSError:
            break
    print(sent[0], flush=True)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--flood":
        try:
            flood(sys.argv[2], int(sys.argv[3]))
        except OSError:
            print(0, flush=True)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("simd")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("GR_TEST_SEED", "1")))
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--dir")
    a = ap.parse_args()
    workdir = a.dir or tempfile.mkdtemp(prefix="wire-fuzz-")
    os.makedirs(workdir, exist_ok=True)
    print("# seed=%d count=%d (replay: %s %s --seed %d --count %d)" % (a.seed, a.count, sys.argv[0], a.simd, a.seed, a.count))
    plan = 22
    print("1..%d" % plan, flush=True)
    r = Run(a.simd, a.seed, a.count, workdir)
    try:
        if not r.start():
            r.tap(False, "gpuref-simd starts")
        else:
            r.tap(True, "gpuref-simd starts (a stream board, --idle-ms %d)" % IDLE_MS)
            for step in (lambda: r.round_trip("at the start"), r.starvation, r.overrun,
                         lambda: r.round_trip("overrun"), r.reset_then_bytes, r.before_hello,
                         r.versions, r.ctrl_rel, r.silent, r.non_reading, r.garbage, r.killed):
                t0 = time.monotonic()
                try:
                    step()
                    print("# %s: %.1f s" % (getattr(step, "__name__", "step"), time.monotonic() - t0), flush=True)
                except (OSError, ValueError, IndexError, TypeError, subprocess.SubprocessError) as e:
                    r.tap(False, "%s: the attacker's own step failed" % getattr(step, "__name__", "step"),
                          "%s: %s" % (type(e).__name__, e))
    finally:
        if r.server and r.server.poll() is None:
            r.server.terminate()
            r.server.wait(30)
    while r.n < plan:
        r.tap(False, "not reached")
    print("# server log: %s" % os.path.join(workdir, "server.log"))
    return 1 if r.failed or r.n != plan else 0


if __name__ == "__main__":
    sys.exit(main())
