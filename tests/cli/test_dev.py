"""``./dev pishti``: the command runs in the directory it was called from."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BOT = '''
class HighCard:
    """Plays its highest legal card."""

    name = "highcard"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view):
        return max(view.legal_cards)
'''


def test_dev_pishti_finds_a_plug_in_in_the_callers_directory(tmp_path: Path) -> None:
    """A plug-in beside the caller is imported and the results file lands there
    (the script used to change to the repo root, so 'mybot' was not found)."""
    (tmp_path / "mybot.py").write_text(BOT)
    done = subprocess.run(
        [
            *(str(ROOT / "dev"), "pishti", "arena", "mybot:HighCard", "novice"),
            *("--players", "2", "--matches", "1", "--seed", "5", "--json"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "cannot import" not in done.stderr
    assert [p.name for p in tmp_path.glob("arena-*.jsonl")] == [
        "arena-mybot_HighCard-novice-2p-seed5.jsonl"
    ]
