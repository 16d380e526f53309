"""When `make run` starts a process again that ended by itself, and when it
gives up: the rule alone, with no processes in it (nodrun/supervisor.py
applies it), so it is tested with a clock of the test's own.

A process make run did not ask to stop is started again after a wait that
doubles with each restart in the window (1 s, 2 s, 4 s ...), as an
operator's supervisor or Kubernetes' back-off would; past `limit` restarts
within `window_s` seconds it is not started again and make run stops
everything. Whatever it ended with counts: a service has no business
ending on its own, and one told to stop by someone else's SIGTERM (which it
answers by draining and exiting 0) comes back as a pod would. The one
exception is exit code 2, a setting that is wrong (nodkit.startup): the
same setting would fail the same way, so make run stops at once and the
line naming the setting is the last one a person reads.

NOD_RUN_RESTART_LIMIT and NOD_RUN_RESTART_WINDOW_S change the limit and
the window (0 restarts: the first end stops everything, as make run did
before it restarted anything)."""

import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

# nodkit.startup.BAD_SETTING: nothing a restart changes.
BAD_SETTING = 2


@dataclass(frozen=True)
class Limits:
    limit: int = 5
    window_s: float = 60.0
    first_delay_s: float = 1.0
    # The doubling stops here: a limit raised past the default still comes
    # back within half a minute.
    longest_delay_s: float = 30.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> "Limits":
        """The defaults, or NOD_RUN_RESTART_LIMIT / NOD_RUN_RESTART_WINDOW_S."""
        limits = cls()
        try:
            limit = int(environ.get("NOD_RUN_RESTART_LIMIT", limits.limit))
            window_s = float(environ.get("NOD_RUN_RESTART_WINDOW_S", limits.window_s))
        except ValueError as error:
            message = f"nod: NOD_RUN_RESTART_LIMIT or _WINDOW_S is not a number: {error}"
            raise SystemExit(message) from None
        if limit < 0 or window_s <= 0:
            raise SystemExit("nod: NOD_RUN_RESTART_LIMIT must be >= 0, _WINDOW_S > 0")
        return cls(limit=limit, window_s=window_s)


@dataclass(frozen=True)
class Restart:
    """Start it again in `delay_s`; the `number`th restart in the window."""

    delay_s: float
    number: int


@dataclass(frozen=True)
class GiveUp:
    why: str


def how_it_ended(returncode: int) -> str:
    """As a person reads it: `rc=1` (as honcho's "stopped (rc=1)"), or
    `signal 9, SIGKILL` for Popen's negative return code."""
    if returncode >= 0:
        return f"rc={returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"
    return f"signal {-returncode}, {name}"


def exit_status(returncode: int) -> int:
    """make run's own exit status when it gives up on a process: the
    process's, as a shell reports one (128 + the signal), never 0."""
    if returncode > 0:
        return returncode
    return 128 - returncode if returncode < 0 else 1


@dataclass
class RestartPolicy:
    limits: Limits
    clock: Callable[[], float] = time.monotonic
    # Per process, when each restart in the window was decided.
    _restarts: dict[str, list[float]] = field(default_factory=dict)

    def after_end(self, name: str, returncode: int) -> Restart | GiveUp:
        """What to do about `name`, which ended with `returncode` while
        nobody asked it to stop."""
        if returncode == BAD_SETTING:
            return GiveUp("a setting is wrong, and starting it again would not change that")
        now = self.clock()
        recent = [at for at in self._restarts.get(name, []) if now - at < self.limits.window_s]
        if len(recent) >= self.limits.limit:
            self._restarts[name] = recent
            window = f"{self.limits.window_s:g} s"
            if self.limits.limit == 0:
                return GiveUp("restarts are off (NOD_RUN_RESTART_LIMIT=0)")
            times = "once" if len(recent) == 1 else f"{len(recent)} times"
            return GiveUp(f"it was restarted {times} within {window} already")
        delay = min(self.limits.first_delay_s * 2 ** len(recent), self.limits.longest_delay_s)
        self._restarts[name] = [*recent, now]
        return Restart(delay_s=delay, number=len(recent) + 1)
