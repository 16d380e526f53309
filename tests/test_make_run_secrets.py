"""`make run` says, one line each, what it made anew under var/ (a vault
key, service tokens, the demo person's web password), and nothing about
what was already there: a var/ lost while the database was kept is then
seen at once, not first as sealed values that no longer open."""

import stat

from scripts import run
from scripts.nodrun import secrets as local_secrets


def test_each_file_made_anew_is_said_once_and_kept_files_are_not(tmp_path):
    first = local_secrets.ensure(tmp_path)
    assert first.made == [
        f"nod: made a new vault key in {tmp_path / 'vault.key'}: nothing sealed under an"
        " earlier key opens with it",
        f"nod: made new service tokens in {tmp_path / 'service-token'} and"
        f" {tmp_path / 'service-tokens'}",
    ]
    for name in ("vault.key", "service-token", "service-tokens"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600
    assert set(first.service_tokens) == set(local_secrets.CALLERS)

    again = local_secrets.ensure(tmp_path)
    assert again.made == []
    assert (again.vault_key, again.service_token) == (first.vault_key, first.service_token)
    assert again.service_tokens == first.service_tokens

    # The vault key alone lost: only it is new, and only it is said.
    (tmp_path / "vault.key").unlink()
    third = local_secrets.ensure(tmp_path)
    assert [line.split(" in ")[0] for line in third.made] == ["nod: made a new vault key"]
    assert third.vault_key != first.vault_key
    assert third.service_tokens == first.service_tokens


def test_a_vault_key_from_the_environment_is_neither_made_nor_said(tmp_path):
    given = local_secrets.ensure(tmp_path, vault_key_given=True)
    assert given.vault_key is None and not (tmp_path / "vault.key").exists()
    assert not [line for line in given.made if "vault key" in line]


def test_a_new_web_password_is_said_and_a_kept_one_is_not(tmp_path, monkeypatch, capsys):
    password_file = tmp_path / "web-password"

    def add_person(env, argv):  # what `nod-gateway add-person` does with the file
        if not password_file.exists():
            password_file.write_text("a new password for ada")

    monkeypatch.setattr(run, "VAR", tmp_path)
    monkeypatch.setattr(run, "run_step", add_person)
    run.prepare({})
    assert capsys.readouterr().out == (f"nod: made a new web password for ada in {password_file}\n")
    run.prepare({})
    assert capsys.readouterr().out == ""
