"""Services installed from their wheels alone, the way each image installs
them (deploy/docker/install_service.py), and run from there: a virtualenv
outside the checkout, a working directory outside it, an environment that
names nothing in it. A module the wheel forgot fails here, never in a pod."""

import importlib.util
import pathlib
import signal
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from types import ModuleType

REPOSITORY = pathlib.Path(__file__).resolve().parents[1]
UV = pathlib.Path(sys.executable).parent / "uv"


def _installer() -> ModuleType:
    """deploy/docker/install_service.py, the images' own install step."""
    path = REPOSITORY / "deploy" / "docker" / "install_service.py"
    spec = importlib.util.spec_from_file_location("nod_install_service", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def base_python() -> str:
    """The interpreter under the checkout's .venv, not the .venv itself: the
    new virtualenv must see nothing the checkout installed."""
    return str(pathlib.Path(sysconfig.get_config_var("BINDIR")) / "python3")


@dataclass
class Installed:
    """One service's virtualenv, built from its wheels."""

    package: str
    venv: pathlib.Path
    wheels: list[pathlib.Path]

    def command(self, *words: str) -> list[str]:
        """A console script of the venv (`nod-claims serve`) by its path,
        as an image's ENTRYPOINT finds it on PATH."""
        script = self.venv / "bin" / words[0]
        if not script.exists():
            raise AssertionError(f"{self.package}'s wheel installs no {words[0]} script")
        return [str(script), *words[1:]]

    def env(self, settings: dict[str, str], home: pathlib.Path) -> dict[str, str]:
        """Only what an image sets, and the settings: nothing names the checkout."""
        return {
            "PATH": f"{self.venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            **settings,
        }


@dataclass
class WheelHouse:
    """One virtualenv per package for the whole session, and one wheel per
    workspace package shared by all of them (uv's cache does the rest)."""

    root: pathlib.Path
    installed: dict[str, Installed] = field(default_factory=dict)

    def install(self, package: str) -> Installed:
        if package not in self.installed:
            venv = self.root / package
            wheels = _installer().install(
                package,
                venv,
                uv=str(UV),
                wheels=self.root / "wheels",
                python=base_python(),
                compile_bytecode=True,
            )
            self.installed[package] = Installed(package, venv, wheels)
        return self.installed[package]


@dataclass
class Running:
    """A process started from an installed venv, its output in a file."""

    process: subprocess.Popen
    log_path: pathlib.Path

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self, timeout_s: float = 30.0) -> int:
        """SIGTERM, as the kubelet stops a container; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise
        return self.process.returncode


def run_once(
    command: list[str], env: dict[str, str], cwd: pathlib.Path, timeout_s: float = 120
) -> subprocess.CompletedProcess:
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout_s
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done


def start(
    command: list[str], env: dict[str, str], cwd: pathlib.Path, log_path: pathlib.Path
) -> Running:
    with log_path.open("ab") as log:
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
    return Running(process, log_path)


def outside_the_checkout(path: pathlib.Path) -> bool:
    return not path.resolve().is_relative_to(REPOSITORY.resolve())
