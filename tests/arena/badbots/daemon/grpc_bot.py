"""A gRPC bot that leaves a daemon behind at its start (daemonize.py), then plays at
random over the Play stream (bots.grpc_player) and exits at the end of the game."""

import sys

from daemonize import leave_daemon

from bots.grpc_player import main

leave_daemon()
sys.exit(main(sys.argv[1:], default_bot="random"))
