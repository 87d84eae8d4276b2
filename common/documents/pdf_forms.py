"""A PDF's filled form fields (AcroForm widgets), read by PDFium: a page's text layer holds none
of them, so a filled application form lost its answers, and a form with no other text was called
"scanned". Each filled field is one line, `label: value` (the label the form shows in its
tooltip, else the field's name); a checkbox or radio button only when it is on, empty fields and
buttons never.

    form_lines(doc, page) -> ["Full name: Ada Lovelace", "Member: Yes"]
"""

from __future__ import annotations

import ctypes

_WIDGET = 20  # FPDF_ANNOT_WIDGET
_BUTTON, _CHECKBOX, _RADIO, _SIGNATURE = 1, 2, 3, 7  # FPDF_FORMFIELD_*
MAX_FIELDS = 2000  # widgets read on one page
MAX_VALUE_CHARS = 10_000


def forms_of(doc):
    """The form handle of `doc` (PDFium's), or None when it has no form."""
    import pypdfium2.raw as raw

    if raw.FPDF_GetFormType(doc.raw) == 0:  # FORMTYPE_NONE
        return None
    doc.init_forms()
    return doc.formenv.raw if doc.formenv is not None else None


def form_lines(form, page) -> list[str]:
    """The filled fields of `page` (a pypdfium2 page of the document `form` belongs to)."""
    import pypdfium2.raw as raw

    lines: list[str] = []
    for i in range(min(raw.FPDFPage_GetAnnotCount(page.raw), MAX_FIELDS)):
        annot = raw.FPDFPage_GetAnnot(page.raw, i)
        if not annot:
            continue
        try:
            if raw.FPDFAnnot_GetSubtype(annot) != _WIDGET:
                continue
            kind = raw.FPDFAnnot_GetFormFieldType(form, annot)
            if kind in (_BUTTON, _SIGNATURE, -1):
                continue
            if kind in (_CHECKBOX, _RADIO) and not raw.FPDFAnnot_IsChecked(form, annot):
                continue
            value = _text(raw.FPDFAnnot_GetFormFieldValue, form, annot).strip()
            if kind in (_CHECKBOX, _RADIO) and value.lower() in ("", "off"):
                value = "Yes"
            if not value:
                continue
            label = (_text(raw.FPDFAnnot_GetFormFieldAlternateName, form, annot).strip()
                     or _text(raw.FPDFAnnot_GetFormFieldName, form, annot).strip())
            line = " ".join(value.split())[:MAX_VALUE_CHARS]
            lines.append(f"{' '.join(label.split())}: {line}" if label else line)
        finally:
            raw.FPDFPage_CloseAnnot(annot)
    return list(dict.fromkeys(lines))  # a field shown on several widgets: once


def _text(getter, form, annot) -> str:
    """A PDFium UTF-16 string getter's value (`getter(form, annot, buffer, bytes)`)."""
    size = getter(form, annot, None, 0)
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    getter(form, annot, ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)), size)
    return buffer.raw[:size - 2].decode("utf-16-le", "replace")
