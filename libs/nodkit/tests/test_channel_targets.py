"""What an address setting names, as a caller's channel reads it: one
replica, every address of a name, or a list of replicas; a list that names
hosts it can't resolve one by one is refused with the address quoted. The
database URL naming several hosts reaches psycopg with all of them."""

import pytest

from nodkit.client import channel_target, names_replicas
from nodkit.db import libpq_url


@pytest.mark.parametrize(
    ("address", "target", "spread"),
    [
        ("claims:50051", "claims:50051", False),
        ("127.0.0.1:50051", "127.0.0.1:50051", False),
        ("dns:///nod-claims:50051", "dns:///nod-claims:50051", True),
        ("10.0.0.5:50051, 10.0.0.6:50051", "ipv4:10.0.0.5:50051,10.0.0.6:50051", True),
        ("[::1]:50051,[::2]:50051", "ipv6:[::1]:50051,[::2]:50051", True),
    ],
)
def test_an_address_names_one_replica_or_spreads_calls(address, target, spread):
    assert channel_target(address) == target
    assert names_replicas(address) is spread


def test_a_list_of_names_is_refused_with_a_way_out():
    with pytest.raises(ValueError) as refused:
        channel_target("claims-a:50051,10.0.0.6:50051")
    assert "claims-a:50051 is not one" in str(refused.value)
    assert "dns:///NAME:PORT" in str(refused.value)


def test_a_multi_host_database_url_names_every_host_to_psycopg():
    url = (
        "postgresql+psycopg://nod@/nod?host=pg-a:5432&host=pg-b:5433"
        "&target_session_attrs=read-write"
    )
    conninfo = dict(part.split("=", 1) for part in libpq_url(url).split())
    assert conninfo["host"] == "pg-a,pg-b" and conninfo["port"] == "5432,5433"
    assert conninfo["target_session_attrs"] == "read-write" and conninfo["dbname"] == "nod"
