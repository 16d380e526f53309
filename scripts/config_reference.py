"""docs/CONFIGURATION.md, generated from the settings classes themselves.

    python scripts/config_reference.py          # writes it (`make config-docs`)
    python scripts/config_reference.py --check  # fails, saying what differs (`make lint`)

Every settings class is found, not listed: each services/*/src/<package>/
settings.py, gateway/src/<package>/settings.py and any settings.py under
demo/src is imported and its pydantic-settings classes read. So a setting
added anywhere shows up here (or fails the check until `make config-docs` is
run), and one without a Field(description=...) fails both, naming it. The
variable names come from pydantic-settings' own reading of each field (its
aliases and the class's prefix), so the page says what the code reads.

A secret's default (a SecretStr field, or any field named like a token, key
or password) is never printed: the page says only whether one is set.
"""

import argparse
import difflib
import importlib
import pathlib
import re
import sys
import types
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import annotated_types
from pydantic import AfterValidator, SecretBytes, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, PydanticBaseSettingsSource

from nodkit.settings import ServiceSettings, SettingFilesSource

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "CONFIGURATION.md"
# (where settings.py files are looked for, how deep) in the order the page shows them.
SEARCHED = (("services/*/src/*", False), ("gateway/src/*", False), ("demo/src", True))
SECRET_NAME = re.compile(r"(token|key|password|secret)", re.IGNORECASE)
VARIABLE = re.compile(r"`(NOD_[A-Z0-9_]+)`")


class MissingDescription(Exception):
    """Settings without a Field(description=...); each is named."""


@dataclass(frozen=True)
class Setting:
    """One field as the page shows it."""

    field: str
    variable: str
    # Other names the same field is read under (pydantic-settings also tries
    # the prefixed field name when a shared alias is unset).
    also: tuple[str, ...]
    default: str
    kind: str
    description: str


@dataclass(frozen=True)
class Component:
    """One process's settings class: a service, the gateway, the demo."""

    name: str
    source: str  # its settings.py, relative to the repository
    cls: type[BaseSettings]

    @property
    def prefix(self) -> str:
        return str(self.cls.model_config.get("env_prefix", "")).upper()


# -- finding the classes ------------------------------------------------------


def settings_files(root: pathlib.Path) -> Iterator[tuple[pathlib.Path, pathlib.Path]]:
    """(the src folder its module is imported from, settings.py)."""
    for pattern, deep in SEARCHED:
        for folder in sorted(root.glob(pattern)):
            if not folder.is_dir():
                continue
            found = folder.rglob("settings.py") if deep else [folder / "settings.py"]
            for path in sorted(found):
                if path.is_file():
                    src = folder if deep else folder.parent
                    yield src, path


def components(root: pathlib.Path = ROOT) -> list[Component]:
    found = []
    for src, path in settings_files(root):
        relative = path.relative_to(src).with_suffix("")
        module = importlib.import_module(".".join(relative.parts))
        package = relative.parts[0]
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseSettings)
                and value.__module__ == module.__name__
            ):
                name = package.removeprefix("nod_")
                found.append(Component(name, str(path.relative_to(root)), value))
    return found


# -- reading one field --------------------------------------------------------


def reads_files(cls: type[BaseSettings]) -> bool:
    """Whether the class reads NOD_<NAME>_FILE: asked of its own sources."""
    placeholder = typing.cast(PydanticBaseSettingsSource, None)
    sources = cls.settings_customise_sources(
        cls, placeholder, placeholder, placeholder, placeholder
    )
    return any(isinstance(source, SettingFilesSource) for source in sources)


def env_names(cls: type[BaseSettings], name: str, field: FieldInfo) -> list[str]:
    """The variables pydantic-settings reads the field from, first one first."""
    source = EnvSettingsSource(cls)
    names = [env_name.upper() for _, env_name, _ in source._extract_field_info(field, name)]
    return list(dict.fromkeys(names))


def _flatten(annotation: object) -> Iterator[object]:
    yield annotation
    for arg in typing.get_args(annotation):
        yield from _flatten(arg)


def is_secret(name: str, field: FieldInfo) -> bool:
    """A secret type, or text in a field named like a secret (a token typed
    as a plain string by mistake is still not printed)."""
    if any(a in (SecretStr, SecretBytes) for a in _flatten(field.annotation)):
        return True
    return isinstance(field.default, str | bytes) and bool(SECRET_NAME.search(name))


def _number(value: float) -> str:
    if isinstance(value, int):
        return str(value)
    shown = f"{value:g}"
    return shown if "e" not in shown and float(shown) == value else repr(value)


def render_default(name: str, field: FieldInfo) -> str:
    if field.default_factory is not None:
        factory = field.default_factory
        module = getattr(factory, "__module__", "").lstrip("_")
        return f"`{module}.{getattr(factory, '__qualname__', factory)}()` at start"
    if field.default is PydanticUndefined:
        return "required"
    value = field.default
    if value is None:
        return "unset"
    if is_secret(name, field) and value not in ("", ()):
        return "set (not shown)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, int | float):
        return f"`{_number(value)}`"
    if value in ("", ()):
        return "empty"
    if isinstance(value, tuple | list):
        return "`" + ",".join(str(v) for v in value) + "`"
    return f"`{value}`"


