"""`python3 -m curia ...` runs the `curia` command."""

import sys

from curia.cli import main

sys.exit(main())
