"""``python -m inspector``: the command-line interface."""

import sys

from inspector.cli.main import main

sys.exit(main())
