"""A bot as a process: manifests' limits, builds, the sandbox and its door, containment, the
one launcher, the stdio bridge, seat jobs and the worker that plays hosted seats."""
