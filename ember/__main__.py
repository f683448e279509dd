"""``python -m ember``: the ``ember`` command line (``ember.cli.main``)."""

import sys

from ember.cli.main import main

sys.exit(main())
