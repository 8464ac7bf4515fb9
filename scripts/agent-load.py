#!/usr/bin/env python3
"""Many clients of `authdeck agent` at once, and one slow one: what `make bench` times and the agent's load test
checks. Usage: agent-load.py SOCKET EXPECTED.json CLIENTS REQUESTS [--keep]

EXPECTED.json maps each session key to the token the agent must hand out for it. CLIENTS processes start together
and each sends REQUESTS token requests (one JSON line each way), each on a connection of its own as every
`authdeck token` process does, or with --keep all on one connection the client keeps, as a long-running client
may; asking for the sessions in turn; every answer is checked against EXPECTED. One more client is slow all along: it sends
each request in pieces, waits before reading and reads the answer a byte at a time, while holding a second
connection open that sends nothing. Prints one JSON object: requests, failures, wrong (a token of another session
or none), the fast clients' throughput and p50/p99 latency, what the slow client did, and a sample failure.
"""
import json
import multiprocessing
import socket
import sys
import time
from array import array


def ask(path, key, kept=None):
    """One request on a new connection, or on `kept` (a connection the client keeps, when it keeps one): the
    answer's parsed JSON line."""
    if kept is not None:
        return exchange(kept, key)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        return exchange(connection, key)


def exchange(connection, key):
    connection.sendall(json.dumps({"op": "token", "session": key, "origin": "load"}).encode() + b"\n")
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = connection.recv(4096)
        if not chunk:
            raise ConnectionError(f"closed after {len(answer)} bytes")
        answer += chunk
    return json.loads(answer)


def verdict(answer, key, expected):
    """None when the answer is the token of `key`, else what is wrong with it."""
    if not answer.get("ok"):
        return "failure", f"refused: {answer.get('error', '?')}"
    if answer.get("key") != key or answer.get("token") != expected[key]:
        return "wrong", f"asked for {key}, got a token that is not its own (the answer names {answer.get('key')})"
    return None


def fast_client(index, path, expected, requests, start, results, keep):
    keys = sorted(expected)
    latencies = array("d")
    failures = wrong = 0
    sample = ""
    kept = None
    start.wait()
    began = time.perf_counter()
    for number in range(requests):
        key = keys[(index + number) % len(keys)]
        sent = time.perf_counter()
        try:
            if keep and kept is None:
                kept = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                kept.connect(path)
            problem = verdict(ask(path, key, kept), key, expected)
        except (OSError, ValueError) as error:
            problem = ("failure", f"{type(error).__name__}: {error}")
            if kept is not None:
                kept.close()
                kept = None
        latencies.append(time.perf_counter() - sent)
        if problem:
            failures += problem[0] == "failure"
            wrong += problem[0] == "wrong"
            sample = sample or problem[1]
    if kept is not None:
        kept.close()
    results.put((index, began, time.perf_counter(), failures, wrong, sample, latencies.tobytes()))


def slow_client(path, expected, start, done, results):
    """Requests sent in three pieces 20 ms apart, answers read 50 ms later a byte at a time, and a second connection
    held open saying nothing (the agent cuts that one off after its request timeout; it is opened again)."""
    keys = sorted(expected)
    served = failures = wrong = 0
    sample = ""
    idle = None
    start.wait()
    while not done.is_set():
        if idle is None or not held_open(idle):
            if idle:
                idle.close()
            idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            idle.connect(path)
        key = keys[served % len(keys)]
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.connect(path)
                line = json.dumps({"op": "token", "session": key, "origin": "slow"}).encode() + b"\n"
                for piece in (line[:10], line[10:20], line[20:]):
                    connection.sendall(piece)
                    time.sleep(0.02)
                time.sleep(0.05)
                answer = b""
                while not answer.endswith(b"\n"):
                    byte = connection.recv(1)
                    if not byte:
                        raise ConnectionError("closed mid-answer")
                    answer += byte
                    time.sleep(0.001)
            problem = verdict(json.loads(answer), key, expected)
        except (OSError, ValueError) as error:
            problem = ("failure", f"slow client: {type(error).__name__}: {error}")
        served += 1
        if problem:
            failures += problem[0] == "failure"
            wrong += problem[0] == "wrong"
            sample = sample or problem[1]
    if idle:
        idle.close()
    results.put((served, failures, wrong, sample))


def held_open(connection):
    """Whether the idle connection is still open (the agent has not cut it off)."""
    try:
        return connection.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True


def main():
    path, expected_file, clients, requests = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    keep = sys.argv[5:] == ["--keep"]
    with open(expected_file) as handle:
        expected = json.load(handle)
    context = multiprocessing.get_context("fork")
    start, done = context.Event(), context.Event()
    results, slow_results = context.Queue(), context.Queue()
    workers = [context.Process(target=fast_client, args=(index, path, expected, requests, start, results, keep))
               for index in range(clients)]
    slow = context.Process(target=slow_client, args=(path, expected, start, done, slow_results))
    for process in workers + [slow]:
        process.start()
    time.sleep(0.2)
    start.set()
    gathered = [results.get() for _ in workers]
    done.set()
    slow_served, slow_failures, slow_wrong, slow_sample = slow_results.get()
    for process in workers + [slow]:
        process.join()
    latencies = array("d")
    for *_, data in gathered:
        latencies.frombytes(data)
    ordered = sorted(latencies)

    def percentile(fraction):
        return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))] if ordered else 0.0

    began = min(entry[1] for entry in gathered)
    ended = max(entry[2] for entry in gathered)
    samples = [entry[5] for entry in gathered if entry[5]] + ([slow_sample] if slow_sample else [])
    print(json.dumps({
        "requests": len(ordered),
        "failures": sum(entry[3] for entry in gathered) + slow_failures,
        "wrong": sum(entry[4] for entry in gathered) + slow_wrong,
        "seconds": round(ended - began, 3),
        "perSecond": round(len(ordered) / (ended - began)) if ended > began else 0,
        "p50ms": round(percentile(0.50) * 1000, 2),
        "p99ms": round(percentile(0.99) * 1000, 2),
        "slowServed": slow_served,
        "sample": samples[0] if samples else "",
    }))


if __name__ == "__main__":
    main()
