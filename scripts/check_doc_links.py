#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md names an existing file, and an anchor a
heading of that file (as GitHub makes its slugs).

    python3 scripts/check_doc_links.py      (from anywhere; CTest runs it as doc_links)

Prints each broken link and a count; exits 1 when any is broken.
"""
import glob
import os
import re
import sys


def slug(heading):
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    """The anchors of a Markdown file's headings, code blocks left out."""
    found, seen, fence = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            match = None if fence else re.match(r"^#+ (.*)", line)
            if match:
                s = slug(match.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
    return found


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    broken = checked = 0
    for page in ["README.md"] + sorted(glob.glob("docs/*.md")):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code is not a link
        text = re.sub(r"`[^`\n]*`", "", text)
        for match in re.finditer(r"\]\(([^)\s]+)\)", text):
            link = match.group(1)
            if re.match(r"^[a-z]+:", link):
                continue  # https:, mailto:
            checked += 1
            path, _, anchor = link.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(target):
                print(f"{page}: {link}: no such file {target}")
                broken += 1
            elif anchor and target.endswith(".md") and anchor not in anchors(target):
                print(f"{page}: {link}: no heading #{anchor} in {target}")
                broken += 1
    print(f"{checked} relative links checked, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
