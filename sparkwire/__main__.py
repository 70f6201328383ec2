"""`python -m sparkwire …` runs the command line (see sparkwire/cli.py)."""

import sys

from sparkwire.cli import main

sys.exit(main())
