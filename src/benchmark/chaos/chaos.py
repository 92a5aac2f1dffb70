#!/usr/bin/env python3
"""Helpers of src/benchmark/chaos.sh (not part of the build or the tests); standard library only.

  chaos.py proxy --map LISTEN:TARGET ... --control FILE
      A TCP forwarder on 127.0.0.1 that stands in for `tc netem` on loopback, which this machine's kernel lacks
      (no sch_netem module). FILE holds "off" or "DELAY_MS JITTER_MS LOSS_PERCENT": each chunk read is written on
      DELAY +- JITTER ms later, in order, and a chunk is "lost" with LOSS_PERCENT probability: it then waits a TCP
      retransmission timeout more (200 to 1,000 ms), which is what a lost segment costs a TCP stream. While its
      target refuses connections the forwarder closes its own listening socket, so that a client sees a refused
      connection as it would without the forwarder (a stopped relay is "unreachable", not "closed at greeting").

  chaos.py load --servers URL,URL --mails N --rate PER_S --run NAME --out FILE
      Enqueues N mails over the REST API at PER_S a second, spread over the servers, each with its own
      Idempotency-Key; a request that fails (a server killed, the database failing over) is sent again, to the
      other server, with the same key until one answers 2xx. FILE gets one line per mail the queue accepted.

  chaos.py tally --postfix-log FILE --mails FILE --acked FILE
      Counts each Message-ID's arrivals at Postfix (a message counts once Postfix queued and delivered it: its
      queue id has a cleanup "message-id=" line and a "status=sent" line) against the queue's own record.
"""
import argparse
import asyncio
import base64
import collections
import http.client
import json
import queue
import random
import re
import socket
import sys
import threading
import time
import urllib.parse


# ---------------------------------------------------------------------------------------------------- proxy

class Impairment:
    """The current impairment read from the control file: (delay s, jitter s, loss fraction) or None."""

    def __init__(self, path):
        self.path = path
        self.value = None

    async def watch(self):
        while True:
            try:
                with open(self.path) as f:
                    words = f.read().split()
                self.value = None if not words or words[0] == "off" else (
                    float(words[0]) / 1000, float(words[1]) / 1000, float(words[2]) / 100)
            except (OSError, ValueError, IndexError):
                self.value = None
            await asyncio.sleep(0.2)

    def due(self, now, last_due):
        if self.value is None:
            return max(now, last_due)
        delay, jitter, loss = self.value
        extra = random.uniform(0.2, 1.0) if random.random() < loss else 0.0
        return max(now + max(0.0, delay + random.uniform(-jitter, jitter)) + extra, last_due)


async def pipe(reader, writer, impairment):
    """Copies one direction, each chunk on its due time and in order (a later chunk never overtakes)."""
    chunks = asyncio.Queue()

    async def read():
        last_due = 0.0
        try:
            while True:
                data = await reader.read(65536)
                now = asyncio.get_running_loop().time()
                last_due = impairment.due(now, last_due)
                await chunks.put((last_due, data))
                if not data:
                    return
        except (ConnectionError, OSError):
            await chunks.put((0.0, b""))

    async def write():
        try:
            while True:
                due, data = await chunks.get()
                wait = due - asyncio.get_running_loop().time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            try:
                writer.close()
            except OSError:
                pass

    await asyncio.gather(read(), write())


class Forwarder:
    def __init__(self, listen, target, impairment):
        self.listen, self.target, self.impairment = listen, target, impairment
        self.server = None

    async def handle(self, client_reader, client_writer):
        try:
            target_reader, target_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            sock = client_writer.get_extra_info("socket")
            if sock is not None:  # a reset, as near to "refused" as an accepted connection gets
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, target_writer, self.impairment),
                             pipe(target_reader, client_writer, self.impairment))

    async def run(self):
        while True:
            up = await target_up(self.target)
            if up and self.server is None:
                self.server = await asyncio.start_server(self.handle, "127.0.0.1", self.listen, reuse_address=True)
            elif not up and self.server is not None:
                self.server.close()  # new connections are refused; those open go on
                self.server = None
            await asyncio.sleep(0.2)


async def target_up(port):
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 1.0)
        writer.close()
        return True
    except (OSError, asyncio.TimeoutError):
        return False


