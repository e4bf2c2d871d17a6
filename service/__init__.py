"""Curia's game service: the gRPC server, its Redis store and the engine<->contract codec."""
