"""`python3 -m arena.stdio_bridge`: the stdio bridge's former name, kept so that manifests and
scripts written for it still run. The bridge is `hosting.stdio_bridge`."""

from hosting.stdio_bridge import main

if __name__ == "__main__":
    raise SystemExit(main())
