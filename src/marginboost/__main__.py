"""``python -m marginboost`` is the ``marginboost`` command line (see :mod:`marginboost.cli`)."""
from marginboost.cli import main

raise SystemExit(main())
