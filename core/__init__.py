"""NoiseFloor core: pure-Python statistics and parsing. Never imports streamlit."""

__version__ = "0.1.0"