async def proxy_main(args):
    impairment = Impairment(args.control)
    tasks = [asyncio.create_task(impairment.watch())]
    for mapping in args.map:
        listen, target = (int(p) for p in mapping.split(":"))
        tasks.append(asyncio.create_task(Forwarder(listen, target, impairment).run()))
    await asyncio.gather(*tasks)


# ----------------------------------------------------------------------------------------------------- load

def load_main(args):
    servers = [urllib.parse.urlsplit(u) for u in args.servers.split(",")]
    auth = "Basic " + base64.b64encode(args.user.encode()).decode()
    todo = queue.Queue(maxsize=args.threads * 4)
    lock = threading.Lock()
    counts = collections.Counter()
    out = open(args.out, "w", buffering=1)
    refused = open(args.out + ".refused", "w", buffering=1)
    started = time.monotonic()

    def post(connections, server, body, key):
        connection = connections.get(server.netloc)
        if connection is None:
            connection = http.client.HTTPConnection(server.hostname, server.port, timeout=60)
            connections[server.netloc] = connection
        try:
            connection.request("POST", "/api/mails", body, {"Content-Type": "application/json",
                                                              "Authorization": auth, "Idempotency-Key": key})
            response = connection.getresponse()
            payload = response.read()
            return response.status, payload
        except (OSError, http.client.HTTPException):
            connection.close()
            connections.pop(server.netloc, None)
            raise

    def worker(index):
        connections = {}  # this thread's keep-alive connection per server
        while True:
            seq = todo.get()
            if seq is None:
                return
            try:
                send(connections, seq)
            except Exception as e:  # never lose a worker silently: say it and go on
                with lock:
                    counts["client errors"] += 1
                    print("client error on mail %d: %r" % (seq, e), flush=True)

    def send(connections, seq):
            key = "%s-%d" % (args.run, seq)
            body = json.dumps({"from": "chaos@example.com", "to": ["r%d@example.com" % (seq % 1000)],
                               "subject": "chaos %s %d" % (args.run, seq),
                               "text": "Mail %d of the chaos soak %s.\n" % (seq, args.run)})
            tries = 0
            while True:
                server = servers[(seq + tries) % len(servers)]
                tries += 1
                try:
                    status, payload = post(connections, server, body, key)
                except (OSError, http.client.HTTPException):
                    status, payload = None, b""
                if status in (200, 202):
                    receipt = json.loads(payload)
                    with lock:
                        out.write("%d\t%s\t%s\t%d\n" % (seq, receipt["id"], receipt["messageId"], tries))
                        counts["acked"] += 1
                        counts["retried"] += tries > 1
                    break
                with lock:
                    counts["failed requests"] += 1
                    counts["status %s" % status] += 1
                # 404: a server that is starting answers before the application is deployed (Liberty's
                # SRVE0190E page); POST /api/mails itself never answers 404
                if status is not None and 400 <= status < 500 and status not in (404, 408, 429):
                    with lock:  # refused for good: said, counted, and the next mail taken
                        counts["refused"] += 1
                        refused.write("%d\t%d\t%s\n" % (seq, status, payload[:500].decode("utf-8", "replace")
                                                         .replace("\n", " ")))
                    break
                time.sleep(min(5.0, 0.25 * tries))

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(args.threads)]
    for t in threads:
        t.start()
    interval = 1.0 / args.rate
    next_report = started + 30
    for seq in range(args.mails):
        due = started + seq * interval
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        todo.put(seq)
        if time.monotonic() >= next_report:
            next_report += 30
            with lock:
                print("load %4.0f s: %d handed out, %s" % (time.monotonic() - started, seq + 1, dict(counts)),
                      flush=True)
    for _ in threads:
        todo.put(None)
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    print("load done: %d mails accepted in %.0f s (%.1f a second), %s" % (counts["acked"], elapsed,
          counts["acked"] / elapsed, dict(counts)), flush=True)


# ---------------------------------------------------------------------------------------------------- tally

CLEANUP = re.compile(r"postfix/cleanup\[\d+\]: ([0-9A-Za-z]+): message-id=(<[^>]*>)")
SENT = re.compile(r"postfix/discard\[\d+\]: ([0-9A-Za-z]+): .*status=sent")
REMOVED = re.compile(r"postfix/qmgr\[\d+\]: ([0-9A-Za-z]+): removed")


