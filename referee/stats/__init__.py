"""Statistics of game results, for tournaments, matches and leagues alike: pure numbers from
counts and results, no I/O, and nothing imported from the tournaments, the matches or the views.

`elo` converts between scores and Elo (logistic and normalised), `likelihood` maximises the
likelihood of a score distribution under a constraint (the ground of everything else),
`estimate` gives a match's score, Elo interval, normalised Elo and LOS, `sprt` the sequential
test and how many games it needs, `match` puts them together and `head_to_head` keeps them for
`referee match`. `ratings` fits a tournament's Elo ratings (Bradley-Terry with draws, solved with
`linalg`); `rating_terms` and `elo_intervals` fit a league's games with numpy and scipy. `rating` is
the one rating model meant for all of them (docs/ratings.md), with its parts in `rating_*`:
input, graph (components and groups), fit, estimate, laplace, bounds, bootstrap and report.
Only these modules import numpy and scipy, so the rest loads without them.
"""
