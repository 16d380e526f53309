"""Any setting may come from a file named by NOD_<NAME>_FILE (as Kubernetes
mounts a Secret): the file wins over the variable, its trailing newline goes,
and a file that can't be read is an error naming the variable."""

import pathlib

import pytest
from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from nodkit.settings import ServiceSettings, SettingFileError, shared


class ExampleSettings(ServiceSettings):
    """A service's settings as each service writes them: a shared secret, a
    secret of its own under its prefix, and a setting that is a path."""

    model_config = SettingsConfigDict(env_prefix="NOD_EXAMPLE_")

    vault_key: SecretStr = Field(validation_alias=shared("vault_key"))
    api_key: SecretStr | None = None
    ca_file: str | None = None


@pytest.fixture
def env(monkeypatch):
    for name in ("NOD_SERVICE_TOKEN", "NOD_SERVICE_TOKENS", "NOD_VAULT_KEY", "NOD_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(f"{name}_FILE", raising=False)
    monkeypatch.setenv("NOD_SERVICE_TOKEN", "t" * 32)
    return monkeypatch


def secret_file(tmp_path: pathlib.Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_shared_secret_comes_from_its_file_without_the_trailing_newline(env, tmp_path):
    env.setenv("NOD_VAULT_KEY_FILE", secret_file(tmp_path, "vault-key", "k1:abc==\n"))
    assert ExampleSettings().vault_key.get_secret_value() == "k1:abc=="


def test_a_prefixed_secret_comes_from_its_file(env, tmp_path):
    env.setenv("NOD_VAULT_KEY", "key")
    env.setenv("NOD_EXAMPLE_API_KEY_FILE", secret_file(tmp_path, "api-key", "sk-1 2\r\n"))
    api_key = ExampleSettings().api_key
    assert api_key is not None
    assert api_key.get_secret_value() == "sk-1 2"


def test_the_file_wins_over_the_variable(env, tmp_path):
    env.setenv("NOD_VAULT_KEY", "from-the-variable")
    env.setenv("NOD_VAULT_KEY_FILE", secret_file(tmp_path, "vault-key", "from-the-file\n"))
    assert ExampleSettings().vault_key.get_secret_value() == "from-the-file"


def test_service_tokens_from_a_file_name_each_caller(env, tmp_path):
    env.delenv("NOD_SERVICE_TOKEN")
    env.setenv("NOD_VAULT_KEY", "key")
    tokens = "browser:" + "b" * 32 + ",tasks:" + "c" * 32 + "\n"
    env.setenv("NOD_SERVICE_TOKENS_FILE", secret_file(tmp_path, "tokens", tokens))
    settings = ExampleSettings()
    assert settings.own_token("browser").get_secret_value() == "b" * 32
    assert settings.own_token("tasks").get_secret_value() == "c" * 32


def test_a_database_url_with_a_password_comes_from_a_file(env, tmp_path):
    url = "postgresql+psycopg://nod:s3cret@db:5432/nod"
    env.setenv("NOD_VAULT_KEY", "key")
    env.setenv("NOD_DATABASE_URL_FILE", secret_file(tmp_path, "database-url", url + "\n"))
    assert ExampleSettings().database_url == url


def test_a_missing_file_is_an_error_naming_the_variable(env, tmp_path):
    missing = tmp_path / "nowhere" / "vault-key"
    env.setenv("NOD_VAULT_KEY_FILE", str(missing))
    with pytest.raises(SettingFileError) as raised:
        ExampleSettings()
    assert "NOD_VAULT_KEY_FILE" in str(raised.value)
    assert str(missing) in str(raised.value)


def test_an_empty_file_is_an_error_naming_the_variable(env, tmp_path):
    env.setenv("NOD_VAULT_KEY_FILE", secret_file(tmp_path, "vault-key", "\n"))
    with pytest.raises(SettingFileError, match="NOD_VAULT_KEY_FILE"):
        ExampleSettings()


def test_a_setting_that_is_itself_a_path_is_left_alone(env, tmp_path):
    """NOD_EXAMPLE_CA_FILE is the `ca_file` setting, not the file of a
    setting named `ca`: its value is the path, and the file isn't read."""
    env.setenv("NOD_VAULT_KEY", "key")
    env.setenv("NOD_EXAMPLE_CA_FILE", str(tmp_path / "not-read.pem"))
    env.setenv("NOD_UNRELATED_FILE", str(tmp_path / "not-read-either"))
    assert ExampleSettings().ca_file == str(tmp_path / "not-read.pem")


def test_a_secret_read_from_a_file_is_not_shown(env, tmp_path):
    env.setenv("NOD_VAULT_KEY_FILE", secret_file(tmp_path, "vault-key", "hunter2-key\n"))
    settings = ExampleSettings()
    assert "hunter2-key" not in repr(settings)
    assert "hunter2-key" not in str(settings.model_dump())


def test_a_settings_problem_naming_its_variables_keeps_their_names():
    """A validator's message that starts with the variable it is about
    reads as it was written; pydantic's own messages become a clause."""
    from pydantic import ValidationError, model_validator
    from pydantic_settings import BaseSettings

    from nodkit.startup import settings_problem

    class Limits(BaseSettings):
        keep_s: float = 1.0

        @model_validator(mode="after")
        def _longer(self):
            raise ValueError("NOD_KEEP_S must be at least a minute")

    try:
        Limits()
    except ValidationError as error:
        line = settings_problem(error, Limits)
    assert "NOD_KEEP_S must be at least a minute" in line
    assert "nOD_" not in line
