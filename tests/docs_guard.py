#!/usr/bin/env python3
"""Checks README.md and docs/ read as reference, not as a lab notebook, and
extracts the C++ snippets they mark as programs so that the build compiles them.

  docs_guard.py check SOURCE_DIR              fails naming file and line on a finding
  docs_guard.py snippets SOURCE_DIR OUT_DIR   writes each marked snippet to OUT_DIR/NAME.cpp
                                              and prints the names, one per line

A snippet is marked by the line `<!-- compile: program -->` right before its
```cpp fence: it is a whole program (with main) and compiles as it is.

What `check` refuses:
- README.md over 120 lines;
- the words "session" and "issue N" anywhere in README.md and docs/ (outside
  the generated report's provenance line);
- commit hashes in prose (outside docs/performance.md, whose tables name the
  commits they compare);
- dated diary entries outside docs/performance.md and docs/reproduction/: a
  paragraph, bullet or bold lead that starts with a date, and "tried and not
  kept" stories (what was tried belongs to git history);
- a relative link to a file that does not exist.
"""
import pathlib
import re
import sys

MARK = "<!-- compile: program -->"


def documents(root):
    yield root / "README.md"
    yield from sorted((root / "docs").rglob("*.md"))
    yield from sorted((root / "examples").glob("*.md"))


def check(root):
    problems = []
    readme = (root / "README.md").read_text().splitlines()
    if len(readme) > 120:
        problems.append(f"README.md: {len(readme)} lines, at most 120 (a front page; reference goes to docs/)")
    date = r"20\d\d-[01]\d-[0-3]\d"
    for path in documents(root):
        rel = path.relative_to(root).as_posix()
        performance = rel == "docs/performance.md"
        reproduction = rel.startswith("docs/reproduction/")
        fence = False
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if line.lstrip().startswith("```"):
                fence = not fence
            if reproduction and line.startswith("Made from commit"):
                continue  # the generated report's provenance line
            where = f"{rel}:{n}"
            if re.search(r"\bsessions?\b", line, re.I):
                problems.append(f"{where}: the word 'session' (docs describe the software, not its making)")
            if re.search(r"\bissues? #?\d+", line, re.I):
                problems.append(f"{where}: an issue number (name the target by what it is)")
            if not performance and not fence:
                for h in re.findall(r"(?<![\w/#.-])[0-9a-f]{7,40}(?![\w.-])", line):
                    if re.search(r"[a-f]", h) and re.search(r"\d", h):
                        problems.append(f"{where}: commit hash {h} (history belongs to git and CHANGELOG.md)")
            if not performance and not reproduction:
                if re.match(rf"\s*(?:[-*]\s+)?(?:\*\*[^*]+\*\*\s*)?\(?{date}", line) or \
                        re.search(rf"\*\*[^*]+\*\*\s*\({date}", line):
                    problems.append(f"{where}: a dated diary entry (figures go to docs/performance.md)")
                if re.search(r"tried(,)? and not kept|not kept\b", line, re.I):
                    problems.append(f"{where}: a 'tried and not kept' story (it belongs to commit messages)")
            if not fence:
                for target in re.findall(r"\]\(([^)\s]+)\)", line):
                    if re.match(r"[a-z]+:", target) or target.startswith("#"):
                        continue
                    if not (path.parent / target.split("#")[0]).exists():
                        problems.append(f"{where}: a link to {target}, which does not exist")
    for p in problems:
        print(p)
    if problems:
        sys.exit(f"docs_guard: {len(problems)} problem(s)")
    print("docs_guard: README.md and docs/ read as reference")


def snippets(root, out):
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for path in documents(root):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.strip() != MARK:
                continue
            if i + 1 >= len(lines) or not lines[i + 1].startswith("```cpp"):
                sys.exit(f"{path.relative_to(root)}:{i + 1}: {MARK} must come right before a ```cpp fence")
            end = next(k for k in range(i + 2, len(lines)) if lines[k].startswith("```"))
            stem = re.sub(r"[^A-Za-z0-9]+", "_", path.relative_to(root).with_suffix("").as_posix())
            name = f"snippet_{stem}_{i + 1}"
            text = f"// {path.relative_to(root).as_posix()}:{i + 3}, extracted by tests/docs_guard.py\n"
            text += "\n".join(lines[i + 2:end]) + "\n"
            target = out / f"{name}.cpp"
            if not target.exists() or target.read_text() != text:
                target.write_text(text)
            names.append(name)
    print("\n".join(names))


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    root = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ".")
    if mode == "check":
        check(root)
    elif mode == "snippets":
        snippets(root, pathlib.Path(sys.argv[3]))
    else:
        sys.exit(__doc__)
