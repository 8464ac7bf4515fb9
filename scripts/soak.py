#!/usr/bin/env python3
"""A day in a few minutes: `make soak` (SOAK_SECONDS, default 600) and the short run `make test` ends with.

The real binaries against the real sandbox, all at once, for the whole run:
  - the TUI open in tmux, with auto-refresh on for the sessions it shows;
  - loops calling `authdeck token`, `authdeck exec` and `authdeck token` through `authdeck agent`;
  - sessions whose tokens live 30 seconds (`sandbox --token-lifetime 30`), so every loop refreshes;
  - imports and logouts, and sign-ins through the scripted browser followed by logouts with revocation;
  - the sandbox switching its faults (token-5xx-html, slow-provider, code-reused) and a relay in front of its
    token endpoint dropping connections before they reach it;
  - now and then a writer (an import, a logout, a sign-in) killed with SIGKILL.
Refreshes are never killed: a refresh killed between the provider's answer and the store's commit loses the
rotated token by nature (nobody can keep an answer they never received), which is no fault of the store.

At the end: `PRAGMA integrity_check` by the sqlite3 program, every session that should exist listed and its token
working (the sandbox's userinfo accepts it after one more refresh; an imported token comes back unchanged), no
refresh token sent twice (the sandbox's own count of replays in its data folder), the TUI's and agent's RSS at
start and end (flagged beyond +50%), and no process of the run left. A failing run prints what failed and keeps
its logs in the folder it names.

Usage: scripts/soak.py BIN [--seconds N] [--keep]"""
import argparse
import json
import os
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(HERE)
BROWSER = os.path.join(ROOT, "Tests", "authdeckTests", "Fixtures", "scripted-browser.py")
TOKEN_LIFETIME = 30
RSS_GROWTH_LIMIT = 1.5
# Seconds after a fault ends within which a failed call is still put down to it (slow-provider's 1.5 s answers
# queued at the sandbox).
QUIET_GRACE = 6
# Sessions that live through the whole run: key, provider, sandbox user.
# (ada and bob: the sandbox users who sign in without a second step.)
LIFE = [("life-0", "google", "ada"), ("life-1", "discord", "bob"), ("life-2", "google", "bob"),
        ("life-3", "discord", "ada")]
SEEDS = 40


class Run:
    """The folder, the environment every process gets and what went wrong."""

    def __init__(self, binary, seconds):
        self.binary = binary
        self.seconds = seconds
        self.dir = tempfile.mkdtemp(prefix="authdeck-soak.")
        self.id = os.path.basename(self.dir)
        self.home = os.path.join(self.dir, "home")
        self.failures = []
        self.failed_calls = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.phase = "setup"
        self.phase_since = time.time()
        self.quiet_since = time.time()
        os.makedirs(self.home, mode=0o700)
        runtime = os.path.join(self.dir, "runtime")
        os.makedirs(runtime, mode=0o700)
        self.passphrase = os.path.join(self.dir, "passphrase")
        with open(os.open(self.passphrase, os.O_WRONLY | os.O_CREAT, 0o600), "w") as out:
            out.write("soak passphrase %d\n" % random.randrange(1 << 30))
        self.config = os.path.join(self.dir, "config.json")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.dir, "LANG": "C.UTF-8",
            "AUTHDECK_HOME": self.home, "AUTHDECK_PASSPHRASE_FILE": self.passphrase,
            "AUTHDECK_CONFIG": self.config, "XDG_RUNTIME_DIR": runtime, "BROWSER": BROWSER,
            "SCRIPTED_BROWSER_LOG": os.path.join(self.dir, "browser.log"),
            # Every process of the run carries it, so one left behind is found at the end.
            "AUTHDECK_SOAK_RUN": self.id,
        }

    def fail(self, what):
        with self.lock:
            self.failures.append(what)
        print("soak: FAIL " + what, file=sys.stderr, flush=True)

    def failed_call(self, what):
        """A call that should have succeeded: told once on the way, all counted at the end."""
        with self.lock:
            self.failed_calls.append(what)
            first = len(self.failed_calls) == 1
        if first:
            print("soak: FAIL " + what, file=sys.stderr, flush=True)

    def note(self, what):
        print("soak: " + what, file=sys.stderr, flush=True)

    def log(self, name):
        return open(os.path.join(self.dir, name), "a", buffering=1)

    def authdeck(self, args, extra=None, stdin=None, timeout=60, name="cmd"):
        env = dict(self.env, **(extra or {}))
        started = time.time()
        try:
            done = subprocess.run([self.binary] + args, env=env, input=stdin, capture_output=True, text=True,
                                  timeout=timeout, start_new_session=True,
                                  **({} if stdin is not None else {"stdin": subprocess.DEVNULL}))
            return done.returncode, done.stdout, done.stderr, time.time() - started
        except subprocess.TimeoutExpired as error:
            return -1, "", "timed out after %ds: %s" % (timeout, error), time.time() - started


