"""Claiming: which inbox paths may be dropped files, when each is stable, and the claim itself,
a rename into a work folder of its own, atomic, so that a file is taken by one watcher once.

Events and rescans only say where to look: every decision here is made from lstat.  A file that
cannot be renamed stays in the inbox, logged once; one refused for what it is (a link, a pipe, a
name that is not UTF-8) is still claimed, so that it leaves the inbox and ends in failed/.
"""
from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
from pathlib import Path, PurePosixPath

from pipelines import logs
from pipelines.intake.context import LOG_STAGE, Context
from pipelines.intake.rules import Sighting, Signature, ignored, is_outage, is_stable, observe

Claim = tuple[PurePosixPath, Path, "str | None"]
"""A claimed file: the name the ledger keeps, where the claim put it, why its name is refused."""
Sightings = dict[Path, Sighting | None]
"""The candidates: each path that may be a dropped file, with how it was last seen (None: not yet)."""


def candidate(sightings: Sightings, inbox: Path, path: Path) -> None:
    """A path an event named: a file to watch, a folder renamed in (scanned), or nothing."""
    try:
        relative = path.relative_to(inbox)
    except ValueError:
        return
    if not relative.parts or ignored(PurePosixPath(relative.as_posix())) or not real_folders(
            inbox, relative.parts[:-1], missing_ok=False):
        return
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        sightings.pop(path, None)
        return
    except OSError:
        return
    if stat.S_ISDIR(st.st_mode):
        scan(sightings, inbox, path)
    else:
        sightings.setdefault(path, None)


def scan(sightings: Sightings, inbox: Path, top: Path) -> None:
    """Every entry under `top` that may be a dropped file; symbolic links are not entered."""
    folders = [top]
    while folders:
        folder = folders.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)  # claimed in name order
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            relative = PurePosixPath(path.relative_to(inbox).as_posix())
            if entry.is_dir(follow_symlinks=False):
                if not entry.name.startswith("."):
                    folders.append(path)
            elif not ignored(relative):
                sightings.setdefault(path, None)


def claim_stable(context: Context, sightings: Sightings, unclaimable: dict[Path, Signature], now: float,
                 stop: threading.Event) -> list[Claim]:
    """At most a batch's worth of claims a tick, recorded together in one transaction: a burst
    flows into batches at once, and a stop request never waits behind a thousand claims.

    `unclaimable`: the files left in the inbox, each logged once per version of it."""
    claims: list[Claim] = []
    for path, previous in list(sightings.items()):
        if len(claims) >= context.settings.watch_batch_max_files or stop.is_set():
            break
        try:
            st = os.lstat(path)
        except OSError:
            del sightings[path]
            continue
        sighting = observe(previous, Signature.of(st), now)
        sightings[path] = sighting
        if is_stable(sighting, now, context.settings.watch_stable_s) and (
                claim := _claim(context, unclaimable, path, st)):
            del sightings[path]
            if claim is not True:
                claims.append(claim)
    return claims


def _claim(context: Context, unclaimable: dict[Path, Signature], path: Path, st: os.stat_result) -> Claim | bool:
    """Rename the file into its own work folder; True when it went away meanwhile, False
    to try again later (a file that cannot be renamed cannot be moved to failed/ either:
    it stays, logged once)."""
    drop = context.drop
    dropped = path.relative_to(drop.inbox).as_posix()
    name, target = drop.claim_path(dropped, context.name_max)
    try:
        target.parent.mkdir(parents=True)
        os.rename(path, target)
    except FileNotFoundError:  # moved away or deleted since it was seen
        remove_empty_folders(target.parent, drop.work)
        return True
    except OSError as error:  # its folder not ours to write, a path over PATH_MAX in the work folder
        remove_empty_folders(target.parent, drop.work)
        if is_outage(error):
            raise
        _log_once(unclaimable, path, st, f"cannot be claimed: {error.strerror}")
        return False
    return name, target, drop.refusal_in_work(target)


def _log_once(unclaimable: dict[Path, Signature], path: Path, st: os.stat_result, why: str) -> None:
    signature = Signature.of(st)
    if unclaimable.get(path) != signature:
        unclaimable[path] = signature
        logs.log("file left in the inbox", stage=LOG_STAGE, batch_id=None, level=logging.WARNING,
                 file=str(path), why=why)


def real_folders(top: Path, parts: tuple[str, ...], *, missing_ok: bool) -> bool:
    """No folder on the way from `top` down `parts` is a symbolic link or a file (one not there
    yet counts as a folder when `missing_ok`): the watcher never reaches out of the inbox, nor
    writes where a link points that was dropped as "x" and lies in failed/ when "x/y" comes."""
    folder = top
    for part in parts:
        folder = folder / part
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                return False
        except FileNotFoundError:
            return missing_ok
        except OSError:
            return False
    return True


def remove_empty_folders(folder: Path, stop_at: Path, below_only: bool = True) -> None:
    """Remove `folder` and its empty parents up to `stop_at` (a claim's work folder, once
    its file left); with below_only=False, also empty folders inside it."""
    if not below_only:
        for inner, _dirs, _files in sorted(os.walk(folder, followlinks=False), key=lambda w: -len(w[0])):
            with contextlib.suppress(OSError):
                os.rmdir(inner)
    while folder != stop_at and folder.is_relative_to(stop_at):
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent
