"""What the daemon bots share: `leave_daemon()` double-forks a process that calls
`os.setsid()` (a session and process group of its own, out of the bot's), lets go of the
bot's stdin, stdout and stderr, writes its pid into `pids/` in the bot's working folder,
and sleeps forever. Run unsandboxed without containment, it outlives the game and the
arena (a process-group kill does not reach it)."""

import os
import time


def leave_daemon() -> None:
    """Start the daemon; return in the bot once it has written its pid."""
    os.makedirs("pids", exist_ok=True)
    ready_read, ready_write = os.pipe()
    if os.fork() == 0:
        os.close(ready_read)
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            pid = os.getpid()
            with open(f"pids/{pid}.tmp", "w") as out:
                out.write(str(pid))
            os.rename(f"pids/{pid}.tmp", f"pids/{pid}.pid")
            os.write(ready_write, b"!")
            os.close(ready_write)
            while True:
                time.sleep(1)
        os._exit(0)
    os.close(ready_write)
    os.read(ready_read, 1)  # the daemon's pid is on disk
    os.close(ready_read)
    os.wait()  # the middle process, gone at once: the daemon is init's (or a subreaper's)
