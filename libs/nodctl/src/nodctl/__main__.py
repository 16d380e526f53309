"""nodctl COMMAND ... (or python -m nodctl): the operator's CLI. See
docs/NODCTL.md; every command has --help."""

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Callable

import grpc
import pydantic
import sqlalchemy.exc

from nod_gateway.peers import ServiceCallFailed
from nod_gateway.resolutions import FOUND, NOTE_MAX_LENGTH
from nodctl import health, people, tasks, uncertain, vault
from nodctl.output import Failed
from nodctl.parts import Parts, parts
from nodctl.settings import NodctlSettings, load
from nodkit.settings import SettingFileError

DESCRIPTION = """\
The operator's CLI for nod. It reads the same NOD_* environment as the
services (their addresses, NOD_SERVICE_TOKENS or NOD_SERVICE_TOKEN, TLS,
NOD_DATABASE_URL for the gateway's people store) and calls them as the
`operator` caller. Beside `make run`, from the checkout, it needs no
settings: it takes make run's token from var/. See docs/NODCTL.md."""

EPILOG = "Exit codes: 0 done; 1 failed or found a problem (the message says which); 2 usage."


def _parser() -> argparse.ArgumentParser:
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser = argparse.ArgumentParser(
        prog="nodctl",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    commands.add_parser(
        "health",
        parents=[output],
        help="every service's health and version, and the gateway's",
        description="Asks each service's grpc.health.v1 and the gateway's /healthz, and shows"
        " the build that answered (x-nod-version). Exits 1 if any is not SERVING.",
    )
    commands.add_parser(
        "uncertain",
        parents=[output],
        help="every UNCERTAIN private entry, app action and payment",
        description="Lists every UNCERTAIN claim (private entry), app action execution and"
        " payment of every person in the gateway's people store, with person, task, how"
        " long it has been uncertain and what the person found if they checked it, oldest"
        " first. Exits 1 if a service could not list.",
    )

    task = commands.add_parser(
        "task",
        parents=[output],
        help="a task's whole history, as its web page shows it",
        description="A task's state and every line of its timeline, built as the task page"
        " builds it. Without --person, the task's owner is found among the people.",
    )
    task.add_argument("task_id", metavar="TASK_ID")
    task.add_argument("--person", help="the person whose task it is")

    resolve = commands.add_parser(
        "resolve",
        parents=[output],
        help="record what a person found about an UNCERTAIN step",
        description="Records, for the person, what they found when they checked an UNCERTAIN"
        " step, as the task page's buttons do: happened, did_not_happen, or try_again (it did"
        " not happen: the task makes a new request, never the old one again). The step stays"
        " UNCERTAIN; nothing is sent by this.",
    )
    resolve.add_argument("task_id", metavar="TASK_ID")
    resolve.add_argument("step", metavar="STEP", type=int, help="the step's number")
    resolve.add_argument("found", metavar="FOUND", choices=FOUND, help=" | ".join(FOUND))
    resolve.add_argument("--note", default="", help="what the person saw (optional)")
    resolve.add_argument("--person", help="the person whose task it is")

    _people_parser(commands, output)

    vault_parser = commands.add_parser(
        "vault",
        help="the vault's keys",
        description="The vault key's sealed values: the claims service's saved items and"
        " private entries, and the approvals service's app credentials.",
    )
    vault_commands = vault_parser.add_subparsers(dest="vault_command", required=True)
    reseal = vault_commands.add_parser(
        "reseal",
        parents=[output],
        help="re-seal every sealed row under the newest key",
        description="Re-seals every saved item and private entry (the claims service) and"
        " every connected app's credentials (the approvals service) under the newest key in"
        " NOD_VAULT_KEY (id:key,id:key, newest first), in committed batches, so an older key"
        " can then be taken out. Rows already under the newest key are skipped: a run cut"
        " short is finished by running it again, and a second run changes nothing. Exits 1"
        " if a row opens under no key the service has.",
    )
    reseal.add_argument(
        "--batch-size", type=int, default=100, help="rows per transaction (1-1000; default 100)"
    )
    reseal.add_argument("--progress", action="store_true", help="a line on stderr per batch")
    drop = vault_commands.add_parser(
        "drop-unreadable",
        parents=[output],
        help="drop what is sealed under vault keys that are lost for good",
        description="For keys that are lost for good (a service refused to start naming them):"
        " drops, once, what the services hold sealed under exactly those key ids, and says"
        " how many rows of each table and kind. Saved items (logins, cards) and pending"
        " private entries with such a value are deleted; an app account whose credentials"
        " are under one is disconnected (the row stays, its approvals keep their records);"
        " claims, approvals and their histories are kept. A key id NOD_VAULT_KEY lists is"
        " refused: what it sealed opens. Runs each service's own command (`nod-claims"
        " drop-unreadable`, then `nod-approvals drop-unreadable`), each in one transaction,"
        " with this NOD_* environment (NOD_DATABASE_URL, NOD_VAULT_KEY). Run twice, the"
        " second run drops nothing and says so.",
    )
    drop.add_argument(
        "--key", dest="key_ids", action="append", required=True, metavar="KEY_ID",
        help="a lost key's id, as the refusal named it (repeat for several)",
    )  # fmt: skip
    drop.add_argument(
        "--service", dest="services", action="append", choices=vault.SEALING_SERVICES,
        help="only this service (repeatable; default: both), e.g. where each service has"
        " its own NOD_DATABASE_URL",
    )  # fmt: skip
    return parser


def _people_parser(commands, output: argparse.ArgumentParser) -> None:
    people_parser = commands.add_parser(
        "people",
        help="who may sign in to the web page, and their sessions",
        description="The gateway's people store: who may sign in, and their sessions.",
    )
    people_commands = people_parser.add_subparsers(dest="people_command", required=True)
    people_commands.add_parser("list", parents=[output], help="everyone who may sign in")
    password_help = "read the password from stdin's first line instead of asking for it"
    add = people_commands.add_parser(
        "add",
        help="add a person (asks for their password)",
        description="Adds a person who may sign in. Asks for the password twice (or reads it"
        " with --password-stdin); never takes it on the command line.",
    )
    add.add_argument("name", metavar="NAME")
    add.add_argument("--password-stdin", action="store_true", help=password_help)
    reset = people_commands.add_parser(
        "reset-password",
        help="set a person's password (asks for it); ends their sessions",
        description="Sets a person's password, asked for as `add` does, and ends their sessions.",
    )
    reset.add_argument("name", metavar="NAME")
    reset.add_argument("--password-stdin", action="store_true", help=password_help)
    sessions = people_commands.add_parser(
        "sessions",
        parents=[output],
        help="a person's open sessions",
        description="A person's open sessions: id (the first digits of the token's SHA-256,"
        " never the token), when made, last seen and when it expires.",
    )
    sessions.add_argument("name", metavar="NAME")
    revoke = people_commands.add_parser(
        "revoke",
        help="end one session of a person, or all",
        description="Ends the session with this id (from `people sessions`), or with --all"
        " every session of the person: the next page they load asks them to sign in.",
    )
    revoke.add_argument("name", metavar="NAME")
    which = revoke.add_mutually_exclusive_group(required=True)
    which.add_argument("session_id", metavar="SESSION_ID", nargs="?")
    which.add_argument("--all", action="store_true", help="every session of the person")
    remove = people_commands.add_parser(
        "remove",
        parents=[output],
        help="remove a person: sessions, tasks, saved items, then the person",
        description="Ends the person's sessions, stops their tasks (Stop), deletes their saved"
        " vault items (as them), then removes them; says what was done. If a service fails"
        " midway the person is kept: run it again to finish.",
    )
    remove.add_argument("name", metavar="NAME")


def _command(args: argparse.Namespace) -> Callable[[Parts], Awaitable[int]]:
    as_json = getattr(args, "json", False)
    if args.command == "uncertain":
        return lambda p: uncertain.run(p, as_json=as_json)
    if args.command == "task":
        return lambda p: tasks.show(p, args.task_id, args.person, as_json=as_json)
    if args.command == "resolve":
        if len(args.note) > NOTE_MAX_LENGTH:
            raise Failed(f"--note: at most {NOTE_MAX_LENGTH} characters", code=2)
        return lambda p: tasks.resolve(
            p, args.task_id, args.step, args.found, args.note, args.person, as_json=as_json
        )
    if args.command == "vault":
        return lambda p: vault.reseal(p, args.batch_size, as_json=as_json, progress=args.progress)
    which = args.people_command
    if which == "list":
        return lambda p: people.listing(p, as_json=as_json)
    if which in ("add", "reset-password"):
        # Asked before anything is opened: a wrong second entry costs nothing.
        password = people.read_password(args.password_stdin)
        if which == "add":
            return lambda p: people.add(p, args.name, password)
        return lambda p: people.reset_password(p, args.name, password)
    if which == "sessions":
        return lambda p: people.sessions(p, args.name, as_json=as_json)
    if which == "revoke":
        return lambda p: people.revoke(p, args.name, None if args.all else args.session_id)
    return lambda p: people.remove(p, args.name, as_json=as_json)


async def _run(settings: NodctlSettings, args: argparse.Namespace) -> int:
    if args.command == "health":
        return await health.run(settings, as_json=args.json)
    if args.command == "vault" and args.vault_command == "drop-unreadable":
        services = args.services or vault.SEALING_SERVICES
        ordered = [service for service in vault.SEALING_SERVICES if service in services]
        return await vault.drop_unreadable(settings, args.key_ids, ordered, as_json=args.json)
    command = _command(args)
    async with parts(settings) as made:
        return await command(made)


def explain(failure: ServiceCallFailed) -> str:
    error = failure.error
    text = f"{failure.label} answered {error.code.name}"
    if error.message:
        text += f": {error.message}"
    if error.reason:
        text += f" ({error.reason}{', field ' + error.field if error.field else ''})"
    if failure.changes and error.may_have_happened:
        text += "; the change may have happened: check before trying again"
    elif error.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        text += "; is it running, and are NOD_*_ADDR right?"
    return text


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        settings = load()
        return asyncio.run(_run(settings, args))
    except Failed as failed:
        print(f"nodctl: {failed.message}", file=sys.stderr)
        return failed.code
    except ServiceCallFailed as failure:
        print(f"nodctl: {explain(failure)}", file=sys.stderr)
        return 1
    except pydantic.ValidationError as error:
        # The messages only: pydantic's full text repeats the values given.
        problems = "; ".join(problem["msg"] for problem in error.errors())
        print(f"nodctl: the NOD_* settings are not usable: {problems}", file=sys.stderr)
        return 1
    except SettingFileError as error:
        print(f"nodctl: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # Read into `head` and cut short: as a shell tool ends on SIGPIPE,
        # quietly; what is left unwritten must not reach the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError, OSError) as error:
        print(
            "nodctl: the gateway's database (NOD_DATABASE_URL) did not answer:"
            f" {_first_line(error)}",
            file=sys.stderr,
        )
        return 1
    except sqlalchemy.exc.ProgrammingError as error:
        print(
            "nodctl: the gateway's database is not as expected (migrated? `nod-gateway"
            f" migrate`): {_first_line(error)}",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("nodctl: interrupted", file=sys.stderr)
        return 130


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
