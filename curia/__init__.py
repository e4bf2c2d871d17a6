"""Curia: board games for bots.

`games/` holds the pure rules behind one engine API, `bots/` the reference bots, and
`curia.cli` the `curia` command (`curia play`, `curia simulate`).
"""
