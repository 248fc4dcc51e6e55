"""The checks a staged format's settings need beyond their own fields (player names, groups that
cover the field), and the knockout seeds read from an earlier tournament's ratings.

Each problem is a (location, message) pair, reported by the config as `FILE:LINE: FIELD: ...`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.tournament.config import TournamentConfig

Loc = tuple[str | int, ...]
OWN_TABLES = ("stages", "knockout", "swiss")


def check_format(config: TournamentConfig) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    for table in OWN_TABLES:
        if table in config.model_fields_set and config.format != table:
            problems.append(((table,), f"[{table}] is only used by format = {table!r}"))
    if config.format == "stages":
        problems += _check_stages(config)
    elif config.format == "knockout":
        problems += _check_knockout(config)
    elif config.format == "swiss":
        problems += _check_swiss(config)
    return problems


def _check_stages(config: TournamentConfig) -> list[tuple[Loc, str]]:
    settings = config.stages
    problems: list[tuple[Loc, str]] = []
    if settings.advance >= settings.group_size:
        problems.append(
            (("stages", "advance"), "must be less than group_size, or no stage would shrink")
        )
    if not settings.groups:
        return problems
    names = set(config.player_names)
    seen: Counter[str] = Counter()
    for group, players in settings.groups.items():
        if len(players) < 2:
            problems.append((("stages", "groups", group), "a group needs at least two players"))
        for i, name in enumerate(players):
            if name not in names:
                problems.append((("stages", "groups", group, i), f"{name!r} is not a player"))
            elif seen[name]:
                problems.append(
                    (("stages", "groups", group, i), f"{name!r} is in more than one group")
                )
            seen[name] += 1
    missing = [name for name in config.player_names if not seen[name]]
    if missing:
        problems.append((("stages", "groups"), f"in no group: {', '.join(missing)}"))
    return problems


def _check_knockout(config: TournamentConfig) -> list[tuple[Loc, str]]:
    settings = config.knockout
    problems: list[tuple[Loc, str]] = []
    names = set(config.player_names)
    for i, name in enumerate(settings.seeds):
        if name not in names:
            problems.append((("knockout", "seeds", i), f"{name!r} is not a player"))
        elif settings.seeds.index(name) != i:
            problems.append((("knockout", "seeds", i), f"{name!r} is seeded twice"))
    if settings.seeding == "ratings" and settings.ratings_from is None:
        problems.append((("knockout", "ratings_from"), "seeding = 'ratings' needs ratings_from"))
    if settings.seeding == "random" and settings.seeds:
        problems.append((("knockout", "seeds"), "seeds are not used with seeding = 'random'"))
    if settings.ratings_from is not None and settings.seeding != "ratings":
        problems.append((("knockout", "ratings_from"), "only used with seeding = 'ratings'"))
    return problems


def _check_swiss(config: TournamentConfig) -> list[tuple[Loc, str]]:
    from referee.tournament.swiss import max_rounds

    rounds, most = config.swiss.rounds, max_rounds(len(config.players))
    if rounds is not None and rounds > most:
        return [(("swiss", "rounds"), f"{len(config.players)} players can play {most} at most")]
    return []


def resolve_seeds(
    config: TournamentConfig, base_dir: Path
) -> tuple[TournamentConfig, list[tuple[Loc, str]]]:
    """A knockout seeded by ratings gets its `seeds` from the earlier tournament's Elo, best
    first (players it did not rate after, in config order); other configs are returned as is."""
    settings = config.knockout
    if config.format != "knockout" or settings.seeding != "ratings" or settings.seeds:
        return config, []
    assert settings.ratings_from is not None
    source = settings.ratings_from
    source = source if source.is_absolute() else base_dir / source
    from referee.tournament.store import StoreError

    try:
        elo = _earlier_elo(source, config.player_names)
    except (OSError, ValueError, StoreError) as exc:  # ValueError: its config's ConfigError
        return config, [(("knockout", "ratings_from"), f"cannot read its ratings: {exc}")]
    order = sorted(
        config.player_names,
        key=lambda n: (elo.get(n) is None, -(elo.get(n) or 0.0), config.player_names.index(n)),
    )
    knockout = settings.model_copy(update={"seeds": order})
    return config.model_copy(update={"knockout": knockout}), []


def _earlier_elo(source: Path, players: list[str]) -> dict[str, float | None]:
    from referee.tournament.config import load_config
    from referee.tournament.ratings import fit_ratings
    from referee.tournament.report import finished_results
    from referee.tournament.store import open_view

    directory = source if source.is_dir() else load_config(source).directory
    view = open_view(directory)
    try:
        earlier = view.players()
        ratings = fit_ratings(earlier, finished_results(view.games()))
    finally:
        view.close()
    by_name: dict[str, Any] = ratings.by_name()
    return {name: by_name[name].elo if name in by_name else None for name in players}