def _type_name(annotation: object) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        kept = [a for a in args if a is not type(None)]
        shown = " or ".join(_type_name(a) for a in kept)
        return f"{shown}, optional" if len(kept) < len(args) else shown
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if origin in (tuple, list, frozenset, set):
        return "comma-separated list"
    names = {
        str: "string",
        int: "integer",
        float: "number",
        bool: "`true` or `false`",
        SecretStr: "secret string",
        SecretBytes: "secret bytes",
    }
    if isinstance(annotation, type):
        return names.get(annotation, annotation.__name__)
    return str(annotation)


def _constraint(rule: object) -> str | None:
    if rule is NoDecode or isinstance(rule, NoDecode):
        return None  # how the value is parsed, said by the type
    if isinstance(rule, AfterValidator):
        return None  # a check of the whole value, said by the description
    known = {
        annotated_types.Gt: ("gt", "> {}"),
        annotated_types.Ge: ("ge", ">= {}"),
        annotated_types.Lt: ("lt", "< {}"),
        annotated_types.Le: ("le", "<= {}"),
        annotated_types.MultipleOf: ("multiple_of", "a multiple of {}"),
        annotated_types.MinLen: ("min_length", "at least {} long"),
        annotated_types.MaxLen: ("max_length", "at most {} long"),
    }
    for kind, (attribute, text) in known.items():
        if isinstance(rule, kind):
            return text.format(getattr(rule, attribute))
    return repr(rule)


def render_kind(field: FieldInfo) -> str:
    rules = [shown for rule in field.metadata if (shown := _constraint(rule))]
    return ", ".join([_type_name(field.annotation), *rules])


def description_of(cls: type[BaseSettings], name: str) -> str | None:
    """The field's description, or the one it overrides: a subclass that
    only changes a default (`listen: str = "..."`) keeps the base's words."""
    for klass in cls.__mro__:
        fields = getattr(klass, "model_fields", {})
        if name in fields and fields[name].description:
            return " ".join(fields[name].description.split())
    return None


def read(component: Component) -> list[Setting]:
    settings, missing = [], []
    for name, field in component.cls.model_fields.items():
        names = env_names(component.cls, name, field)
        description = description_of(component.cls, name)
        if not description:
            missing.append(f"{names[0]} ({component.source}: {component.cls.__name__}.{name})")
            continue
        settings.append(
            Setting(
                field=name,
                variable=names[0],
                also=tuple(names[1:]),
                default=render_default(name, field),
                kind=render_kind(field),
                description=description,
            )
        )
    if missing:
        raise MissingDescription(missing)
    return settings


# -- the page -----------------------------------------------------------------

