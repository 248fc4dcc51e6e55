"""The checks a staged format's settings need beyond their own fields (player names, groups that
cover the field, rounds the field can play).

Each problem is a (location, message) pair, reported by the config's reader
(`config_file.py`) as `FILE:LINE: FIELD: ...`.
"""

from __future__ import annotations

from collections import Counter

from referee.tournament.config import TournamentConfig
from referee.tournament.swiss import max_rounds, most_rounds

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
    players = len(config.players)
    rounds, most = config.swiss.rounds, most_rounds(players)
    if rounds is not None and rounds > most:
        message = (
            f"{players} players can play {most} rounds at most (by then everybody has met "
            f"everybody); {max_rounds(players)} can always be paired, and a later round that "
            "cannot be paired without a rematch ends the Swiss early"
        )
        return [(("swiss", "rounds"), message)]
    return []
