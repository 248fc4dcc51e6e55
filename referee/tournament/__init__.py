"""Tournaments: a TOML config, a fair deterministic schedule, games played concurrently and
committed to a store as they finish, standings and reports (ratings: `referee.stats`).

Inside the package imports run one way, from the config as plain data up to what reads it:

config.py       the config as data (pydantic models; the staged formats' tables in
                format_settings.py): it imports no format
schedule.py     a round robin's or a gauntlet's pairings and colours, deterministic for a seed
formats/        each format a pure function of (config, stored games) giving its plan;
                `make_schedule` gives any format's first games
report.py       standings, placings and ratings of a stored tournament
config_file.py  reads and checks a config file: the formats' checks, a knockout's seeds from an
                earlier tournament's ratings (`referee.app.config` adds the cluster's address)
resume.py       the store opened for a run: created, grown, or checked against the config
runner.py       plays the schedule with trio: concurrency, resume, void games and replays
events.py       what a run reports as it goes (live display, JSON lines)
standings.py    points, wins/draws/losses, bot faults, head-to-head
store.py        the SQLite store of a tournament's games
"""
