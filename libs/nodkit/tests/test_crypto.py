"""Sealed values open only for their owner, row and field, under a listed key."""

import pytest

from nodkit.crypto import Sealer, SealError, key_id_of, new_key_setting, parse_key_ring


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


def test_the_ring_names_its_key_ids_newest_first_and_a_token_names_its_own():
    bare = new_key_setting()
    ring = Sealer(f"k-new:{new_key_setting()},{bare}")
    derived = parse_key_ring(bare)[0][0]
    assert ring.key_ids == ("k-new", derived)
    assert key_id_of(ring.seal("secret", "ada")) == "k-new"
    assert key_id_of(Sealer(bare).seal("secret", "ada")) == derived


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


def test_resealed_fields_open_under_the_newest_key_alone():
    old, new = new_key_setting(), new_key_setting()
    sealed = Sealer(f"k-old:{old}").seal_fields({"password": "hunter2"}, "ada", "row-1")
    rotating = Sealer(f"k-new:{new},k-old:{old}")
    assert not rotating.fields_current(sealed)
    resealed = rotating.reseal_fields(sealed, "ada", "row-1")
    assert rotating.fields_current(resealed) and rotating.current_key_id == "k-new"
    assert Sealer(f"k-new:{new}").open_fields(resealed, "ada", "row-1") == {"password": "hunter2"}
    # Still bound to its owner and row.
    with pytest.raises(SealError):
        rotating.reseal_fields(sealed, "bob", "row-1")


def test_a_keyed_digest_matches_only_the_same_value_and_context():
    sealer = Sealer(new_key_setting())
    token = sealer.digest("492817", "ada", "vault_requests", "req-1")
    assert "492817" not in token
    assert sealer.digest_matches(token, "492817", "ada", "vault_requests", "req-1")
    assert sealer.digest("492817", "ada", "vault_requests", "req-1") == token
    for value, context in [
        ("492818", ("ada", "vault_requests", "req-1")),
        ("492817", ("bob", "vault_requests", "req-1")),
        ("492817", ("ada", "vault_requests", "req-2")),
        ("", ("ada", "vault_requests", "req-1", "492817")),
    ]:
        assert not sealer.digest_matches(token, value, *context)


def test_a_keyed_digest_needs_the_key():
    # Without the key, trying every six-digit code finds nothing: another
    # key's digest of the same value differs, and it can't be checked.
    value, context = "492817", ("ada", "vault_requests", "req-1")
    token = Sealer(new_key_setting()).digest(value, *context)
    other = Sealer(new_key_setting())
    assert other.digest(value, *context) != token
    assert not other.digest_matches(token, value, *context)


def test_a_digest_is_checked_under_the_key_it_names_after_rotation():
    old = new_key_setting()
    token = Sealer(f"k-old:{old}").digest("secret", "ada")
    rotated = Sealer(f"k-new:{new_key_setting()},k-old:{old}")
    assert rotated.digest_matches(token, "secret", "ada")
    assert rotated.digest("secret", "ada").startswith("k-new:")
    assert not Sealer(f"k-new:{new_key_setting()}").digest_matches(token, "secret", "ada")


def test_digests_under_every_listed_key_find_a_value_digested_before_rotation():
    old = new_key_setting()
    before = Sealer(f"k-old:{old}").digests("secret", "ada")
    rotated = Sealer(f"k-new:{new_key_setting()},k-old:{old}")
    after = rotated.digests("secret", "ada")
    assert len(before) == 1 and len(after) == 2
    assert after[0] == rotated.digest("secret", "ada") and after[1] == before[0]
    assert not any("secret" in token for token in after)
