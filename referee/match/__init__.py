"""One game between two bot programs, with a heart that does no I/O.

The heart (below the bot processes in the import layers):
`order` (a `GameOrder`: what to play), `settings` (how it is refereed), `clock` (the one place a
deadline is computed and time charged), `judge` (answers in, the move to forward or the verdict
out). One bot's ask/answer/out-of-turn state, the `Exchange` that a bot process feeds and the
match reads, is below both (referee/exchange.py). Above the bot processes: `driver`
(`play(order, host)`: the trio loop that connects them), `player` (the seam between the driver
and a player), `seats` (both players opened at once and held), `host` (the isolation and log a
run chose once), `recorder` (the record as it goes), `lag` (the referee's own lag) and `errors`
(a referee bug made loud).
"""
