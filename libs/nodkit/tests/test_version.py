"""The build version every reply carries (nodkit.version) is the installed
package's, so it can't drift from what was deployed."""

from nodkit.version import api_packages, build_version


def test_the_build_version_comes_from_the_package():
    assert build_version("claims").startswith("nod-claims/")
    assert build_version("claims") != "nod-claims/unknown"
    assert build_version("no-such-service") == "nod-no-such-service/unknown"


def test_the_api_is_named_by_its_package():
    names = ["nod.claims.v1.ClaimsService", "nod.claims.v1.VaultService"]
    assert api_packages(names) == "nod.claims.v1"
