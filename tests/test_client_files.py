"""The browser client's files: texts in both languages, no outside assets."""

from __future__ import annotations

import json
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "src" / "pishti" / "server" / "static"


def texts(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def test_turkish_and_english_have_the_same_texts() -> None:
    tr, en = texts("tr"), texts("en")
    assert sorted(tr) == sorted(en)
    for key in en:
        placeholders = sorted(re.findall(r"\{(\w+)\}", en[key]))
        assert sorted(re.findall(r"\{(\w+)\}", tr[key])) == placeholders, key


def test_every_text_the_scripts_ask_for_exists() -> None:
    en = texts("en")
    used: set[str] = set()
    for script in STATIC.glob("js/**/*.js"):
        used |= set(re.findall(r"""\bt\(\s*"([a-z_]+\.[a-z_0-9.]+)\"""", script.read_text("utf-8")))
    assert used, "no t() calls found"
    assert sorted(used - set(en)) == []


def test_card_names_follow_the_spec_in_both_languages() -> None:
    en, tr = texts("en"), texts("tr")
    assert en["card.format"].format(rank=en["rank.T"], suit=en["suit.D"]) == "ten of diamonds"
    assert tr["card.format"].format(rank=tr["rank.T"], suit=tr["suit.D"]) == "karo onlu"
    assert [tr[f"suit.{s}"] for s in "CDHS"] == ["sinek", "karo", "kupa", "maça"]
    assert [tr[f"rank.{r}"] for r in "AJQK"] == ["as", "vale", "kız", "papaz"]


def test_the_client_loads_nothing_from_outside() -> None:
    for path in STATIC.rglob("*"):
        if path.suffix in (".html", ".css", ".js"):
            text = path.read_text("utf-8")
            assert not re.search(r"""(src|href)=["']https?://""", text), path
            assert "@import url(http" not in text, path
            assert not re.search(r"""from\s+["']https?://""", text), path


def test_the_service_worker_keeps_every_client_file() -> None:
    text = (STATIC / "sw.js").read_text("utf-8")
    listed = set(re.findall(r'^\s+"(/[^"]*)",$', text, flags=re.M))
    files = {
        "/static/" + str(path.relative_to(STATIC))
        for folder in ("js", "css", "i18n", "icons")
        for path in (STATIC / folder).rglob("*")
        if path.is_file()
    }
    assert listed == files | {"/", "/manifest.webmanifest"}


def test_the_three_js_files_are_the_version_the_docs_name() -> None:
    """docs/client.md says which three.js the client serves and how to update it."""
    core = (STATIC / "js" / "vendor" / "three" / "three.core.js").read_text("utf-8")
    revision = re.search(r"const REVISION = '(\d+)';", core)
    assert revision is not None
    docs = (STATIC.parents[3] / "docs" / "client.md").read_text("utf-8")
    assert f"three.js 0.{revision.group(1)}.0" in docs
    assert "MIT License" in (STATIC / "js" / "vendor" / "three" / "LICENSE").read_text("utf-8")


def test_the_3d_table_is_not_downloaded_by_players_who_stay_in_2d() -> None:
    """The service worker installs the client without three.js (2 MB); the
    fetch handler keeps it once the 3D table is opened."""
    text = (STATIC / "sw.js").read_text("utf-8")
    installed = text[text.index("const FILES") : text.index("];")]
    assert "/static/js/table3d/switch.js" in installed
    assert "three" not in installed.replace("table3d", "")
    assert "/static/js/vendor/three/three.core.js" in text
