"""The small guards of issue 19, as functions: CSV cells, names, client addresses, buckets."""

from __future__ import annotations

import unicodedata

import pytest

from app.api.limits import Buckets, client_key
from app.api.scoresheets import inert, to_csv
from app.api.site import host_allowed, origin_allowed, site_url
from app.config import Settings
from app.games.names import clean_name, name_taken
from app.games.seam import RuleError


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=1+1", "'=1+1"),
        ("x;=1+1", "x;'=1+1"),
        ("a,-2+3", "a,'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("Ann-Marie", "Ann-Marie"),
        ("Bob", "Bob"),
        (3, "3"),
        (-1.5, "-1.5"),
        (None, ""),
    ],
)
def test_csv_cells_never_start_a_formula(cell: object, written: str) -> None:
    assert inert(cell) == written


def test_csv_quotes_a_neutralised_cell_that_holds_a_comma() -> None:
    assert to_csv([["a,=1"]]) == '"a,\'=1"\r\n'


def test_names_are_compared_after_nfkc_and_look_alikes() -> None:
    assert name_taken("Воb", ["Bob"])  # Cyrillic В, о
    assert name_taken("Ｂｏｂ", ["bob"])  # full-width
    assert name_taken("ΑΝΝ", ["ann"])  # Greek capitals
    assert not name_taken("Bób", ["Bob"]) and not name_taken("Ann", ["Bob"])


def test_a_name_stacks_a_bounded_number_of_marks() -> None:
    assert clean_name(unicodedata.normalize("NFD", "Nguyễn")) == unicodedata.normalize(
        "NFD", "Nguyễn"
    )
    with pytest.raises(RuleError) as refused:
        clean_name("Z" + "\u0301" * 4)
    assert refused.value.code == "bad_name"


def test_a_client_is_its_ipv4_address_or_its_ipv6_64() -> None:
    assert client_key("203.0.113.9") == "203.0.113.9"
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:bbbb::7")
    assert client_key("2001:db8:1:2::1") != client_key("2001:db8:1:3::1")
    assert client_key("::ffff:203.0.113.9") == "203.0.113.9"
    assert client_key(None) == "unknown"


def test_a_bucket_gives_its_burst_then_says_how_long_to_wait() -> None:
    bucket = Buckets(per_minute=60, burst=3)
    assert [bucket.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = bucket.take("a")
    assert 0 < wait <= 1.0
    assert bucket.take("b") == 0.0


def test_origins_and_hosts() -> None:
    settings = Settings(allowed_origins="https://tv.example.org", allowed_hosts="dice.example")
    assert origin_allowed(None, "x:1", settings)
    assert origin_allowed("http://x:1", "x:1", settings)
    assert origin_allowed("https://tv.example.org/", "x:1", settings)
    assert not origin_allowed("https://evil.example", "x:1", settings)
    assert not origin_allowed("null", "x:1", settings)
    assert host_allowed("dice.example:8000", settings) and host_allowed("10.0.0.2", settings)
    assert host_allowed("localhost:8000", settings) and not host_allowed("evil.example", settings)
    assert site_url("http", "evil.example", ("0.0.0.0", 80), settings) == "http://0.0.0.0:80"
    public = Settings(public_url="https://dice.example.org/")
    assert site_url("http", "10.0.0.2", None, public) == "https://dice.example.org"
