"""An asyncio service run in a daemon thread of its own: the CLI's embedded server, the
arena's web gateway, and the tests' servers."""

from __future__ import annotations

import asyncio
import threading


class LoopThread:
    """Runs `serve()` on its own event loop in a daemon thread. `serve()` calls
    `self.ready()` once it answers, then returns after `self.stopping` is set; `start()`
    waits for the first and `stop()` sets the second."""

    #: What the thread is called, and what `start()` says when it fails.
    label = "service"

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.stopping: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"curia-{self.label}")

    async def serve(self) -> None:
        raise NotImplementedError

    def ready(self) -> None:
        """Called by `serve()` once it answers."""
        self._ready.set()

    def start_thread(self, timeout: float) -> None:
        self._thread.start()
        if not self._ready.wait(timeout) or self._error is not None:
            raise RuntimeError(f"the {self.label} did not start: {self._error}")

    def stop(self, timeout: float = 10.0) -> None:
        if self._loop is not None and self.stopping is not None:
            self._loop.call_soon_threadsafe(self.stopping.set)
        self._thread.join(timeout=timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as error:  # reported by start_thread()
            self._error = error
            self._ready.set()

    async def _main(self) -> None:
        self._loop, self.stopping = asyncio.get_running_loop(), asyncio.Event()
        await self.serve()
