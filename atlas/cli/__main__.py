"""`python -m atlas.cli.main`: the same as the `atlas` command."""

from atlas.cli.main import main

raise SystemExit(main())
