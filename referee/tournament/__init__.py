"""Tournaments: a TOML config, a fair deterministic schedule, games played concurrently and
committed to a store as they finish, standings and ratings.

config.py   the config file (pydantic models; errors name the file, line and field)
schedule.py pairings and colours, deterministic for a seed
runner.py   plays the schedule with trio: concurrency, resume, void games and replays
events.py   what a run reports as it goes (live display, JSON lines)
standings.py  points, wins/draws/losses, bot faults, head-to-head
ratings.py  Elo by maximum likelihood (Bradley-Terry with draws), confidence intervals
"""
