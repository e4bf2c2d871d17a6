"""The public contract, `curia.v1`, in Python: the generated stubs (`curia_api.v1`), the
codec between the engines and the typed messages (`codec`, one module per game in
`codecs/`), messages as JSON (`message_json`) and how a game prints (`render`).

Every layer uses it (the service, the clients, the arena, the league, the bots, the CLI);
it imports nothing of Curia's but `games`.
"""
