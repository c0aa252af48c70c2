#!/usr/bin/env python3
"""Runs docs/GETTING-STARTED.md as written and compares what its commands print with the page.

The page's own first section says how it is read (kept short there; the details are here):

- A ```sh block is run. All of them run in order in one bash process, so `cd`, `export` and the
  jobs a block starts with `&` carry over to the next, exactly as in the reader's one terminal.
  The shell has `set -e -o pipefail`: a command that fails stops the run, and the block is named.
- A ```text block right after a ```sh block (prose between is fine, another code block is not)
  is what that block prints, standard output and error together. Compared line by line, trailing
  spaces and carriage returns removed, blank lines at either end ignored. `<...>` (a word or a few
  in angle brackets: `<time>`, `<seconds>`, `<version>`) stands for any non-empty text within
  its line; a line holding only `...` stands for any number of lines.
- A ```yaml block whose first line is `# <file name>` is written to that file in the folder the
  commands before it left the shell in (`cd` included); other yaml blocks are illustrations.
- A block whose first line starts with `# Not run by the guide's test:` is skipped (the rest of
  that line says why, to the reader as well).

Where it runs: a fresh temporary folder holding `breakwater/`, which stands for the clone of
step 1 (its `deploy/` is the repository's), and `bin/breakwater`, the binary given, first on
PATH. The guide uses fixed ports (8080, 9090, 4000, 9091), so it runs in a network namespace of
its own (`unshare --net`, or `unshare --net --map-root-user` without root), where they are free
whatever else runs on the machine; without namespaces it runs on the machine's loopback only when
those ports are free, and says so otherwise.

Every process the guide starts is in one process group, which is stopped at the end (SIGTERM,
then SIGKILL after 5 s), whatever happened, and checked gone; this process is their subreaper,
so that none is left a zombie either. The run is bounded
(GUIDE_TIMEOUT, default 90 s).

Usage: scripts/getting-started.py BINARY [GUIDE]      (make test, through scripts/getting-started.sh)
"""

import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP_MARK = "# Not run by the guide's test:"
PLACEHOLDER = re.compile(r"<[a-z][a-z0-9 _-]*>")
FENCE = re.compile(r"^```([A-Za-z0-9_-]*)\s*$")


class Block:
    def __init__(self, language, line, lines):
        self.language = language
        self.line = line  # the fence's line in the guide, 1-based
        self.lines = lines
        self.expected = None  # the text block that follows a sh block

    @property
    def skipped(self):
        return bool(self.lines) and self.lines[0].startswith(SKIP_MARK)

    @property
    def file_name(self):
        if self.language != "yaml" or not self.lines:
            return None
        match = re.fullmatch(r"#\s*([A-Za-z0-9._-]+\.ya?ml)\s*", self.lines[0])
        return match.group(1) if match else None


def read_blocks(path):
    """The fenced blocks of the guide, each text block attached to the sh block before it."""
    blocks, current, previous = [], None, None
    with open(path, encoding="utf-8") as guide:
        for number, raw in enumerate(guide, start=1):
            line = raw.rstrip("\n")
            if current is None:
                match = FENCE.match(line)
                if match and match.group(1):
                    current = Block(match.group(1), number, [])
                elif line.startswith("```"):
                    sys.exit(f"{path}:{number}: a code block without a language: say sh, text or yaml")
                continue
            if line.startswith("```"):
                block, current = current, None
                if block.language == "text":
                    if previous is None or previous.language != "sh" or previous.expected is not None:
                        sys.exit(f"{path}:{block.line}: a text block that does not follow a sh block")
                    previous.expected = block
                elif block.language in ("sh", "yaml"):
                    blocks.append(block)
                else:
                    sys.exit(f"{path}:{block.line}: unknown block language {block.language!r} (sh, text or yaml)")
                previous = block
                continue
            current.lines.append(line)
    if current is not None:
        sys.exit(f"{path}:{current.line}: a code block that is never closed")
    return blocks


def script_for(blocks, work):
    """One bash script running the guide's blocks in order, each one's output in its own file."""
    out = [
        "set -e -o pipefail",
        f"cd {quote(work)}/breakwater",
    ]
    for index, block in enumerate(blocks):
        if block.skipped:
            continue
        out.append(f"echo {block.line} >{quote(work)}/.current")
        if block.language == "yaml":
            if block.file_name is None:
                continue
            terminator = "GUIDE_FILE_END"
            if any(line == terminator for line in block.lines):
                sys.exit(f"line {block.line}: the block holds {terminator}")
            out.append(f"cat >{quote(block.file_name)} <<'{terminator}'")
            out.extend(block.lines)
            out.append(terminator)
            continue
        out.append("{")
        out.extend(block.lines)
        out.append(f"}} >{quote(work)}/.output/{index} 2>&1 </dev/null")
    out.append(f"echo done >{quote(work)}/.current")
    return "\n".join(out) + "\n"


def quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def line_pattern(expected):
    parts = PLACEHOLDER.split(expected)
    return re.compile(".+?".join(re.escape(part) for part in parts) + r"\Z")


