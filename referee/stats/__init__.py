"""Statistics of game results, for tournaments, matches and leagues alike: pure numbers from
counts and results, no I/O, and nothing imported from the tournaments, the matches or the views.

`elo` converts between scores and Elo (logistic and normalised), `likelihood` maximises the
likelihood of a score distribution under a constraint (the ground of everything else),
`estimate` gives a match's score, Elo interval, normalised Elo and LOS, `sprt` the sequential
test and how many games it needs, `match` puts them together and `head_to_head` keeps them for
`referee match`. `rating` is the one rating model of tournaments, matches and leagues
(docs/ratings.md), with its parts in `rating_*`: input, terms (the likelihood per cell), graph
(components and groups), fit, estimate, laplace, bounds, bootstrap, report, and table (the
report as the pydantic table every caller prints, stores or writes).
Only these modules import numpy and scipy, so the rest loads without them.
"""
