"""Pure statistics of game outcomes: records, Elo, Bradley–Terry, Plackett–Luce, the SPRT.

In the manner of fishtest and fastchess: outcomes or counts in, Elo with confidence
intervals and log-likelihood ratios out; no I/O and nothing beyond the standard library,
so it imports anywhere (it imports nothing of Curia's).

A multi-seat game is read either as every pair of seats meeting once, scored by finishing
order (ahead 1, tied 0.5, behind 0: `records.pairwise`, `bradley_terry.fit_bradley_terry`,
the leaderboard's headline, `elo.elo_history`), or as its whole finishing order
(`plackett_luce.fit_plackett_luce`, a cross-check). Under a Plackett–Luce finishing order
(Gumbel noise on log-strengths) each pair follows the logistic Bradley–Terry law exactly,
so both fits share one scale; under other noise only the pairwise fit still estimates each
pair's chance of finishing ahead (`bradley_terry.pairwise_truth`). The pairs of one game
are not independent, nor are the games of one deal (they share its cards); both fits give
robust (sandwich) intervals per bot, with the deal as the unit. The SPRT over games is in
`sprt`; the dense linear algebra the fits need in `linalg`. Why and how well:
docs/arena-ratings.md.
"""
