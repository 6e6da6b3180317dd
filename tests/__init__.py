"""The test suite (a package, so that ``tests.*`` is this one and not a ``tests`` package
some dependency installs into site-packages: verl 0.9.1 ships one)."""
