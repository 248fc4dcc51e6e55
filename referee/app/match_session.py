"""A match between two bots (`referee match`) opened as a tournament: its config written in its
directory once it is known to fit the games already there (refused, in the match's own words,
when they were played with other settings), with how its statistics are computed
(`referee.tournament.match_figures`), and its statistics (`referee.stats.head_to_head`) fed the
stored games, then each game as it finishes. Nothing is printed here: what to say on opening
is returned (`OpenedMatch.note`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from referee.app.config import check_config
from referee.app.observers import Observer
from referee.nofollow import check_folder, write_file
from referee.records import describe_validation_error
from referee.stats.estimate import Model
from referee.stats.head_to_head import Tally
from referee.stats.sprt import Sprt
from referee.tournament.bot_folders import layout_refusal
from referee.tournament.config import ConfigError, LoadedConfig
from referee.tournament.events import Event, GameFinished
from referee.tournament.match_figures import save_statistics, tally_rows
from referee.tournament.match_setup import CONFIG_NAME, MatchSpec, config_text, resume_refusal
from referee.tournament.roster import Roster
from referee.tournament.store import GameState, StoreError, open_view


@dataclass(frozen=True)
class MatchRequest:
    """What the command line asks for."""

    spec: MatchSpec
    directory: Path
    sprt: Sprt | None
    model: Model


@dataclass(frozen=True)
class OpenedMatch:
    """The match's config and the tally of the games already played; `note` is what to say
    before it goes on (None: nothing)."""

    loaded: LoadedConfig
    tally: Tally
    note: str | None = None


def open_match(request: MatchRequest) -> OpenedMatch:
    """The match's config, written in its directory once it is known to fit the games already
    there (refused in the match's words when not), and the tally of those games.

    Nothing is made or written before the players' folders are known to be apart (ValueError
    naming both) and the way to the directory is known to hold no planted link (`PlantedLink`,
    referee/nofollow.py)."""
    loaded, text = match_config(request.spec, request.directory / CONFIG_NAME)
    path = loaded.path
    if refusal := layout_refusal(Roster.of(loaded).specs(game_seed=loaded.config.seed)):
        raise ValueError(refusal)
    check_folder(request.directory)  # before its store is read
    (first, _), (second, _) = request.spec.players
    tally = Tally(first, second, request.sprt, model=request.model)
    note = resume(request.directory, loaded, tally)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_file(path, text)  # its folder made, never through a planted link
    # So that `tournament results` and the dashboard show this match as this command does.
    save_statistics(request.directory, request.sprt, request.model)
    return OpenedMatch(loaded, tally, note)


def match_config(spec: MatchSpec, path: Path) -> tuple[LoadedConfig, str]:
    """The match's config, built from its flags and checked as a file's would be, and the text
    it is kept as at `path`; ValueError naming what does not hold."""
    try:
        config = spec.config()
    except ValidationError as exc:
        raise ValueError(describe_validation_error(exc, str(path))) from None
    text = config_text(config)
    try:
        return check_config(config, text, path), text
    except ConfigError as exc:
        raise ValueError(str(exc)) from None


def resume(directory: Path, loaded: LoadedConfig, tally: Tally) -> str | None:
    """Tally the games already in `directory`, and return what to say of them (None: nothing);
    ValueError, in the match's words, when they were played with settings this command cannot
    continue."""
    try:
        view = open_view(directory)
        try:
            info, rows = view.info(), view.games()
        finally:
            view.close()
    except StoreError:
        return None  # a new match (an unreadable store is reported when the games start)
    refusal = resume_refusal(info.schedule_key, loaded.schedule_key(), directory)
    if refusal is not None:
        raise ValueError(refusal)
    tally_rows(tally, rows)
    played = any(row.state is GameState.FINISHED for row in rows)
    if played and info.config.get("time_control") != loaded.config.time_control.model_dump(
        mode="json"
    ):
        return (
            "note: the games already played had another time control; the rest use this "
            "command's --clock and --move-timeout"
        )
    return None


class Tallying(Observer):
    """The match's tally: each game counted as it finishes, before the runner asks
    `stop_when` (so it is given before the other observers)."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally

    def on_event(self, event: Event) -> None:
        if isinstance(event, GameFinished) and event.result != "void":
            self.tally.add(event.number, event.winner)
