"""Statistics of game results: pure numbers from counts, no I/O, and nothing imported from the
tournaments, the matches or the views.

`elo` converts between scores and Elo (logistic and normalised), `likelihood` maximises the
likelihood of a score distribution under a constraint (the ground of everything else),
`estimate` gives a match's score, Elo interval, normalised Elo and LOS, `sprt` the sequential
test and how many games it needs, and `match` puts them together for `referee match`.
"""
