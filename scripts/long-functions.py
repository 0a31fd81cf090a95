#!/usr/bin/env python3
"""Lists C++ functions longer than a limit (default 120 lines, the developer guide's), longest
first: `scripts/long-functions.py [--limit N] [paths...]` (default: src/, without the
generated and the excluded folders given with --exclude).

A brace-counting heuristic, not a parser: comments, string and character literals are
blanked, then a `{` at namespace or class scope whose statement has a parameter list and
no `=` opens a function body; its length is the lines from the signature's first line to
the closing brace. Lambdas and local classes count toward the function that holds them.
Exit status 1 when a function is over the limit (for CI), 0 otherwise.
"""
import argparse
import os
import re
import sys

SOURCE_EXTENSIONS = (".cc", ".cpp", ".h", ".hpp")


def blank_literals(text):
    """Comments, strings and chars replaced by spaces (newlines kept, so lines still count)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scope_kind(statement):
    s = " ".join(statement.split())
    if re.search(r"\bnamespace\b", s) or re.match(r'extern\s*$', s) or s.startswith("extern"):
        return "scope"
    if re.match(r"^(template\s*<.*>\s*)?(class|struct|union)\b", s) and "(" not in s.split(":")[0]:
        return "scope"
    if re.search(r"\benum\b", s):
        return "other"
    if "(" not in s:
        return "other"
    head = s.split("(")[0]
    if "=" in head and "operator" not in head:
        return "other"  # an initialiser: `auto x = F(...) {` does not occur; `T x = {` does
    if re.search(r"\)\s*(const|noexcept|override|final|mutable|&|&&|\s)*(->\s*[\w:<>,\s\*&]+)?$", s) \
            or re.search(r"\)\s*:\s*.*[\)\}]$", s) or re.search(r"\brequires\b", s):
        return "function"
    return "other"


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = blank_literals(handle.read())
    stack = []  # (kind, start line, name)
    statement_start = 0
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            if all(kind == "scope" for kind, _, _ in stack):
                statement = text[statement_start:i]
                kind = scope_kind(statement)
                stripped = statement.lstrip()
                first = line - stripped.count("\n")
                name = ""
                if kind == "function":
                    m = re.search(r"([~\w:]+(?:operator\s*\S+)?)\s*\(", " ".join(stripped.split()))
                    name = m.group(1) if m else "?"
                stack.append((kind, first, name))
            else:
                stack.append(("inner", line, ""))
            statement_start = i + 1
        elif c == "}":
            if stack:
                kind, first, name = stack.pop()
                if kind == "function":
                    yield name, first, line - first + 1
            statement_start = i + 1
        elif c == ";":
            statement_start = i + 1
        elif c == ":" and text[i - 1:i + 1] != "::" and text[i:i + 2] != "::":
            # `public:` / `private:` labels end a statement in a class body
            prefix = text[statement_start:i].strip()
            if prefix in ("public", "private", "protected"):
                statement_start = i + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["src"])
    parser.add_argument("--limit", type=int, default=120)
    parser.add_argument("--exclude", action="append", default=[],
                        help="path prefix to leave out (repeatable)")
    args = parser.parse_args()
    found = []
    for root in args.paths:
        walk = [(root, [], [os.path.basename(root)])] if os.path.isfile(root) else None
        for directory, _, files in walk or os.walk(root):
            for name in files:
                path = root if walk else os.path.join(directory, name)
                if not path.endswith(SOURCE_EXTENSIONS):
                    continue
                if any(path.startswith(prefix) for prefix in args.exclude):
                    continue
                for function, first, length in functions(path):
                    if length > args.limit:
                        found.append((length, path, first, function))
    for length, path, first, function in sorted(found, reverse=True):
        print(f"{length:5d}  {path}:{first}  {function}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
