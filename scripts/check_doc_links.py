#!/usr/bin/env python3
"""Checks that the documentation stands alone: every relative link in README.md, docs/ and
examples/ resolves to a file (and, for Markdown targets, a heading) inside the repository,
and nothing refers to the developers' workspace outside it.

Usage: check_doc_links.py [REPO_ROOT]   (exit 0 when clean, 1 with a list of problems)
Standard library only."""
import os
import re
import sys

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|\!\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"\.\./shared|shared/(spec|design|seeds|validation|bench)/")
CODE_FENCE = re.compile(r"^\s*(```|~~~)")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    s = heading.strip().lower()
    s = re.sub(r"[`*~]", "", s)  # GitHub keeps "_" (a word character)
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"[^\w\- ]", "", s, flags=re.UNICODE)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, fenced = set(), False
        counts = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                if CODE_FENCE.match(line):
                    fenced = not fenced
                    continue
                m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m and not fenced:
                    a = slug(m.group(1))
                    n = counts.get(a, 0)
                    counts[a] = n + 1
                    found.add(a if n == 0 else f"{a}-{n}")
        cache[path] = found
    return cache[path]


def markdown_files(root):
    yield os.path.join(root, "README.md")
    for top in ("docs", "examples"):
        for d, _, files in os.walk(os.path.join(root, top)):
            if "node_modules" in d:
                continue
            for f in files:
                if f.endswith(".md"):
                    yield os.path.join(d, f)


def check(root):
    problems = []
    for md in markdown_files(root):
        if not os.path.exists(md):
            continue
        rel = os.path.relpath(md, root)
        fenced = False
        with open(md, encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                if OUTSIDE.search(line):
                    problems.append(f"{rel}:{no}: refers outside the repository: {line.strip()[:100]}")
                if CODE_FENCE.match(line):
                    fenced = not fenced
                    continue
                if fenced:
                    continue
                for m in LINK.finditer(line):
                    target = m.group(1) or m.group(2)
                    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
                        continue
                    path, _, frag = target.partition("#")
                    dest = md if not path else os.path.normpath(os.path.join(os.path.dirname(md), path))
                    if not os.path.abspath(dest).startswith(os.path.abspath(root) + os.sep):
                        problems.append(f"{rel}:{no}: link leaves the repository: {target}")
                    elif not os.path.exists(dest):
                        problems.append(f"{rel}:{no}: broken link: {target}")
                    elif frag and dest.endswith(".md") and frag not in anchors(dest):
                        problems.append(f"{rel}:{no}: no heading '#{frag}' in {os.path.relpath(dest, root)}")
    return problems


def self_test():
    """The checker itself must catch each kind of problem (run by ctest as doc_links_self_test)."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        outside = ".." + "/shared/spec/x.md"  # built here so that this file names no such path
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write(f"# Bad\n\nSee [missing](missing.md), [anchor](#nowhere), `{outside}`.\n\n"
                    "## Fine heading\n[ok](#fine-heading) [page](docs/page.md#page)\n")
        with open(os.path.join(root, "docs", "page.md"), "w") as f:
            f.write("# Page\n[up](../README.md#bad) [gone](../../etc/passwd)\n```\n[in code](nope.md)\n```\n")
        got = sorted(p.split(": ", 1)[1].split(":")[0] for p in check(root))
        want = sorted(["refers outside the repository", "broken link", "no heading '#nowhere' in README.md",
                       "link leaves the repository"])
        if got != want:
            print("self test failed:", got, "expected", want)
            return 1
    print("check_doc_links self test: 4 problems found as expected")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems = check(root)
    for p in problems:
        print(p)
    print(f"check_doc_links: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
