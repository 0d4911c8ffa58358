"""Markdown for report.md: numbers as text, text from the inputs escaped, tables."""

import re

from report_tables import num



def fmt(value, digits=3):
    if value is None:
        return ""
    return f"{value:.{digits}g}"


# Text from the inputs (names, error messages) shown in report.md: every character Markdown or
# the HTML it may hold would read as markup is escaped, and a line break becomes a space (a table
# row is one line). One pass, so that no escape added is escaped again.
MD_ESCAPES = {"\\": "\\\\", "&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|", "`": "\\`",
              "*": "\\*", "[": "\\[", "]": "\\]", "\r\n": " ", "\n": " ", "\r": " "}
MD_SPECIAL = re.compile("|".join(re.escape(k) for k in sorted(MD_ESCAPES, key=len, reverse=True)))


def md_text(value):
    """`value` as literal text in Markdown (a table cell, a heading, an image's alt text)."""
    return MD_SPECIAL.sub(lambda m: MD_ESCAPES[m.group(0)], str(value))


def md_code(value):
    """`value` as inline code, or as escaped text where it holds what would end the code."""
    text = str(value)
    return f"`{text}`" if not re.search("[`\r\n|]", text) else md_text(text)


def on(experiment, device):
    return f"{md_text(experiment)} on {md_text(device)}"


def md_table(header, rows):
    lines = ["| " + " | ".join(md_text(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_text(v) for v in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def clip(text, length=160):
    return (text[:length] + "…") if len(text) > length else text


def interval_text(row, prefix):
    """'0.48–0.52' from <prefix>_ci_low and _ci_high; '' where they are empty."""
    low, high = num(row.get(f"{prefix}_ci_low")), num(row.get(f"{prefix}_ci_high"))
    return f"{fmt(low, 4)}–{fmt(high, 4)}" if low is not None and high is not None else ""


def reversed_text(ranking_row):
    """'2 of 3', with how many are significant and tied where the analysis judged them."""
    text = f"{ranking_row['reversed_pairs']} of {ranking_row['pairs']}"
    if ranking_row.get("significant_reversals") not in (None, "") and int(
            ranking_row["reversed_pairs"]) > 0:
        text += (f" ({ranking_row['significant_reversals']} significant, "
                 f"{ranking_row['tied_reversals']} tied)")
    return text
