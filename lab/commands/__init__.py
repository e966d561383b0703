"""Command-line subcommands of the instruments, one module each (see :mod:`lab.instruments`)."""
