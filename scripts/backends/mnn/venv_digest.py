"""The digest of a virtual environment's files, to tell that nothing in it changed.

    python venv_digest.py record VENV   writes VENV/.pad-conformance-digest
    python venv_digest.py check VENV    exits 2, naming each file added, removed or changed

scripts/setup-mnn records it after installing; scripts/backends/mnn/worker.py checks it when it
starts and when it ends, and scripts/mnn-gate after the whole run: MNN's converter command
installs packages behind its user's back (docs/results.md), so a run that changed the venv
must not pass.
"""

import hashlib
import json
import os
import stat
import sys

DIGEST = ".pad-conformance-digest"


def digest(venv):
    """{relative path: [kind, size, sha256]} of every entry under `venv` but the digest file;
    symbolic links by their target, never followed."""
    files = {}
    for directory, dirs, names in os.walk(venv):
        dirs.sort()
        for name in sorted(dirs + names):
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, venv)
            if relative == DIGEST:
                continue
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                files[relative] = ["link", 0, os.readlink(path)]
            elif stat.S_ISDIR(info.st_mode):
                files[relative] = ["dir", 0, ""]
            elif stat.S_ISREG(info.st_mode):
                sha = hashlib.sha256()
                with open(path, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        sha.update(block)
                files[relative] = ["file", info.st_size, sha.hexdigest()]
            else:
                files[relative] = ["other", 0, oct(info.st_mode)]
    return files


def record(venv):
    with open(os.path.join(venv, DIGEST), "w", encoding="utf-8") as f:
        json.dump(digest(venv), f, indent=0, sort_keys=True)


def changes(venv):
    """The entries added, removed or changed since `record`, as "added PATH" and so on; a
    missing or unreadable digest is itself a change."""
    try:
        with open(os.path.join(venv, DIGEST), encoding="utf-8") as f:
            recorded = json.load(f)
    except (OSError, ValueError) as error:
        return [f"no readable digest {os.path.join(venv, DIGEST)} ({error}): run scripts/setup-mnn"]
    now = digest(venv)
    found = [f"added {p}" for p in sorted(now.keys() - recorded.keys())]
    found += [f"removed {p}" for p in sorted(recorded.keys() - now.keys())]
    found += [f"changed {p}" for p in sorted(now.keys() & recorded.keys()) if now[p] != recorded[p]]
    return found


def main(argv):
    if len(argv) != 3 or argv[1] not in ("record", "check"):
        print("usage: venv_digest.py record|check VENV", file=sys.stderr)
        return 2
    venv = argv[2]
    if argv[1] == "record":
        record(venv)
        return 0
    found = changes(venv)
    for change in found:
        print(f"venv_digest: {venv}: {change}", file=sys.stderr)
    return 2 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
