"""Crash recovery, as the documentation's page "What lands in results/" (docs/outputs.md)
documents it.

The quick pipeline runs in a temporary copy of the workflow (its own ``.snakemake``, so that the
``--unlock`` below cannot touch the repository's) and is killed with SIGKILL, Snakemake and
every job process (its process group), while an estimator job is running and some estimator
outputs exist but not all.  It is then recovered with exactly the two commands of the page's
``<!-- ci:resume-commands -->`` block (the data mirror pointed at the test's), and must give the
results of the uninterrupted quick run (the session's ``quick_run``, shared with
tests/test_workflow.py) file for file, as .ci/compare_results.py compares the SLURM run: ``.npz``
array by array (their zip members carry write times), timing tables without their timing
columns, everything else, figures included, byte for byte.  No temporary file may be left.
"""

import base64
import importlib.util
import os
import re
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest

from workflow_config import MIRROR, ROOT, SNAKEMAKE, copy_workflow, needs_mirror

pytestmark = [
    needs_mirror,
    pytest.mark.slow,
    pytest.mark.workflow,
    pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs Linux /proc"),
]

# Outputs of the estimator rules (wallach2009_shard, foulds_smyth_shard, capdevila2018_loglik,
# capdevila2018_accuracy and _accuracy_released), relative to the working directory.
ESTIMATOR_OUTPUT = re.compile(
    r"results/(wallach2009/shards|foulds_smyth/[^/]+/shards|capdevila2018/f[23][^/]*)/.+\.csv"
)
PAGE_MIRROR = "data_mirror=MIRROR"  # as the page writes it (a placeholder)
PAGE = ROOT / "docs" / "outputs.md"


def _compare_results():
    path = ROOT / ".ci" / "compare_results.py"
    spec = importlib.util.spec_from_file_location("compare_results", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def resume_commands(page: str) -> list[list[str]]:
    """The commands of the sh block after ``<!-- ci:resume-commands -->``, mirror replaced."""
    assert "<!-- ci:resume-commands -->" in page, f"{PAGE} has no <!-- ci:resume-commands -->"
    marker = page.index("<!-- ci:resume-commands -->")
    block = re.search(r"```sh\n(.*?)```", page[marker:], re.S)
    assert block, f"{PAGE}: no ```sh block after <!-- ci:resume-commands -->"
    commands = []
    for line in block.group(1).splitlines():
        argv = shlex.split(line)
        assert argv[0] == "snakemake" and PAGE_MIRROR in argv, line
        commands.append([*SNAKEMAKE, *(f"data_mirror={MIRROR}" if a == PAGE_MIRROR else a
                                       for a in argv[1:])])
    return commands


def _estimators(workdir: Path) -> tuple[list[str], dict[str, float]]:
    """(finished estimator outputs, running estimator output -> seconds since it started).

    A job's outputs are marked incomplete under .snakemake/incomplete (the file name is the
    url-safe base64 of the output path) while it runs.
    """
    done = [str(p.relative_to(workdir)) for p in (workdir / "results").rglob("*.csv")]
    running = {}
    markers = workdir / ".snakemake" / "incomplete"
    for marker in markers.iterdir() if markers.is_dir() else ():
        try:
            path = base64.urlsafe_b64decode(marker.name).decode()
            age = time.time() - marker.stat().st_mtime
        except (ValueError, OSError):
            continue
        if ESTIMATOR_OUTPUT.fullmatch(path):
            running[path] = age
    return [p for p in done if ESTIMATOR_OUTPUT.fullmatch(p) and p not in running], running


def _live_group_members(pgid: int) -> list[int]:
    """Processes of process group ``pgid`` that are not zombies."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _ppid, group = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, IndexError):
            continue
        if int(group) == pgid and state != "Z":
            members.append(int(stat.parent.name))
    return members


def _kill_mid_estimators(cmd, workdir: Path, total: int) -> tuple:
    """Run ``cmd``; SIGKILL its process group once an estimator job has run for 0.5 s while
    2 or more of the ``total`` estimator outputs exist.  Returns (finished, running) then.

    No deadline: the run bounds the wait, as it either reaches that state or ends (a failure).
    """
    with open(workdir / "interrupted.log", "w") as log:
        proc = subprocess.Popen(cmd, cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        while proc.poll() is None:
            done, running = _estimators(workdir)
            if 2 <= len(done) < total and any(age >= 0.5 for age in running.values()):
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"no estimator job to interrupt (exit {proc.poll()}); "
                        f"see {workdir / 'interrupted.log'}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    # SIGKILL ends every member as soon as the kernel schedules it, however loaded the machine;
    # the generous bound only turns a member stuck in uninterruptible sleep (a true hang) into
    # this failure instead of a hung test.
    patience = time.monotonic() + 600
    while _live_group_members(proc.pid) and time.monotonic() < patience:
        time.sleep(0.1)
    assert _live_group_members(proc.pid) == [], "job processes survived the kill"
    return done, running


def test_killed_pipeline_recovers_with_the_readme_commands(tmp_path, quick_run):
    reference, result = quick_run
    assert result.returncode == 0, result.stderr[-4000:]
    total = sum(1 for p in (reference / "results").rglob("*.csv")
                if ESTIMATOR_OUTPUT.fullmatch(str(p.relative_to(reference))))
    unlock, resume = resume_commands(PAGE.read_text())
    assert "--unlock" in unlock and "--rerun-incomplete" in resume
    workdir = copy_workflow(tmp_path / "wf")

    run = [*SNAKEMAKE, "--cores", "2", "--configfile", "config/quick.yaml",
           "--config", f"data_mirror={MIRROR}"]
    done, running = _kill_mid_estimators(run, workdir, total)
    assert running and 2 <= len(done) < total, (done, running)
    assert (workdir / ".snakemake" / "locks").is_dir()  # what the kill leaves: a locked directory
    blocked = subprocess.run(resume, cwd=workdir, capture_output=True, text=True)
    assert blocked.returncode != 0 and "LockException" in blocked.stdout + blocked.stderr

    for cmd in (unlock, resume):
        recovered = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
        assert recovered.returncode == 0, (shlex.join(cmd), recovered.stderr[-4000:])

    compare = _compare_results()
    ours, theirs = workdir / "results", reference / "results"
    files = compare.outputs(theirs)
    assert files == compare.outputs(ours)
    differ = [str(rel) for rel in sorted(files) if not compare.same(rel, theirs / rel, ours / rel)]
    assert differ == [], f"differ from the uninterrupted run: {differ}"
    leftovers = [str(p.relative_to(workdir)) for d in ("results", "resources")
                 for p in (workdir / d).rglob("*") if p.name.endswith(".part")]
    assert leftovers == [], "temporary files left"
    assert not [p for p in (workdir / ".snakemake" / "incomplete").rglob("*") if p.is_file()]
