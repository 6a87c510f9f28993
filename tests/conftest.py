"""Suite-wide settings. Translations are strict in tests: an unknown key or a template that
cannot be filled raises (``core.i18n.strict``) instead of showing "{n}" to a user. The
browser tests' server inherits the setting through the environment."""
import os

os.environ.setdefault("NOISEFLOOR_STRICT_I18N", "1")