def matches(expected, actual):
    """True when the actual lines are the expected ones, a `...` line matching any run of lines."""
    patterns = [None if line.strip() == "..." else line_pattern(line) for line in expected]

    @functools.lru_cache(maxsize=None)
    def from_here(i, j):
        if i == len(patterns):
            return j == len(actual)
        if patterns[i] is None:
            return from_here(i + 1, j) or (j < len(actual) and from_here(i, j + 1))
        return j < len(actual) and bool(patterns[i].match(actual[j])) and from_here(i + 1, j + 1)

    return from_here(0, 0)


def trimmed(lines):
    lines = [line.rstrip("\r \t") for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def guide_ports(blocks):
    ports = set()
    for block in blocks:
        if not block.skipped:
            for line in block.lines:
                ports.update(int(port) for port in re.findall(r"(?:127\.0\.0\.1|0\.0\.0\.0):(\d+)", line))
    return sorted(ports)


def namespace_prefix():
    """The command that gives the run a loopback of its own, or None."""
    for prefix in (["unshare", "--net"], ["unshare", "--net", "--map-root-user"]):
        probe = subprocess.run(prefix + ["ip", "link", "set", "lo", "up"], capture_output=True)
        if probe.returncode == 0:
            return prefix
    return None


def port_taken(port):
    import socket

    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def group_members(group):
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields: state ppid pgrp ...; a zombie is already gone as far as ports and files go.
        if int(fields[2]) == group and fields[0] != "Z":
            members.append(int(entry))
    return members


def become_subreaper():
    """Orphans of the run (a job whose shell is gone) become this process's children, to be reaped."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def stop_group(group):
    """SIGTERM to every process of the run, SIGKILL to what is left after 5 s; True when none is left."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            reap()
            if not group_members(group):
                return True
            time.sleep(0.1)
    return not group_members(group)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    binary = os.path.abspath(sys.argv[1])
    repository = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    guide = os.path.abspath(sys.argv[2] if len(sys.argv) == 3 else os.path.join(repository, "docs/GETTING-STARTED.md"))
    timeout = float(os.environ.get("GUIDE_TIMEOUT", "90"))
    blocks = read_blocks(guide)
    name = os.path.relpath(guide, repository)

    work = tempfile.mkdtemp(prefix="bw-guide-")
    os.makedirs(f"{work}/breakwater")
    os.makedirs(f"{work}/bin")
    os.makedirs(f"{work}/home")
    os.makedirs(f"{work}/.output")
    os.symlink(f"{repository}/deploy", f"{work}/breakwater/deploy")
    os.symlink(binary, f"{work}/bin/breakwater")
    with open(f"{work}/guide.sh", "w") as script:
        script.write(script_for(blocks, work))

    prefix = namespace_prefix()
    if prefix is None:
        taken = [port for port in guide_ports(blocks) if port_taken(port)]
        if taken:
            sys.exit(f"{name}: no network namespace here, and the guide's ports {taken} are taken on this machine")
        print(f"{name}: no network namespace here; running on the machine's loopback")
        command = ["bash", f"{work}/guide.sh"]
    else:
        command = prefix + ["bash", "-c", f'ip link set lo up && exec bash {quote(work)}/guide.sh']
    environment = dict(os.environ, PATH=f"{work}/bin:{os.environ['PATH']}", HOME=f"{work}/home")
    environment.pop("BREAKWATER_ADMIN_TOKEN", None)

    become_subreaper()
    started = time.monotonic()
    process = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL, preexec_fn=os.setsid)
    timed_out = False
    try:
        status = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out, status = True, None
    finally:
        stopped = stop_group(process.pid)
        if process.poll() is None:
            process.kill()
        process.wait()
        reap()
    took = time.monotonic() - started

    reached = "?"
    if os.path.exists(f"{work}/.current"):
        with open(f"{work}/.current") as current:
            reached = current.read().strip()
    failures = []
    if not stopped:
        failures.append(f"processes of the run still alive after SIGKILL: {group_members(process.pid)}")
    if timed_out or status != 0:
        block = next((b for b in blocks if str(b.line) == reached), None)
        why = f"no end within {timeout:.0f} s" if timed_out else f"exit status {status}"
        failures.append(f"{name}:{reached}: the block starting here failed ({why})")
        if block is not None:
            failures.append("  " + "\n  ".join(block.lines))
            output = f"{work}/.output/{blocks.index(block)}"
            if os.path.exists(output):
                with open(output, errors="replace") as printed:
                    failures.append("printed:\n" + printed.read())
    for index, block in enumerate(blocks):
        if block.expected is None or block.skipped:
            continue
        output = f"{work}/.output/{index}"
        if not os.path.exists(output):
            continue  # not reached: the failure above says where it stopped
        with open(output, errors="replace") as printed:
            actual = trimmed(printed.read().splitlines())
        expected = trimmed(block.expected.lines)
        if not matches(expected, actual):
            failures.append(
                f"{name}:{block.expected.line}: the output shown is not what the block at line {block.line} printed\n"
                + "shown:\n    " + "\n    ".join(expected) + "\nprinted:\n    " + "\n    ".join(actual))

    run = sum(1 for block in blocks if block.language == "sh" and not block.skipped)
    compared = sum(1 for block in blocks if block.expected is not None and not block.skipped)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        print(f"getting-started: FAILED after {took:.1f} s (kept for a look: {work})", file=sys.stderr)
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print(f"getting-started: ok: {run} command blocks run, {compared} outputs compared, in {took:.1f} s")


if __name__ == "__main__":
    main()
