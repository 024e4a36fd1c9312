"""``python -m dpverify`` runs the command-line interface."""

from dpverify.cli import main

raise SystemExit(main())
