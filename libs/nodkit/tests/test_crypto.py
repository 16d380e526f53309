"""Sealed values open only for their owner, row and field, under a listed key."""

import pytest

from nodkit.crypto import Sealer, SealError, new_key_setting, parse_key_ring


def test_a_sealed_value_opens_only_where_it_was_sealed():
    sealer = Sealer(new_key_setting())
    token = sealer.seal("hunter2", "ada", "vault_items", "row-1", "password")
    assert "hunter2" not in token
    assert sealer.open(token, "ada", "vault_items", "row-1", "password") == "hunter2"
    for context in [
        ("bob", "vault_items", "row-1", "password"),
        ("ada", "private_entries", "row-1", "password"),
        ("ada", "vault_items", "row-2", "password"),
        ("ada", "vault_items", "row-1", "username"),
    ]:
        with pytest.raises(SealError):
            sealer.open(token, *context)


def test_sealing_twice_gives_different_ciphertexts():
    sealer = Sealer(new_key_setting())
    assert sealer.seal("x", "a") != sealer.seal("x", "a")


def test_keys_rotate_new_first_old_still_opens():
    old = new_key_setting()
    token = Sealer(f"k-old:{old}").seal("secret", "ada")
    rotated = Sealer(f"k-new:{new_key_setting()},k-old:{old}")
    assert rotated.open(token, "ada") == "secret"
    assert rotated.seal("secret", "ada").startswith("k-new:")
    with pytest.raises(SealError):
        Sealer(f"k-new:{new_key_setting()}").open(token, "ada")


def test_bad_key_settings_are_refused():
    for setting in ["", "not-base64!!", "a2V5"]:
        with pytest.raises(ValueError):
            parse_key_ring(setting)


def test_tampering_is_detected():
    sealer = Sealer(new_key_setting())
    token = sealer.seal("secret", "ada")
    key_id, _, body = token.partition(":")
    flipped = body[:-4] + ("AAAA" if body[-4:] != "AAAA" else "BBBB")
    with pytest.raises(SealError):
        sealer.open(f"{key_id}:{flipped}", "ada")
