#!/usr/bin/env python3
"""Every documented image of Breakwater carries the version `breakwater --version` prints
(Sources/BreakwaterCore/Stats/BuildInfo.swift), never `latest` or no tag (which means `latest`):
the `-t` of each `docker build`/`podman build`, the image of each `docker run`/`podman run`, and
every `breakwater:<tag>` reference, in README.md, docs/, deploy/ (the Dockerfile's comments and the
Kubernetes manifests included) and the Makefile (make deploy-check).

Usage: scripts/check-image-tags.py   (exit 1 and one line per image that does not)
"""

import glob
import os
import re
import shlex
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
with open(f"{ROOT}/Sources/BreakwaterCore/Stats/BuildInfo.swift") as source:
    VERSION = re.search(r'static let version = "([^"]+)"', source.read()).group(1)
# The Makefile computes the same version from the same file.
ACCEPTED_TAGS = {VERSION, "$(VERSION)"}
# `docker run` options that take no value; every other option takes one (unless written --x=y).
FLAGS = {"-d", "--detach", "--rm", "-i", "-t", "-it", "-ti", "--interactive", "--tty", "--init", "--read-only",
         "--privileged", "-P", "--publish-all", "..."}

problems = []


def logical_lines(path):
    """Lines with their continuations joined; a comment's continuation is the next comment line."""
    with open(path, encoding="utf-8") as text:
        raw = text.read().splitlines()
    joined, start, pending = [], None, ""
    for number, line in enumerate(raw, start=1):
        body = line
        if pending:
            body = re.sub(r"^\s*#?\s*", "", line)
        else:
            start = number
        if body.rstrip().endswith("\\"):
            pending += body.rstrip()[:-1] + " "
            continue
        joined.append((start, pending + body))
        pending = ""
    return joined


def is_breakwater(image):
    return re.fullmatch(r"([A-Za-z0-9.:-]+/)*breakwater(:[^\s]*)?", image) is not None


def check_image(where, image):
    if not is_breakwater(image):
        return
    tag = image.split("/")[-1].partition(":")[2]
    if tag not in ACCEPTED_TAGS:
        problems.append(f"{where}: image {image} is not tagged with the version {VERSION} (BuildInfo.swift)")


def words_of(command):
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def check_command(where, line):
    for match in re.finditer(r"\b(docker|podman)\s+(build|run|create)\b(.*)", line):
        verb, rest = match.group(2), words_of(match.group(3).split("&&")[0].split("|")[0])
        if verb == "build":
            for index, word in enumerate(rest):
                if word in ("-t", "--tag") and index + 1 < len(rest):
                    check_image(where, rest[index + 1])
                elif word.startswith(("--tag=", "-t=")):
                    check_image(where, word.split("=", 1)[1])
            continue
        index = 0
        while index < len(rest):
            word = rest[index]
            if word in FLAGS or (word.startswith("--") and "=" in word):
                index += 1
            elif word.startswith("-"):
                index += 2
            else:
                check_image(where, word)
                break


files = [f"{ROOT}/README.md", f"{ROOT}/Makefile", f"{ROOT}/deploy/Dockerfile"]
files += glob.glob(f"{ROOT}/docs/**/*.md", recursive=True) + glob.glob(f"{ROOT}/deploy/**/*.yaml", recursive=True)
for path in sorted(files):
    name = os.path.relpath(path, ROOT)
    for number, line in logical_lines(path):
        where = f"{name}:{number}"
        check_command(where, line)
        for image in re.findall(r"(?:^|[\s\"'`/])(breakwater:(?:latest|[0-9$][^\s\"'`]*))", line):
            image = image.rstrip(".,;")
            if image.endswith(")") and "(" not in image:
                image = image[:-1]  # prose: (breakwater:0.4.0)
            check_image(where, image)
        for image in re.findall(r"image:\s*[\"']?([^\s\"']*breakwater[^\s\"']*)", line):
            check_image(where, image)

if problems:
    print("check-image-tags:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"check-image-tags: ok (breakwater:{VERSION})")
