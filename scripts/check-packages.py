#!/usr/bin/env python3
"""The Debian packages are listed once (deploy/packages/), and everything that installs or names
them agrees with the lists (make deploy-check):

1. scripts/install-deps.sh installs exactly build.txt and test.txt (`--print`).
2. deploy/Dockerfile's build stage installs build.txt and its runtime stage runtime.txt, each
   copied in and read, and no `apt-get install` in it names a package of its own.
3. Every library the binary links (the `link` lines of the C modules' module maps, and the
   archives of Libraries/static) comes from a package in build.txt (its `lib<name>.so` or
   archive, by `dpkg -S`), and the shared library the image's binary loads instead (what that
   `.so` points to) from a package in runtime.txt.
4. README.md names every package of build.txt and test.txt (in backquotes).

Usage: scripts/check-packages.py   (exit 1 and one line per disagreement)
"""

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
problems = []


def listed(name):
    with open(f"{ROOT}/deploy/packages/{name}") as packages:
        return [line.split("#", 1)[0].strip() for line in packages if line.split("#", 1)[0].strip()]


build, runtime, test = listed("build.txt"), listed("runtime.txt"), listed("test.txt")

# 1. install-deps.sh reads the lists.
printed = subprocess.run([f"{ROOT}/scripts/install-deps.sh", "--print"], capture_output=True, text=True, check=True)
if sorted(set(printed.stdout.split())) != sorted(set(build + test)):
    problems.append(
        "scripts/install-deps.sh --print is not build.txt + test.txt: "
        f"{sorted(set(printed.stdout.split()) ^ set(build + test))} differ")

# 2. The Dockerfile's stages install from the lists and name no package of their own.
with open(f"{ROOT}/deploy/Dockerfile") as dockerfile:
    text = re.sub(r"\\\n", " ", dockerfile.read())
stages = []
for line in text.splitlines():
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    if line.upper().startswith("FROM "):
        stages.append([])
    elif stages:
        stages[-1].append(line)
if len(stages) != 2:
    problems.append(f"deploy/Dockerfile: expected two stages (build, runtime), found {len(stages)}")
for stage, name in zip(stages, ("build.txt", "runtime.txt")):
    copied = [line.split()[-1] for line in stage if re.match(rf"COPY\s+deploy/packages/{re.escape(name)}\s", line)]
    if not copied:
        problems.append(f"deploy/Dockerfile: the stage that should install deploy/packages/{name} does not copy it")
    for line in stage:
        if not line.startswith("RUN ") or "apt-get install" not in line:
            continue
        for command in re.split(r"&&|;|\|", line[4:]):
            words = command.split()
            if "install" not in words or words[:1] != ["apt-get"] and "apt-get" not in words:
                continue
            named = [word for word in words[words.index("install") + 1:] if not word.startswith("-")]
            if named:
                problems.append(f"deploy/Dockerfile: `apt-get install` names {named}: list them in deploy/packages/{name}")
        if copied and not any(f"xargs apt-get install" in line and path in line for path in copied):
            problems.append(f"deploy/Dockerfile: no `... {copied[0]} | xargs apt-get install` for deploy/packages/{name}")


def owner(path):
    found = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    if found.returncode != 0:
        # usrmerge: dpkg may know the file under /lib rather than /usr/lib.
        alternative = path.replace("/usr/lib/", "/lib/", 1)
        found = subprocess.run(["dpkg", "-S", alternative], capture_output=True, text=True)
    if found.returncode != 0:
        return None
    return found.stdout.split(":", 1)[0].strip()


# 3. The libraries the binary links, their -dev packages and their shared libraries.
names = set()
for modulemap in glob.glob(f"{ROOT}/Sources/*/module.modulemap"):
    with open(modulemap) as text_file:
        names.update(re.findall(r'^\s*link\s+"([^"]+)"', text_file.read(), re.M))
for archive in glob.glob(f"{ROOT}/Libraries/static/lib*.a"):
    names.add(os.path.basename(archive)[3:-2])
multiarch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip() or "x86_64-linux-gnu"
for name in sorted(names):
    archive = f"{ROOT}/Libraries/static/lib{name}.a"
    candidates = [os.path.join(os.path.dirname(os.path.realpath(archive)), f"lib{name}.so")] if os.path.exists(archive) else []
    candidates.append(f"/usr/lib/{multiarch}/lib{name}.so")
    development = next((path for path in candidates if os.path.exists(path)), None)
    if development is None:
        problems.append(f"lib{name}: no lib{name}.so on this machine (scripts/install-deps.sh installs deploy/packages/build.txt)")
        continue
    package = owner(development)
    if package not in build:
        problems.append(f"lib{name}: {development} comes from {package}, which deploy/packages/build.txt does not list")
    shared = os.path.realpath(development)
    shared_package = owner(shared)
    if shared_package not in runtime:
        problems.append(f"lib{name}: the image's binary loads {shared} from {shared_package}, which deploy/packages/runtime.txt does not list")

# 4. The README names them.
with open(f"{ROOT}/README.md") as readme:
    named = set(re.findall(r"`([a-z0-9][a-z0-9.+-]+)`", readme.read()))
for package in build + test:
    if package not in named:
        problems.append(f"README.md does not name `{package}` (deploy/packages/build.txt, test.txt)")

if problems:
    print("check-packages:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"check-packages: ok ({len(build)} build, {len(runtime)} runtime, {len(test)} test packages; {len(names)} libraries)")