INTRO = """\
# Configuration reference

<!-- Generated by scripts/config_reference.py from the settings classes; do
not edit. `make config-docs` writes it again, `make lint` fails while it is
stale. A setting's words are its Field(description=...). -->

Every service, the gateway and the demo take their configuration from environment variables,
read once at start by one pydantic-settings class per process
(`libs/nodkit/src/nodkit/settings.py` and each `settings.py` named below); nothing else reads
the environment. This page is generated from those classes, so it lists every variable each of
them reads.

How the names are made:

- **Shared settings** have one name in every process: `NOD_<NAME>` (`NOD_DATABASE_URL`,
  `NOD_SERVICE_TOKENS`). So are the services' addresses, named after the service reached
  (`NOD_CLAIMS_ADDR` is read by every caller of the claims service).
- **A process's own settings** carry its prefix: `NOD_<SERVICE>_<NAME>` (`NOD_CLAIMS_LEASE_TTL_S`,
  `NOD_GATEWAY_SESSION_TTL_S`), so one environment shared by every process (`make run`, one
  ConfigMap) can't hand one service's setting to another.
{also_rule}- Names are not case-sensitive. A `NOD_` variable no class reads is ignored without a
  word: check a name against this page.
- **From a file**: any setting `NOD_<NAME>` may instead be read from the file that
  `NOD_<NAME>_FILE` names (the "file" column), the way Kubernetes mounts a Secret. When both are
  set the file wins; its trailing newline is dropped; a missing, unreadable or empty file stops
  the process with an error naming the variable. A setting whose own name ends in `_FILE` (a
  path, such as `NOD_TLS_CA_FILE`) is read from a file as `NOD_TLS_CA_FILE_FILE`.
- Values: `_S` settings are seconds and `_MS` milliseconds; a number may have decimals, an
  integer may not; booleans are `true` or `false`; lists are comma-separated. A value outside
  its constraints (the "type" column) stops the process at start with an error naming it.
- Secrets (tokens, keys, passwords) are never shown here, defaults included: the page says only
  whether one is set.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(settings: Iterable[Setting], from_file: bool) -> list[str]:
    lines = [
        "| variable | default | type | file | what it does |",
        "|---|---|---|---|---|",
    ]
    for s in settings:
        file = f"`{s.variable}_FILE`" if from_file else "no"
        lines.append(
            f"| `{s.variable}` | {_cell(s.default)} | {_cell(s.kind)} | {file}"
            f" | {_cell(s.description)} |"
        )
    return lines


def _same(shared: Setting | None, own: Setting) -> bool:
    """Whether a process reads the field just as the shared table says."""
    if shared is None:
        return False
    fields = ("variable", "default", "kind", "description")
    return all(getattr(shared, f) == getattr(own, f) for f in fields)


def render(found: list[Component]) -> str:
    """The whole page; raises MissingDescription naming every field without one."""
    base = [f for f in found if issubclass(f.cls, ServiceSettings)]
    read_all: dict[Component, list[Setting]] = {}
    missing: list[str] = []
    shared_component = Component("shared", "libs/nodkit/src/nodkit/settings.py", ServiceSettings)
    for component in [shared_component, *found]:
        try:
            read_all[component] = read(component)
        except MissingDescription as error:
            missing.extend(error.args[0])
    if missing:
        raise MissingDescription(sorted(set(missing)))

    shared_settings = read_all[shared_component]
    # A shared field keeps its name whatever the prefix (an alias); one named
    # by the prefix (`listen`) is each service's own and shown with it.
    by_field = {s.field: s for s in shared_settings}
    shared = [
        s
        for s in shared_settings
        if ServiceSettings.model_fields[s.field].validation_alias is not None
    ]
    shared_names = {s.variable for s in shared}
    also_rule = ""
    if any(s.also for c in found for s in read_all[c] if s.variable in shared_names):
        also_rule = (
            "- A shared setting is also read under a process's prefix\n"
            "  (`NOD_CLAIMS_DB_POOL_SIZE`) when the shared name is unset: pydantic-settings does\n"
            "  this for every aliased field. Use the shared name, as the manifests and\n"
            "  `make run` do.\n"
        )
    lines = [INTRO.format(also_rule=also_rule)]
    lines += [
        "## Shared by every service and the gateway",
        "",
        f"`ServiceSettings` in `{shared_component.source}`; each process below reads all of"
        " these, under these names, unless its own table gives one of them another default.",
        "",
        *table(shared, from_file=reads_files(ServiceSettings)),
        "",
    ]
    for component in found:
        settings = read_all[component]
        if component in base:
            # Only what differs from the shared table: its own settings, and
            # shared ones it names or defaults differently (its `listen`).
            settings = [s for s in settings if not _same(by_field.get(s.field), s)]
        lines += [
            f"## {component.name} (`{component.prefix}`)",
            "",
            f"`{component.cls.__name__}` in `{component.source}`"
            + (": the shared settings above, and" if component in base else ":"),
            "",
            *table(settings, from_file=reads_files(component.cls)),
            "",
        ]
    if not any(c.source.startswith("demo/") for c in found):
        lines += [
            "## The demo",
            "",
            "The demo shop and the demo app (`demo/`) read no environment variables: `make run`"
            " gives them command-line options. `make run` itself reads a few `NOD_RUN_*`"
            " variables of its own (`scripts/run.py`, `scripts/nodrun/`), and the tests"
            " `NOD_TEST_*`; no service reads those.",
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


# -- write or check -----------------------------------------------------------


def differences(written: str, generated: str) -> list[str]:
    """What differs, for a person: variables only on one side, then the lines."""
    told = set(VARIABLE.findall(written))
    read_now = set(VARIABLE.findall(generated))
    said = [f"read by the code, missing from the page: {v}" for v in sorted(read_now - told)]
    said += [f"on the page, read by no code: {v}" for v in sorted(told - read_now)]
    diff = difflib.unified_diff(
        written.splitlines(),
        generated.splitlines(),
        "docs/CONFIGURATION.md (committed)",
        "docs/CONFIGURATION.md (from the settings classes)",
        lineterm="",
    )
    return [*said, *diff]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="config_reference.py", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="fail, saying what differs, if the page is stale"
    )
    parser.add_argument("--output", type=pathlib.Path, default=OUTPUT)
    args = parser.parse_args(argv)
    try:
        generated = render(components())
    except MissingDescription as error:
        for name in error.args[0]:
            print(f"config reference: no Field(description=...) for {name}", file=sys.stderr)
        return 1
    if not args.check:
        args.output.write_text(generated)
        print(f"config reference: wrote {args.output}")
        return 0
    written = args.output.read_text() if args.output.exists() else ""
    if written == generated:
        print("config reference: docs/CONFIGURATION.md matches the settings classes")
        return 0
    print(
        "config reference: docs/CONFIGURATION.md is stale; `make config-docs` writes it again",
        file=sys.stderr,
    )
    for line in differences(written, generated):
        print(line, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
