"""NoiseFloor core: pure-Python statistics and parsing. Never imports streamlit."""

__version__ = "0.1.0"

# numba's compiled kernels go to the virtual environment (or a user cache folder), never the
# checkout: set before anything can import numba (core.kernel_cache, issue 38).
from core.kernel_cache import point_numba, quiet_threads  # noqa: E402

point_numba()
# ... and their threads sleep between kernels instead of spinning (OpenMP's default), which
# cost more CPU than the small kernels themselves (core.kernel_cache.quiet_threads).
quiet_threads()
