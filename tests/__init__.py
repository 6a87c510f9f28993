"""NoiseFloor's tests: a regular package, so `tests.*` resolves here and not to a stray top-level
`tests` package some dependency installs into site-packages (ppi_python 0.2.3 ships one)."""
