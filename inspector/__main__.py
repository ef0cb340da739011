"""``python -m inspector``: the command-line interface."""

import sys

from inspector.cli import main

sys.exit(main())
