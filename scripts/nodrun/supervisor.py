"""make run's supervisor: honcho's Manager (each process's lines, named,
and one stop for all), but a process that ends without being asked is
started again by the rule in nodrun/restarts.py (a back-off that doubles,
a limit in a window, each restart said in one line) instead of ending
everything: one service crashing no longer blanks the person's page and
loses what they were typing. Nothing it was doing is replayed: each
service, on boot, ends its own records that were running (DESIGN.md G12).
Any termination signal (INT, TERM, HUP, QUIT) stops every process, and
nothing is restarted once stopping began.

Why honcho plus a rule of our own rather than a maintained supervisor:
circus 0.19 and supervisor 4.3 both install and run on this Python, and
neither does what make run needs without as much code around it as this.
- supervisor (supervisord) restarts a process that ran past `startsecs`
  at once and without limit; its back-off (linear) and its limit only
  cover a process dying while it starts, and past them it leaves that
  process FATAL with the rest running. It writes a process's output to
  files, or unnamed to its own stdout: no name before a line, no JSON for
  a collector. And it is a daemon with a config file and an RPC socket.
- circus respawns at once, with no back-off; its flapping plugin (another
  process, over ZeroMQ) pauses a watcher after N restarts in a window and
  then stops that watcher alone. Its output streams get 1024-byte reads
  named stdout or stderr rather than lines named by process, SIGHUP
  reloads instead of stopping, and it adds pyzmq, tornado and psutil.
honcho already gave the named lines, the JSON and the stop with nobody
reading (nodrun/output.py); what it lacked is the loop below, which
replaces its Manager.loop (the one method that ended everything when one
process ended) and keeps the rest of it.

Each process runs as `exec ARGV` under honcho's shell, so the pid honcho
reports is the process's own (a test or a person can signal it) and a
process killed by a signal is reported as that signal, not the shell's 137."""

import multiprocessing
import queue
import shlex
import signal
import time
from typing import Any, TextIO

from honcho.manager import KILL_WAIT, Manager

from nodrun.output import NamedPrinter
from nodrun.restarts import GiveUp, Limits, RestartPolicy, exit_status, how_it_ended

STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
# How often the loop looks at its signals and due restarts with no line to print.
TICK_S = 0.1


class RestartingManager(Manager):  # type: ignore[misc]  # honcho ships no types
    def __init__(self, printer: NamedPrinter, policy: RestartPolicy) -> None:
        super().__init__(printer=printer)
        self._announcer = printer
        self._policy = policy
        # Processes waiting out their back-off: when each starts again.
        self._due: dict[str, float] = {}
        # Set by the signal handler, acted on by the loop: a handler that
        # printed could land inside the loop's own print to the same stream.
        self._signalled: int | None = None
        self._killed = False
        for signum in STOPPING:
            signal.signal(signum, self._on_signal)

    def add(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        self.add_process(name, "exec " + shlex.join(argv), env=env)

    def _on_signal(self, signum: int, _frame: object) -> None:
        self._signalled = signum

    def loop(self) -> None:
        """Runs every process until a signal, or a process past its
        restart limit, stops them all; then returns (self.returncode)."""
        if self._signalled is not None:  # stopped before anything started
            self.returncode = 128 + self._signalled
            return
        for name in self._processes:
            self._start(name)
        stopping_since: float | None = None
        while True:
            if self._signalled is not None and not self._terminating:
                self._system_print(f"{signal.Signals(self._signalled).name} received\n")
                if self.returncode is None:
                    self.returncode = 128 + self._signalled
                self.terminate()
            try:
                message = self.events.get(timeout=TICK_S)
            except queue.Empty:
                if self._terminating and self._all_stopped():
                    return
            else:
                self._handle(message)
            now = time.monotonic()
            if not self._terminating:
                self._start_due(now)
            elif stopping_since is None:
                stopping_since = now
                self._due.clear()
            elif not self._killed and now - stopping_since > KILL_WAIT:
                self._killed = True
                self.kill()

    def _start(self, name: str) -> None:
        """One process (again): honcho's helper, which starts it in a
        session of its own and sends its lines, its pid and its end."""
        process = self._processes[name]
        process.pop("pid", None)
        process.pop("returncode", None)
        helper = multiprocessing.Process(
            name=name, target=process["obj"].run, args=(self.events, True)
        )
        # start() also reaps the helpers of ended processes.
        helper.start()
        process["process"] = helper

    def _start_due(self, now: float) -> None:
        for name, at in list(self._due.items()):
            if at <= now:
                del self._due[name]
                self._start(name)

    def _handle(self, message: Any) -> None:
        if message.type == "line":
            self._printer.write(message)
            return
        process = self._processes[message.name]
        if message.type == "start":
            pid = message.data["pid"]
            process["pid"] = pid
            self._system_print(f"{message.name} started (pid={pid})\n")
            if self._terminating:  # started as everything was being stopped
                (self._procmgr.kill if self._killed else self._procmgr.terminate)(pid)
        elif message.type == "stop":
            returncode = message.data["returncode"]
            process["returncode"] = returncode
            if self._terminating:
                self._system_print(f"{message.name} stopped (rc={returncode})\n")
                if self.returncode is None:
                    self.returncode = returncode
            else:
                self._ended_by_itself(message.name, returncode)

    def _ended_by_itself(self, name: str, returncode: int) -> None:
        # What it started in its session (the browser's driver) goes with
        # it: a child left holding its port would fail the next start.
        self._procmgr.kill(self._processes[name]["pid"])
        decision = self._policy.after_end(name, returncode)
        ended = how_it_ended(returncode)
        facts = {"process": name, "returncode": returncode}
        if isinstance(decision, GiveUp):
            self._announcer.announce(
                f"{name} exited ({ended}) and is not restarted: {decision.why}."
                " Stopping everything.",
                level="error",
                **facts,
            )
            self.returncode = exit_status(returncode)
            self.terminate()
            return
        limits = self._policy.limits
        self._due[name] = time.monotonic() + decision.delay_s
        self._announcer.announce(
            f"{name} exited ({ended}); restarting it in {decision.delay_s:g} s,"
            f" restart {decision.number} of {limits.limit} allowed within {limits.window_s:g} s",
            level="warning",
            restart=decision.number,
            delay_s=decision.delay_s,
            **facts,
        )

    def _killall(self, force: bool = False) -> None:
        """honcho's, but a process whose pid has not come yet is skipped
        (its start is answered with the signal): honcho's raised KeyError."""
        signame = "SIGKILL" if force else "SIGTERM"
        send = self._procmgr.kill if force else self._procmgr.terminate
        for name, process in self._processes.items():
            if process.get("returncode") is None and process.get("pid") is not None:
                self._system_print(f"sending {signame} to {name} (pid {process['pid']})\n")
                send(process["pid"])


def supervisor(*, output: TextIO, json_lines: bool, limits: Limits) -> RestartingManager:
    """Its signal handlers are in place from here: a Ctrl-C before loop()
    starts nothing."""
    printer = NamedPrinter(output=output, json_lines=json_lines)
    return RestartingManager(printer, RestartPolicy(limits))
