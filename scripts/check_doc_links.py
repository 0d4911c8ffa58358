#!/usr/bin/env python3
"""Run from the repository root: every relative link in README.md and docs/*.md must name an existing file, and an anchor must
name a heading of that file (GitHub's slugs)."""
import glob, os, re, sys
def slug(h):
    h = h.strip().lower()
    h = re.sub(r'[^\w\- ]', '', h)
    return h.replace(' ', '-')
def anchors(path):
    out, seen = set(), {}
    fence = False
    for line in open(path):
        if line.startswith('```'): fence = not fence
        if fence: continue
        m = re.match(r'^#+ (.*)', line)
        if m:
            s = slug(m.group(1)); n = seen.get(s, 0); seen[s] = n + 1
            out.add(s if n == 0 else f'{s}-{n}')
    return out
bad = 0; count = 0
for f in ['README.md'] + sorted(glob.glob('docs/*.md')):
    text = open(f).read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    text = re.sub(r'`[^`\n]*`', '', text)
    for m in re.finditer(r'\]\(([^)\s]+)\)', text):
        link = m.group(1)
        if re.match(r'^[a-z]+:', link): continue
        count += 1
        path, _, anchor = link.partition('#')
        target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(target):
            print(f'{f}: {link}: no such file {target}'); bad += 1; continue
        if anchor and target.endswith('.md') and anchor not in anchors(target):
            print(f'{f}: {link}: no heading #{anchor} in {target}'); bad += 1
print(f'{count} relative links checked, {bad} broken')
sys.exit(1 if bad else 0)
