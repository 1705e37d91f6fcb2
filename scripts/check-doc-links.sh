#!/usr/bin/env bash
# Checks the links of README.md and every Markdown file under docs/: each relative link names a
# file that exists and, with a #fragment, a heading of that file (GitHub's anchors: lower case,
# punctuation dropped, spaces as hyphens, -1, -2 for repeats). Links in code are not links.
# docs/ links to nothing outside the repository: a link to http(s) there fails too (a URL in
# code, such as the local server's http://127.0.0.1:8080/, is an example, not a link).
#
# Usage: scripts/check-doc-links.sh    (exit status 1 and one line a bad link when any)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'EOF'
import os, re, sys

def strip_code(text):
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)

def anchors(path):
    found, seen = set(), {}
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().replace("`", "")
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found

files = ["README.md"] + sorted(
    os.path.join(folder, name)
    for folder, _, names in os.walk("docs") for name in names if name.endswith(".md"))
bad = checked = 0
for source in files:
    text = strip_code(open(source, encoding="utf-8").read())
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text) + re.findall(r"<(https?://[^>]+)>", text):
        checked += 1
        if re.match(r"[a-z]+:", target):
            if source.startswith("docs/"):
                print(f"{source}: a link outside the repository: {target}")
                bad += 1
            continue
        path, _, fragment = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(source), path)) if path else source
        if not os.path.exists(resolved):
            print(f"{source}: no such file: {target}")
            bad += 1
        elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
            print(f"{source}: no heading #{fragment} in {resolved}")
            bad += 1
print(f"{len(files)} files, {checked} links, {bad} bad")
sys.exit(1 if bad else 0)
EOF
