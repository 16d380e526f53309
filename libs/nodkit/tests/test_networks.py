"""The one rule for where nod may connect: public addresses, what the
operator allows besides, and never nod's own."""

import ipaddress

import pytest

from nodkit.networks import Refusal, parse_networks, refusal

ALLOWED = parse_networks("127.0.0.2/31,127.0.0.4/30,127.0.0.8/29,127.0.0.16/28")
OWN = {ipaddress.ip_address("127.0.0.1")}


@pytest.mark.parametrize(
    ("address", "rule"),
    [
        ("93.184.216.34", None),
        ("2606:2800:220:1::1", None),
        ("127.0.0.1", Refusal.LOOPBACK),
        ("::1", Refusal.LOOPBACK),
        ("169.254.169.254", Refusal.LINK_LOCAL),
        ("fe80::1", Refusal.LINK_LOCAL),
        ("10.1.2.3", Refusal.PRIVATE),
        ("172.16.0.1", Refusal.PRIVATE),
        ("192.168.1.1", Refusal.PRIVATE),
        ("fd00::1", Refusal.PRIVATE),
        ("100.64.0.1", Refusal.SPECIAL),  # shared address space (CGNAT), a cluster's inside
        ("0.0.0.0", Refusal.UNSPECIFIED),
        ("224.0.0.1", Refusal.MULTICAST),
        ("::ffff:127.0.0.1", Refusal.LOOPBACK),  # another spelling of loopback
        ("64:ff9b::a9fe:a9fe", Refusal.LINK_LOCAL),  # NAT64 of 169.254.169.254
    ],
)
def test_only_public_addresses_by_default(address, rule):
    assert refusal(ipaddress.ip_address(address), ()) == rule


def test_allowed_networks_open_exactly_themselves():
    assert refusal(ipaddress.ip_address("127.0.0.2"), ALLOWED) is None
    assert refusal(ipaddress.ip_address("127.0.0.31"), ALLOWED) is None
    assert refusal(ipaddress.ip_address("127.0.0.32"), ALLOWED) == Refusal.LOOPBACK
    assert refusal(ipaddress.ip_address("127.0.0.1"), ALLOWED) == Refusal.LOOPBACK


def test_own_and_unspecified_addresses_stay_refused_inside_an_allowed_network():
    everything = parse_networks("0.0.0.0/0,::/0")
    assert refusal(ipaddress.ip_address("127.0.0.1"), everything, OWN) == Refusal.OWN
    assert refusal(ipaddress.ip_address("::ffff:127.0.0.1"), everything, OWN) == Refusal.OWN
    assert refusal(ipaddress.ip_address("0.0.0.0"), everything, OWN) == Refusal.UNSPECIFIED
    assert refusal(ipaddress.ip_address("127.0.0.2"), everything, OWN) is None


def test_a_refusal_reads_as_words_and_counts_by_a_short_reason():
    assert f"{Refusal.LINK_LOCAL}" == "a link-local address"
    assert Refusal.LINK_LOCAL.reason == "link_local"


def test_networks_parse_from_text_and_host_bits_are_a_mistake():
    assert [str(n) for n in parse_networks(" 127.0.0.2/31 , ::1/128,")] == [
        "127.0.0.2/31",
        "::1/128",
    ]
    with pytest.raises(ValueError, match=r"10\.0\.0\.1/8"):
        parse_networks("10.0.0.1/8")
