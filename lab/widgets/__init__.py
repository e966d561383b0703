"""Views and figures of the instruments, one module each (see :mod:`lab.instruments`)."""
