"""``python -m dealframe`` runs the command line."""

import sys

from dealframe.cli import main

sys.exit(main())
