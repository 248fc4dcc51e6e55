"""`league export` run again: only changed files written, the last export's pages that are gone
removed (only files it wrote), the replay pages sharing their player."""

from __future__ import annotations

import os
from pathlib import Path

from referee.league.config import load_league
from referee.league.index import open_index
from referee.web.export_files import MANIFEST, ExportFiles
from referee.web.html_export import static_text
from referee.web.league_export import export_league


def _export(league: Path, out: Path, replays: bool = True) -> ExportFiles:
    index = open_index(league, writer=False)
    try:
        return export_league(index, load_league(league), out, replays=replays)
    finally:
        index.close()


def _files(out: Path) -> dict[str, int]:
    """Each file's inode and modification time: changed only by a write."""
    return {
        str(p.relative_to(out)): p.stat().st_mtime_ns
        for p in out.rglob("*")
        if p.is_file() and p.name != MANIFEST
    }


def test_export_again_writes_only_what_changed_and_removes_what_is_gone(
    rated: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    first = _export(rated, out)
    assert first.written == first.count > 0 and first.unchanged == first.removed == 0
    before = _files(out)
    assert len(before) == first.count
    mine = out / "notes.txt"  # someone else's file in the folder
    mine.write_text("kept")
    os.utime(out / "index.html", ns=(1, 1))  # an old time: a rewrite would change it
    (out / "all.html").write_text("edited by hand")
    again = _export(rated, out)
    assert again.written == 1  # all.html, back to what it is
    assert again.unchanged == again.count - 1 and again.removed == 0
    assert (out / "index.html").stat().st_mtime_ns == 1
    assert "edited by hand" not in (out / "all.html").read_text()
    # Without the replays, their pages go, and the folders they emptied; nothing else does.
    replays = [name for name in before if name.startswith("replays/")]
    assert replays
    less = _export(rated, out, replays=False)
    assert less.removed == len(replays) + 3  # and the player, the style, the renderer
    assert not (out / "replays").exists() and not (out / "assets").exists()
    assert mine.read_text() == "kept"
    assert set(_files(out)) == {n for n in before if not n.startswith(("replays/", "assets/"))} | {
        "notes.txt"
    }


def test_a_manifest_never_names_a_file_outside(rated: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _export(rated, out, replays=False)
    outside = tmp_path / "precious.txt"
    outside.write_text("mine")
    (out / "linked.html").symlink_to(outside)
    (out / MANIFEST).write_text(f'["../precious.txt", "{outside}", "linked.html", "index.html"]')
    again = _export(rated, out, replays=False)
    assert outside.read_text() == "mine"
    assert again.removed == 1 and not (out / "linked.html").is_symlink()  # the link, not its file


def test_replay_pages_share_the_player(rated: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _export(rated, out)
    player = static_text("player.js")
    assert len(player) > 10_000
    pages = list((out / "replays").rglob("*.html"))
    assert pages
    assert (out / "assets" / "player.js").read_text() == player
    for page in pages[:20]:
        text = page.read_text()
        assert '<script src="../../assets/player.js"></script>' in text
        assert player[:2000] not in text and len(text) < len(player)
