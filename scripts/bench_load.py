"""`make bench`'s rows for many clients at once: `authdeck agent` under 50 parallel clients (through its socket and
through `ssh -R` to a real sshd on 127.0.0.1) with one slow client among them, and 20 parallel sign-ins against one
sandbox, without a fault and with `slow-provider`. scripts/bench.py calls `agent_rows` and `sandbox_rows`."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT_LOAD = os.path.join(HERE, "agent-load.py")


def agent_rows(bench):
    """50 clients × 1,000 token requests, one connection each, every answer checked, with a slow client besides."""
    base = tempfile.mkdtemp(prefix="authdeck-agent-bench.")
    agent = None
    try:
        passphrase = os.path.join(base, "passphrase")
        with open(passphrase, "w") as handle:
            handle.write("bench passphrase\n")
        os.chmod(passphrase, 0o600)
        env = bench.environment(os.path.join(base, "home"), AUTHDECK_PASSPHRASE_FILE=passphrase)
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        lines = bench.sessions(10, prefix="agent")
        bench.run(["store", "import", "-"], env, stdin=lines)
        expected = {json.loads(line)["key"]: json.loads(line)["accessToken"] for line in lines.splitlines()}
        tokens = os.path.join(base, "expected.json")
        with open(tokens, "w") as handle:
            json.dump(expected, handle)
        os.chmod(tokens, 0o600)
        socket_path = os.path.join(base, "agent.sock")
        agent = subprocess.Popen([bench.BIN, "agent", "--allow", "*", "--socket", socket_path, "--log",
                                  os.path.join(base, "agent.log")], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
        if agent.stdout.readline().strip() != socket_path:
            raise RuntimeError("the agent did not start")
        clients, requests = int(os.environ.get("AGENT_CLIENTS", 50)), int(os.environ.get("AGENT_REQUESTS", 1000))
        load_row(bench, "agent socket", [sys.executable, AGENT_LOAD, socket_path, tokens, str(clients),
                                          str(requests)], clients, requests)
        # The same clients, each keeping one connection for its requests (a long-running client).
        load_row(bench, "  kept connections", [sys.executable, AGENT_LOAD, socket_path, tokens, str(clients),
                                                str(requests), "--keep"], clients, requests)
        ssh = SSHForward(base, env)
        if ssh.problem:
            bench.row("agent through ssh -R", "n/a", "-", ssh.problem)
            return
        try:
            remote = os.path.join(base, "remote.sock")
            load_row(bench, "agent through ssh -R",
                     ssh.command(remote, socket_path, [sys.executable, AGENT_LOAD, remote, tokens, str(clients),
                                                       str(requests)]), clients, requests)
            # Kept connections: ssh opens a channel per connection, which cost it and sshd more than the agent
            # spends on a request; a client that keeps its connection pays that once.
            load_row(bench, "  kept connections",
                     ssh.command(remote, socket_path, [sys.executable, AGENT_LOAD, remote, tokens, str(clients),
                                                       str(requests), "--keep"]), clients, requests)
        finally:
            ssh.stop()
    except (RuntimeError, OSError) as error:
        bench.row("agent under load", "n/a", "-", str(error).splitlines()[0][:60])
    finally:
        if agent:
            agent.terminate()
            agent.wait()
        shutil.rmtree(base, ignore_errors=True)


def load_row(bench, what, argv, clients, requests):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"{what}: the load client failed: {done.stderr.strip()[-200:]}")
    result = json.loads(done.stdout)
    ok = result["failures"] == 0 and result["wrong"] == 0
    label = f"{what}, {clients} clients x {requests:,}"
    bench.row(f"{label}, tokens/s", f"{result['perSecond']:,}", ">= 5,000",
              f"{result['seconds']} s; failures {result['failures']}, wrong {result['wrong']}"
              + (f" ({result['sample'][:50]})" if result["sample"] else ""),
              met=bench.verdict(ok and result["perSecond"] >= 5000))
    bench.row(f"{label}, p50 / p99", f"{result['p50ms']} / {result['p99ms']} ms", "p99 <= 25 ms",
              f"slow client served {result['slowServed']}", met=bench.verdict(ok and result["p99ms"] <= 25))


class SSHForward:
    """sshd on 127.0.0.1 with throwaway host and user keys; `command` runs a program in a "remote" shell that reaches
    the agent through `ssh -R REMOTE:LOCAL`. Needs root (sshd) and openssh; `problem` says why not otherwise."""

    def __init__(self, base, env):
        self.base, self.env, self.process, self.problem = os.path.join(base, "ssh"), env, None, None
        if os.getuid() != 0 or not shutil.which("sshd", path="/usr/sbin:/usr/bin") or not shutil.which("ssh"):
            self.problem = "skipped: needs root, sshd and ssh"
            return
        os.makedirs(self.base)
        for name in ("host_key", "user_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(self.base, name)],
                           check=True)
        shutil.copy(os.path.join(self.base, "user_key.pub"), os.path.join(self.base, "authorized_keys"))
        os.makedirs("/run/sshd", exist_ok=True)
        import socket
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config = os.path.join(self.base, "sshd_config")
        with open(config, "w") as handle:
            handle.write(f"ListenAddress 127.0.0.1\nPort {self.port}\nHostKey {self.base}/host_key\n"
                         f"AuthorizedKeysFile {self.base}/authorized_keys\nPidFile {self.base}/sshd.pid\n"
                         "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                         "PermitRootLogin prohibit-password\nAllowStreamLocalForwarding yes\n"
                         "StreamLocalBindUnlink yes\nMaxSessions 100\nMaxStartups 100\n")
        log = os.path.join(self.base, "sshd.log")
        self.process = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-E", log, "-f", config])
        for _ in range(200):
            if os.path.exists(log) and f"port {self.port}." in open(log).read():
                break
            time.sleep(0.025)
        else:
            self.problem = "sshd did not start listening"
        with open(os.path.join(self.base, "host_key.pub")) as handle:
            host_key = handle.read()
        with open(os.path.join(self.base, "known_hosts"), "w") as handle:
            handle.write(f"[127.0.0.1]:{self.port} {host_key}")

    def command(self, remote, local, argv):
        return ["ssh", "-F", "/dev/null", "-p", str(self.port), "-i", os.path.join(self.base, "user_key"),
                "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
                "-o", f"UserKnownHostsFile={self.base}/known_hosts", "-o", "StrictHostKeyChecking=yes",
                "-o", "ExitOnForwardFailure=yes", "-R", f"{remote}:{local}", "root@127.0.0.1",
                " ".join("'" + word + "'" for word in argv)]

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait()


def sandbox_rows(bench, passphrase):
    """20 `authdeck login google` at once (the scripted browser approving each) against one sandbox, first with no
    fault, then with `slow-provider` delaying each back-channel answer 1 s: total time and per sign-in."""
    base = tempfile.mkdtemp(prefix="authdeck-sandbox-bench.")
    try:
        for fault in (None, {"faults": ["slow-provider"], "delayMs": 1000}):
            sandbox, config = bench.start_sandbox(base, fault=fault)
            try:
                parallel_sign_ins(bench, base, passphrase, config, fault)
            finally:
                sandbox.terminate()
                sandbox.wait()
    except (RuntimeError, OSError) as error:
        bench.row("20 parallel sign-ins against one sandbox", "n/a", "-", str(error).splitlines()[0][:60])
    finally:
        shutil.rmtree(base, ignore_errors=True)


def parallel_sign_ins(bench, base, passphrase, config, fault, count=20):
    name = "slow" if fault else "plain"
    browser = os.path.join(base, "detached-browser.sh")
    with open(browser, "w") as handle:
        handle.write(f'#!/bin/sh\nexec setsid -f {bench.BROWSER} "$@"\n')
    os.chmod(browser, 0o755)
    env = bench.environment(os.path.join(base, "home-" + name), AUTHDECK_PASSPHRASE_FILE=passphrase,
                            AUTHDECK_CONFIG=config, BROWSER=browser, XDG_RUNTIME_DIR=os.path.join(base, "run"))
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    bench.run(["list"], env)
    started = time.perf_counter()
    running = {}
    for index in range(count):
        errors = open(os.path.join(base, f"{name}{index}.err"), "w+")
        process = subprocess.Popen([bench.BIN, "login", "google", "--session-key", f"{name}{index}"], env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
        running[process.pid] = (time.perf_counter(), errors)
    walls, failed = [], ""
    while running:
        pid, status = os.wait()
        if pid not in running:
            continue
        began, errors = running.pop(pid)
        walls.append(time.perf_counter() - began)
        if os.waitstatus_to_exitcode(status) != 0 and not failed:
            errors.seek(0)
            lines = errors.read().strip().splitlines()
            failed = lines[-1][:50] if lines else f"exit {os.waitstatus_to_exitcode(status)}"
        errors.close()
    total = time.perf_counter() - started
    label = "20 parallel sign-ins, one sandbox" + (", slow-provider 1 s" if fault else "")
    note = f"failed: {failed}" if failed else "all signed in"
    bench.row(f"{label}, total", bench.ms(total), "-", note)
    bench.row(f"{label}, p50 / p99", f"{bench.ms(statistics.median(walls))} / "
              f"{bench.ms(bench.percentile(walls, 0.99))}", "-")
