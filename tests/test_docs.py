"""The project's promises on paper: protocol superset, README commands, settings table."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT.parent / "shared" / "PROTOCOL.md"


def test_docs_protocol_is_a_superset_of_the_contract() -> None:
    ours = (ROOT / "docs" / "protocol.md").read_text()
    if CONTRACT.exists():  # beside every checkout in CI and on developers' machines
        assert ours.startswith(CONTRACT.read_text().rstrip())
    for heading in (
        "## HTTP",
        "## WebSocket",
        "### Error codes",
        "## The event log",
        "## An example session",
    ):
        assert heading in ours


def test_docs_protocol_holds_the_bunco_contract_verbatim() -> None:
    ours = (ROOT / "docs" / "protocol.md").read_text()
    bunco = CONTRACT.with_name("PROTOCOL-bunco.md")
    if bunco.exists():
        assert bunco.read_text() in ours.split("\n# Bunco\n", 1)[1]
    assert "## Our choices" in ours and "scoresheet.csv" in ours


def test_docs_protocol_holds_the_tournament_contract_verbatim() -> None:
    ours = (ROOT / "docs" / "protocol.md").read_text()
    tournament = CONTRACT.with_name("PROTOCOL-tournament.md")
    if tournament.exists():
        assert tournament.read_text() in ours.split("\n# Tournaments\n", 1)[1]
    assert "/api/tournaments/{code}/scoresheet.csv" in ours


def test_readme_shows_both_commands_and_every_setting() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    for name in Settings.model_fields:
        env = "REDIS_URL" if name == "redis_url" else f"BANKIT_{name.upper()}"
        assert env in readme, f"{env} is missing from the README's configuration table"


def test_ci_runs_the_readme_test_command() -> None:
    assert "make test" in (ROOT / ".ci" / "run").read_text()
