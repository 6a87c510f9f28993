"""The project's one input error: bad data or bad arguments, said with where and what.

Every message is an i18n template: a plain ``code`` ("bad_value") lives in
``core/i18n/<lang>/errors.json``; a dotted code ("scifact.err_no_folder") names its own
namespace file. The app shows it in the user's language; the CLI prints the English one
on a single line.
"""
from __future__ import annotations

from core.i18n import t


class InputError(ValueError):
    """Bad input, with a translatable code and its location (file, row, column).

    ``row`` is the 1-based line number as a spreadsheet shows it (header = row 1).
    """

    def __init__(self, code: str, *, file: str | None = None, row: int | None = None,
                 column: str | None = None, **params: object) -> None:
        self.code = code
        self.file = file
        self.row = row
        self.column = column
        self.params = params
        super().__init__(self.message("en"))

    def where(self, lang: str = "en") -> str:
        parts = []
        if self.file:
            parts.append(t("errors.where_file", lang, file=self.file))
        if self.row is not None:
            parts.append(t("errors.where_row", lang, row=self.row))
        if self.column is not None:
            parts.append(t("errors.where_column", lang, column=self.column))
        return ", ".join(parts)

    def message(self, lang: str = "en") -> str:
        key = self.code if "." in self.code else f"errors.{self.code}"
        # a template may name its location too ("column number {column}")
        loc = {k: v for k, v in (("file", self.file), ("row", self.row),
                                 ("column", self.column)) if v is not None}
        text = t(key, lang, **{**loc, **self.params})
        where = self.where(lang)
        return f"{where}: {text}" if where else text

    def __str__(self) -> str:
        return self.message("en")
