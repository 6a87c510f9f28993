"""NoiseFloor core: pure-Python statistics and parsing. Never imports streamlit."""

__version__ = "0.1.0"

# numba's compiled kernels go to the virtual environment (or a user cache folder), never the
# checkout: set before anything can import numba (core.kernel_cache, issue 38).
from core.kernel_cache import point_numba  # noqa: E402

point_numba()