class Relay(threading.Thread):
    """127.0.0.1:PORT in front of the sandbox's token endpoints: passes connections through, or, while `dropping`,
    resets each one before a byte of it reaches the sandbox (a load balancer dropping connections)."""

    def __init__(self, target_port):
        super().__init__(daemon=True)
        self.target_port = target_port
        self.dropping = False
        self.dropped = 0
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]

    def run(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.dropping:
                self.dropped += 1
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                client.close()
                continue
            threading.Thread(target=self.pipe, args=(client,), daemon=True).start()

    def pipe(self, client):
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=30)
        except OSError:
            client.close()
            return
        peers = {client: upstream, upstream: client}
        try:
            while True:
                ready, _, _ = select.select(list(peers), [], [], 60)
                if not ready:
                    break
                for side in ready:
                    data = side.recv(65536)
                    if not data:
                        return
                    peers[side].sendall(data)
        except OSError:
            pass
        finally:
            client.close()
            upstream.close()

    def close(self):
        self.listener.close()


def start_sandbox(run):
    out = open(os.path.join(run.dir, "sandbox.out"), "w")
    sandbox = subprocess.Popen(
        [run.binary, "sandbox", "--port", "0", "--token-lifetime", str(TOKEN_LIFETIME), "--config-out",
         run.config + ".sandbox", "--outbox", os.path.join(run.dir, "outbox.jsonl")],
        env=run.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    for _ in range(600):
        if os.path.exists(run.config + ".sandbox"):
            with open(os.path.join(run.dir, "sandbox.out")) as lines:
                first = lines.readline().strip()
            if first.startswith("http://"):
                return sandbox, first
        if sandbox.poll() is not None:
            break
        time.sleep(0.05)
    raise SystemExit("the sandbox did not start; see sandbox.out")


def point_token_endpoints_at(run, relay_port, base):
    """config.json with every provider's token endpoint behind the relay (sessions keep the endpoint they signed in
    with, so every refresh goes through it)."""
    with open(run.config + ".sandbox") as text:
        config = json.load(text)
    for provider in config.get("providers", {}).values():
        if provider.get("tokenEndpoint", "").startswith(base + "/"):
            provider["tokenEndpoint"] = "http://127.0.0.1:%d%s" % (relay_port, provider["tokenEndpoint"][len(base):])
    with open(run.config, "w") as out:
        json.dump(config, out)


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Tmux:
    def __init__(self, run, command):
        self.run = run
        self.socket = os.path.join(run.dir, "tmux.sock")
        env = " ".join("%s=%s" % (key, quote(value)) for key, value in sorted(run.env.items()))
        line = "env -i %s TERM=xterm-256color %s 2>%s; echo $? > %s" % (
            env, " ".join(quote(part) for part in command), quote(os.path.join(run.dir, "tui.err")),
            quote(os.path.join(run.dir, "tui.exit")))
        subprocess.run(["tmux", "-S", self.socket, "new-session", "-d", "-x", "120", "-y", "40", line],
                       env=run.env, check=True)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.socket] + list(args), env=self.run.env, capture_output=True,
                              text=True).stdout

    def send(self, *keys):
        self.tmux("send-keys", "-t", "0", *keys)
        time.sleep(0.2)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "0")

    def wait_for(self, text, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if text in self.screen():
                return True
            time.sleep(0.1)
        return False

    def program_pid(self):
        """The TUI's pid: the pane shell's child (env, which exec'd authdeck, which exec'd authdeck-full)."""
        shell = self.tmux("display-message", "-p", "-t", "0", "#{pane_pid}").strip()
        try:
            with open("/proc/%s/task/%s/children" % (shell, shell)) as children:
                return int(children.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill_server(self):
        self.tmux("kill-server")


def quote(word):
    return "'" + word.replace("'", "'\\''") + "'"


# ---------------------------------------------------------------------------------------------------------------
# The loops. Each logs one line per command: time, phase, what, exit status, seconds, first line of stderr.


def record(run, log, what, status, stderr, seconds, started):
    first = (stderr.strip().splitlines() or [""])[0][:200]
    log.write("%.1f %s %s rc=%d %.2fs %s\n" % (started - run.started, run.phase, what, status, seconds, first))
    # A failure is expected while a fault is on and just after it (a slow answer still on its way); once no fault
    # has been on for QUIET_GRACE seconds, every read must succeed.
    if status != 0 and run.phase == "quiet" and started - run.quiet_since > QUIET_GRACE:
        run.failed_call("%s failed with no fault on for %.0f s: %s" % (what, started - run.quiet_since, first))


def token_loop(run, number, counts):
    log = run.log("loop-token-%d.log" % number)
    seeds = run.seeds
    while not run.stop.is_set():
        if random.random() < 0.5:
            key = random.choice(LIFE)[0]
            started = time.time()
            status, out, err, took = run.authdeck(["token", key])
            if status == 0 and not out.strip():
                run.fail("token %s printed nothing" % key)
        else:
            key = random.choice(list(seeds))
            started = time.time()
            status, out, err, took = run.authdeck(["token", key])
            if status == 0 and out != seeds[key] + "\n":
                run.fail("token %s printed a wrong token" % key)
        record(run, log, "token " + key, status, err, took, started)
        counts["token"] += 1


def exec_loop(run, counts):
    log = run.log("loop-exec.log")
    while not run.stop.is_set():
        key = random.choice(LIFE)[0]
        started = time.time()
        status, out, err, took = run.authdeck(
            ["exec", "--", "sh", "-c", 'test -n "$AUTHDECK_TOKEN" && printf %s "$AUTHDECK_SESSION"'],
            extra={"AUTHDECK_SESSION": key})
        if status == 0 and out != key:
            run.fail("exec under %s ran its command with AUTHDECK_SESSION=%r" % (key, out[:40]))
        record(run, log, "exec " + key, status, err, took, started)
        counts["exec"] += 1


def agent_loop(run, counts):
    log = run.log("loop-agent.log")
    seeds = run.seeds
    via = {"AUTHDECK_AGENT_SOCK": run.agent_socket}
    while not run.stop.is_set():
        key = random.choice([entry[0] for entry in LIFE] + ["seed-0", "seed-1"])
        started = time.time()
        status, out, err, took = run.authdeck(["token", key], extra=via)
        if status == 0 and key in seeds and out != seeds[key] + "\n":
            run.fail("the agent served a wrong token for %s" % key)
        if status == 0 and not out.strip():
            run.fail("the agent served an empty token for %s" % key)
        record(run, log, "agent " + key, status, err, took, started)
        counts["agent"] += 1


def killable(run, args, kill_after=None):
    """Runs one writer; with `kill_after`, SIGKILLs its process group then (the writer and any browser it opened).
    Returns its exit status, or None when it was killed before it finished."""
    process = subprocess.Popen([run.binary] + args, env=run.env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    if kill_after is not None:
        try:
            process.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            run.kills += 1
            return None, ""
    try:
        _, err = process.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return -1, "timed out"
    return process.returncode, err.decode("utf-8", "replace")


def logout(run, log, ledger, key, options, kill=None):
    """`logout KEY`, perhaps killed: the ledger says gone only when it said it removed the session."""
    status, err = killable(run, ["logout", key, "--quiet"] + options, kill)
    ledger[key] = "gone" if status == 0 else "unknown"
    log.write("%.1f %s logout %s rc=%s %s\n" % (time.time() - run.started, run.phase, key, status, err.strip()[:200]))


def writer_loop(run, ledger, counts):
    """Imports of a line or three and logouts of earlier ones; one in five killed a few milliseconds in."""
    log = run.log("loop-writer.log")
    number = 0
    while not run.stop.is_set():
        keys = ["churn-%d-%d" % (number, part) for part in range(random.randint(1, 3))]
        path = os.path.join(run.dir, "import.jsonl")
        with open(path, "w") as out:
            for key in keys:
                out.write(json.dumps({"key": key, "provider": "google", "subject": key, "accessToken": "AT-" + key})
                          + "\n")
        kill = random.uniform(0.005, 0.08) if random.random() < 0.2 else None
        started = time.time()
        status, err = killable(run, ["store", "import", path, "--quiet"], kill)
        for key in keys:
            ledger[key] = "present" if status == 0 else "unknown"
        log.write("%.1f %s import %s rc=%s %s\n" % (started - run.started, run.phase, ",".join(keys), status,
                                                     err.strip()[:200]))
        if status not in (0, None):
            run.fail("store import failed: %s" % err.strip()[:200])
        if number >= 2 and number % 2 == 0:
            kill = random.uniform(0.005, 0.08) if random.random() < 0.2 else None
            logout(run, log, ledger, "churn-%d-0" % (number - 2), [], kill)
        number += 1
        counts["writes"] += 1
        time.sleep(0.2)


def signin_loop(run, ledger, counts):
    """Sign-ins through the scripted browser (one in five killed mid-flight) and logouts with revocation of the
    ones two back."""
    log = run.log("loop-signin.log")
    number = 0
    while not run.stop.is_set():
        key = "in-%d" % number
        provider = random.choice(["google", "discord"])
        kill = random.uniform(0.3, 2.5) if random.random() < 0.2 else None
        started = time.time()
        status, err = killable(run, ["login", provider, "--session-key", key], kill)
        # A refused sign-in (a fault) stores nothing; a killed one may or may not have.
        ledger[key] = {0: "present", None: "unknown"}.get(status, "gone")
        log.write("%.1f %s login %s rc=%s %s\n" % (started - run.started, run.phase, key, status,
                                                    (err.strip().splitlines() or [""])[-1][:200]))
        if status not in (0, None) and run.phase == "quiet" and started - run.quiet_since > QUIET_GRACE:
            run.failed_call("login %s failed with no fault on: %s" % (key, err.strip()[-200:]))
        if number >= 2:
            victim = "in-%d" % (number - 2)
            if ledger.get(victim) != "gone":
                logout(run, log, ledger, victim, ["--revoke"])
        number += 1
        counts["sign-ins"] += 1
        time.sleep(1)


# ---------------------------------------------------------------------------------------------------------------


def switch_faults(run, base, relay, phase):
    # No call failing from here on is put down to a quiet spell: the relay starts dropping before the `sandbox
    # faults` command has run and the phase is set (a sign-in that failed in that window was once blamed on "quiet").
    run.phase = "switching"
    relay.dropping = phase == "dropped-connections"
    names = phase if phase not in ("quiet", "dropped-connections") else "none"
    status, _, err, _ = run.authdeck(["sandbox", "faults", names, "--delay-ms", "1500", "--url", base])
    if status != 0:
        run.fail("switching the sandbox's faults to %s: %s" % (names, err.strip()[:200]))
    if phase == "quiet" and run.phase != "quiet":
        run.quiet_since = time.time()
    run.phase = phase
    run.note("%5.0f s  %s" % (time.time() - run.started, phase))


def userinfo_accepts(base, provider, token):
    path = {"google": "/oidc/google/userinfo", "discord": "/oidc/discord/api/users/@me"}[provider]
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status == 200
    except (urllib.error.URLError, OSError):
        return False


def leftovers(run):
    """Processes of this run still alive: every one carries AUTHDECK_SOAK_RUN in its environment."""
    marker = ("AUTHDECK_SOAK_RUN=" + run.id).encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as environ:
                if marker in environ.read().split(b"\0"):
                    with open("/proc/%s/cmdline" % name, "rb") as cmdline:
                        found.append("%s %s" % (name, cmdline.read().replace(b"\0", b" ").decode()[:120]))
        except OSError:
            continue
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("SOAK_SECONDS", "600")))
    parser.add_argument("--keep", action="store_true", help="keep the logs of a run that passed too")
    options = parser.parse_args()
    missing = [tool for tool in ("tmux", "sqlite3") if not shutil.which(tool)]
    if missing:
        message = "soak: skipped, %s not installed (make setup installs it)" % " and ".join(missing)
        print(message, file=sys.stderr)
        return 1 if os.environ.get("CI") == "true" else 0
    binary = os.path.abspath(options.binary)
    run = Run(binary, options.seconds)
    run.started = time.time()
    run.kills = 0
    run.note("%d s against %s; logs in %s" % (options.seconds, binary, run.dir))
    sandbox = agent = tui = relay = None
    rss = {}
    try:
        sandbox, base = start_sandbox(run)
        relay = Relay(int(base.rsplit(":", 1)[1]))
        relay.start()
        point_token_endpoints_at(run, relay.port, base)

        # The sessions that live through the run, each as another sandbox user, and imported ones with fixed tokens.
        for key, provider, user in LIFE:
            status, _, err, _ = run.authdeck(["login", provider, "--session-key", key], extra={"SANDBOX_USER": user})
            if status != 0:
                raise SystemExit("the first sign-in of %s failed: %s" % (key, err.strip()[-300:]))
        run.seeds = {"seed-%d" % n: "AT-seed-%d-%x" % (n, random.randrange(1 << 32)) for n in range(SEEDS)}
        lines = "".join(json.dumps({"key": key, "provider": "discord", "subject": key, "accessToken": token}) + "\n"
                        for key, token in run.seeds.items())
        status, _, err, _ = run.authdeck(["store", "import", "-"], stdin=lines)
        if status != 0:
            raise SystemExit("the first import failed: %s" % err.strip())

        run.agent_socket = os.path.join(run.dir, "agent.sock")
        agent = subprocess.Popen([binary, "agent", "--allow", "*", "--socket", run.agent_socket, "--log",
                                  os.path.join(run.dir, "agent.log")], env=run.env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=open(os.path.join(run.dir, "agent.err"), "w"),
                                 start_new_session=True)
        tui = Tmux(run, [binary, "tui"])
        if not tui.wait_for("authdeck · Sessions"):
            raise SystemExit("the TUI did not show its sessions:\n" + tui.screen())
        # Auto-refresh on for the sessions that live through the run: filter them, then `a` on each row.
        tui.send("/")
        tui.send("-l", "life-")
        tui.send("Enter")
        for _ in LIFE:
            tui.send("a")
            tui.send("Down")
        for _ in range(200):
            if os.path.exists(run.agent_socket):
                break
            time.sleep(0.05)
        save(run, "tui-start.txt", tui.screen())
        if "auto-refresh on" not in tui.screen():
            raise SystemExit("the TUI did not turn auto-refresh on (tui-start.txt)")
        rss["tui launch"] = rss_kb(tui.program_pid() or 0)
        rss["agent launch"] = rss_kb(agent.pid)

        ledger = {}
        counts = {"token": 0, "exec": 0, "agent": 0, "writes": 0, "sign-ins": 0}
        loops = [threading.Thread(target=token_loop, args=(run, 0, counts)),
                 threading.Thread(target=token_loop, args=(run, 1, counts)),
                 threading.Thread(target=exec_loop, args=(run, counts)),
                 threading.Thread(target=agent_loop, args=(run, counts)),
                 threading.Thread(target=writer_loop, args=(run, ledger, counts)),
                 threading.Thread(target=signin_loop, args=(run, ledger, counts))]
        faults = ["token-5xx-html", "slow-provider", "dropped-connections", "code-reused"]
        # Each fault once in a short run; in a long one, round after round, 15 s each, a longer quiet spell between
        # (the calls made in it must all succeed).
        length = max(5.0, min(15.0, options.seconds / (len(faults) + 1.6 * (len(faults) + 1))))
        run.started = run.quiet_since = time.time()
        run.phase = "quiet"
        for loop in loops:
            loop.start()
        end = run.started + options.seconds
        cycle = [phase for fault in faults for phase in (fault, "quiet")]
        step = 0
        measured = False
        while time.time() < end:
            phase = cycle[(step - 1) % len(cycle)] if step else "quiet"
            if phase != run.phase:
                switch_faults(run, base, relay, phase)
            step += 1
            phase_end = min(end, time.time() + length * (1.6 if phase == "quiet" else 1))
            while time.time() < phase_end:
                # Someone at the TUI: moving up and down, now and then refreshing the session under the cursor.
                tui.send(random.choice(["Down", "Up", "j", "k", "r"]))
                time.sleep(1)
                if not measured and time.time() - run.started >= min(max(30, options.seconds / 5), options.seconds / 2):
                    # Start figures once every process has served requests and refreshed (libcurl loaded), so
                    # what follows measures growth, not first use.
                    rss["tui start"] = rss_kb(tui.program_pid() or 0)
                    rss["agent start"] = rss_kb(agent.pid)
                    measured = True
        switch_faults(run, base, relay, "quiet")
        run.stop.set()
        for loop in loops:
            loop.join(timeout=120)
            if loop.is_alive():
                run.fail("a loop did not finish within 120 s of the end")
        rss["tui end"] = rss_kb(tui.program_pid() or 0)
        rss["agent end"] = rss_kb(agent.pid)
        run.note("ran %s; %d writers killed with SIGKILL; %d connections dropped" % (
            ", ".join("%d %s" % (count, what) for what, count in counts.items()), run.kills, relay.dropped))

        # The TUI still answers and quits cleanly.
        save(run, "tui-end.txt", tui.screen())
        if "authdeck · Sessions" not in tui.screen():
            run.fail("the TUI no longer shows its sessions:\n" + tui.screen())
        tui.send("Escape")
        tui.send("q")
        for _ in range(200):
            if os.path.exists(os.path.join(run.dir, "tui.exit")):
                break
            time.sleep(0.05)
        try:
            with open(os.path.join(run.dir, "tui.exit")) as status:
                code = status.read().strip()
            if code != "0":
                run.fail("the TUI exited with status %s (tui.err)" % code)
        except OSError:
            run.fail("the TUI did not quit on q")

        # The store.
        integrity = subprocess.run(["sqlite3", os.path.join(run.home, "sessions.db"), "PRAGMA integrity_check;"],
                                   capture_output=True, text=True)
        if integrity.stdout != "ok\n":
            run.fail("PRAGMA integrity_check: %s%s" % (integrity.stdout.strip()[:300], integrity.stderr.strip()))
        status, out, err, _ = run.authdeck(["list", "--json"])
        listed = {entry["key"]: entry for entry in json.loads(out)} if status == 0 else {}
        if status != 0:
            run.fail("list --json: %s" % err.strip())
        expected = [key for key, _, _ in LIFE] + list(run.seeds) + [k for k, v in ledger.items() if v == "present"]
        missing = [key for key in expected if key not in listed]
        if missing:
            run.fail("sessions missing: %s" % ", ".join(missing[:20]))
        stray = [key for key, state in ledger.items() if state == "gone" and key in listed]
        if stray:
            run.fail("sessions logged out or refused but listed: %s" % ", ".join(stray[:20]))
        for key, provider, _ in LIFE + [(k, listed[k]["provider"], None) for k, v in ledger.items()
                                        if v == "present" and k.startswith("in-") and k in listed]:
            status, _, err, _ = run.authdeck(["refresh", key, "--quiet"])
            _, token, _, _ = run.authdeck(["token", key])
            if status != 0 or not userinfo_accepts(base, provider, token.strip()):
                run.fail("%s: no working token at the end (refresh: %s)" % (key, err.strip()[:200] or "ok"))
        for key, token in run.seeds.items():
            if run.authdeck(["token", key])[1] != token + "\n":
                run.fail("%s: its imported token did not come back unchanged" % key)
        for key, state in ledger.items():
            if state == "present" and key.startswith("churn-") and run.authdeck(["token", key])[1] != "AT-%s\n" % key:
                run.fail("%s: its imported token did not come back unchanged" % key)

        # The sandbox's own record of refresh tokens that came back after they were rotated away.
        with open(os.path.join(run.home, "sandbox", "oidc-grants.json")) as grants:
            replays = json.load(grants).get("refreshReplays")
        if replays is None:
            run.fail("the sandbox keeps no record of refresh-token replays (refreshReplays in oidc-grants.json)")
        elif replays:
            run.fail("the sandbox saw %d refresh token(s) sent again after rotation, in %d grant(s)" % (
                sum(replays.values()), len(replays)))
    except SystemExit as stop:
        run.fail(str(stop))
    except Exception:
        run.fail("the soak itself broke:\n" + traceback.format_exc())
    finally:
        if tui:
            tui.kill_server()
        for process in (agent, sandbox):
            if process and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    run.fail("pid %d did not stop on SIGTERM" % process.pid)
                    process.kill()
        if relay:
            relay.close()

    for what in ("tui", "agent"):
        start, end = rss.get(what + " start"), rss.get(what + " end")
        run.note("RSS %-5s at launch %s, start %s, end %s" % (
            what, mb(rss.get(what + " launch")), mb(start), mb(end)))
        if not start or not end:
            if run.phase != "setup":
                run.fail("no RSS figures for the %s" % what)
        elif end > start * RSS_GROWTH_LIMIT:
            run.fail("the %s grew from %s to %s RSS (more than +%d%%)" % (
                what, mb(start), mb(end), (RSS_GROWTH_LIMIT - 1) * 100))
    left = []
    for _ in range(50):
        left = leftovers(run)
        if not left:
            break
        time.sleep(0.1)
    if left:
        run.fail("processes of the run left behind:\n  " + "\n  ".join(left))

    if run.failed_calls:
        run.failures.append("%d calls failed with no fault on (loop-*.log), the first: %s" % (
            len(run.failed_calls), run.failed_calls[0]))
    if run.failures:
        print("soak: FAILED (%d): logs kept in %s" % (len(run.failures), run.dir), file=sys.stderr)
        for failure in run.failures[:30]:
            print("  - " + failure, file=sys.stderr)
        return 1
    print("soak: passed (%d s)" % options.seconds, file=sys.stderr)
    if options.keep:
        print("soak: logs in %s" % run.dir, file=sys.stderr)
    else:
        shutil.rmtree(run.dir, ignore_errors=True)
    return 0


def save(run, name, text):
    with open(os.path.join(run.dir, name), "w") as out:
        out.write(text)


def mb(kb):
    return "%.1f MB" % (kb / 1024) if kb else "?"


if __name__ == "__main__":
    sys.exit(main())