def arrivals_in(path):
    """Message-ID -> times Postfix queued and delivered it. A queue id names one message only from its cleanup
    line to its "removed" line: Postfix uses the same id again afterwards (short ids are inode and time), so
    each life of an id counts on its own."""
    arrivals = collections.Counter()
    living, delivered = {}, set()

    def finish(queue_id):
        message_id = living.pop(queue_id, None)
        if queue_id in delivered:
            delivered.discard(queue_id)
            if message_id is not None:
                arrivals[message_id] += 1

    with open(path, errors="replace") as log:
        for line in log:
            m = CLEANUP.search(line)
            if m:
                finish(m.group(1))  # a new life: an earlier one not seen removed is finished here
                living[m.group(1)] = m.group(2)
                continue
            m = SENT.search(line)
            if m:
                delivered.add(m.group(1))
                continue
            m = REMOVED.search(line)
            if m:
                finish(m.group(1))
    for queue_id in list(living):
        finish(queue_id)
    return arrivals


def tally_main(args):
    arrivals = arrivals_in(args.postfix_log)
    mails = {}  # Message-ID -> (id, status, in doubt)
    with open(args.mails) as f:
        for line in f:
            mail_id, message_id, status, in_doubt = line.rstrip("\n").split("\t")
            mails[message_id] = (mail_id, status, in_doubt == "t")
    acked = {}
    with open(args.acked) as f:
        for line in f:
            seq, mail_id, message_id, _ = line.rstrip("\n").split("\t")
            acked[message_id] = seq
    statuses = collections.Counter(s for _, s, _ in mails.values())
    unfinished = [m for m, (_, s, _) in mails.items() if s in ("QUEUED", "SENDING")]
    not_arrived = [m for m, (_, s, _) in mails.items() if s not in ("QUEUED", "SENDING") and arrivals[m] == 0]
    acked_missing = [m for m in acked if m not in mails]
    strangers = [m for m in arrivals if m not in mails]
    duplicates = {m: n for m, n in arrivals.items() if n > 1 and m in mails}
    flagged = [m for m in duplicates if mails[m][2]]
    in_doubt = sum(1 for _, _, d in mails.values() if d)
    result = collections.OrderedDict([
        ("accepted (2xx to the client)", len(acked)),
        ("mails in the queue's database", len(mails)),
        ("statuses", dict(statuses)),
        ("arrived at Postfix (distinct Message-IDs)", sum(1 for m in arrivals if m in mails)),
        ("lost: accepted, not in the database", len(acked_missing)),
        ("lost: finished, never arrived", len(not_arrived)),
        ("stuck: still QUEUED or SENDING", len(unfinished)),
        ("arrivals of unknown Message-IDs", len(strangers)),
        ("duplicates (Message-IDs arrived more than once)", len(duplicates)),
        ("extra copies", sum(n - 1 for n in duplicates.values())),
        ("duplicates flagged in doubt", len(flagged)),
        ("mails with an IN_DOUBT attempt", in_doubt),
    ])
    for name, value in result.items():
        print("%-50s %s" % (name, value))
    for label, items in (("lost (accepted)", acked_missing), ("lost (never arrived)", not_arrived),
                         ("stuck", unfinished), ("unknown", strangers),
                         ("duplicate, not flagged", [m for m in duplicates if m not in flagged])):
        for m in items[:20]:
            print("  %s: %s %s" % (label, m, mails.get(m, "")))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=1)
    return 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("proxy")
    p.add_argument("--map", action="append", required=True)
    p.add_argument("--control", required=True)
    p = sub.add_parser("load")
    p.add_argument("--servers", required=True)
    p.add_argument("--mails", type=int, required=True)
    p.add_argument("--rate", type=float, required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--user", default="sender:sender")
    p.add_argument("--threads", type=int, default=8)
    p = sub.add_parser("tally")
    p.add_argument("--postfix-log", required=True)
    p.add_argument("--mails", required=True)
    p.add_argument("--acked", required=True)
    p.add_argument("--json")
    args = parser.parse_args()
    if args.command == "proxy":
        asyncio.run(proxy_main(args))
    elif args.command == "load":
        load_main(args)
    else:
        sys.exit(tally_main(args))


if __name__ == "__main__":
    main()
