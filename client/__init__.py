"""Python clients of `curia.v1`: channels, the retrying unary client, failover, the one
Play transport and the load generator. Imports nothing of ours but `curia_api` and `games`."""
