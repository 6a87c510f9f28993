"""How many cases a question needs: the sample-size planner (``sample_size``), its
non-inferiority mode (``noninferiority``) and the calibrated t-interval's width factor (``shape``).

The front door: other wings, pages and the CLI import the names below from ``core.planning``
(``core._front``); the modules are the wing's rooms."""
from core._front import front_door

PUBLIC = {
    "noninferiority": ("MarginCasesNeeded", "card_next_step",
                       "cases_needed_noninferiority",
                       "n_noninferiority_continuous", "n_noninferiority_paired",
                       "noninferiority_power_curve", "plan_noninferiority"),
    "sample_size": ("cases_needed", "cases_needed_of", "defaults_from", "discordant_count", "half_width_curve",
                    "n_continuous_ci", "n_continuous_power", "n_mcnemar", "n_normal",
                    "n_paired_ci", "n_wilson", "plan_paired", "plan_rate", "power_curve"),
    "shape": ("n_calibrated_ci", "normal_width_factor", "plan_scores", "shape_of"),
}
__getattr__, __dir__, __all__ = front_door(__name__, PUBLIC)
