"""The SLURM profile (workflow/profiles/slurm/config.yaml): valid, complete, and splitting the
paper configuration into many estimator jobs bundled into group submissions.

The dry run uses the profile with ``--executor dryrun`` instead of its ``executor: slurm``: the
SLURM executor plugin is only in the ``cluster`` extra (the test environment does not install
it), and groups, threads and resources are the workflow's and the profile's, not the plugin's, so
the dry run shows them the same either way.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from workflow_config import MIRROR

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "workflow" / "profiles" / "slurm"
ESTIMATOR_RULES = {
    "wallach2009_shard",
    "foulds_smyth_shard",
    "capdevila2018_accuracy",
    "capdevila2018_accuracy_released",
    "capdevila2018_loglik",
}
TRAINING_RULES = {"bechard2018_train", "wallach2009_train", "foulds_smyth_train",
                  "capdevila2018_train"}


@pytest.fixture(scope="module")
def profile():
    return yaml.safe_load((PROFILE / "config.yaml").read_text())


def listed_rules(configfile, *config):
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--list-rules", "--configfile", configfile,
         "--config", *config],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {line.strip() for line in result.stdout.splitlines() if line.strip()}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    """The rules of the paper configuration and, when the data mirror is there, of a study's
    (rules that exist only with a `study:` key)."""
    names = listed_rules("config/paper.yaml", "results_dir=/nonexistent/results",
                         "resources_dir=/nonexistent/resources")
    assert {"all", "corpus", *ESTIMATOR_RULES, *TRAINING_RULES} <= names
    if MIRROR.is_dir():
        tmp = tmp_path_factory.mktemp("study")
        names |= listed_rules("config/study-quick.yaml", f"data_mirror={MIRROR}",
                              f"results_dir={tmp}/results", f"resources_dir={tmp}/resources")
        assert {"study_train", "study_estimate"} <= names
    return names


@pytest.fixture(scope="module")
def paper_dry_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("paper")
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--profile", str(PROFILE), "--executor",
         "dryrun", "--configfile", "config/paper.yaml", "--config",
         f"results_dir={tmp}/results", f"resources_dir={tmp}/resources"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout + result.stderr


def job_stats(text):
    """Rule -> job count from the dry run's "Job stats" table."""
    table = text.split("Job stats:", 1)[1].split("total", 1)[0]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}


def jobs(text):
    """(rule, member of a group, resources dict) of every job block of the dry run."""
    out, in_group, current = [], False, None
    for line in text.splitlines():
        if "Group job" in line:
            in_group = True
            continue
        match = re.match(r"^(\s*)(?:local)?rule (\w+):$", line)
        if match:
            in_group = in_group and bool(match[1])
            current = [match[2], in_group, {}]
            out.append(current)
        elif current and line.strip().startswith("resources: "):
            for item in line.strip()[len("resources: "):].split(", "):
                key, _, value = item.partition("=")
                current[2][key] = value
    return out


@pytest.mark.slow
def test_profile_names_only_workflow_rules(profile, rules):
    named = {*profile.get("set-threads", {}), *profile.get("set-resources", {}),
             *profile.get("groups", {})}
    assert named, "the profile sets no per-rule values"
    assert named <= rules, f"not rules of the workflow: {sorted(named - rules)}"
    assert set(profile.get("group-components", {})) <= set(profile["groups"].values())


def test_every_estimator_and_training_rule_has_threads_memory_and_runtime(profile):
    for rule in sorted(ESTIMATOR_RULES | TRAINING_RULES | {"corpus"}):
        assert int(profile["set-threads"][rule]) >= 1, rule
        resources = profile["set-resources"][rule]
        assert {"mem_mb", "runtime"} <= set(resources), rule


def test_grouped_rules_run_one_member_at_a_time(profile):
    groups = profile["groups"]
    assert ESTIMATOR_RULES <= set(groups)
    # every grouped job takes one group slot, and a submission has one slot: its members run
    # one after another on one core (a group requests 1 CPU, the sum of the members' runtimes),
    # whatever --cores is.  Without this a group would ask for as many CPUs as it has members.
    for rule in groups:
        assert profile["set-resources"][rule]["group_slots"] == 1, rule
    # a per-submission ("local") limit, not a cluster-wide cap on concurrent jobs
    assert profile["set-resource-scopes"]["group_slots"] == "local"
    assert "group_slots=1" in profile["resources"]


@pytest.mark.slow
def test_paper_dry_run_splits_the_estimators_into_grouped_jobs(paper_dry_run, profile):
    counts = job_stats(paper_dry_run)
    estimator_jobs = sum(counts.get(rule, 0) for rule in ESTIMATOR_RULES)
    assert estimator_jobs >= 100, counts
    listed = jobs(paper_dry_run)
    assert sum(1 for rule, *_ in listed if rule in ESTIMATOR_RULES) == estimator_jobs
    # every estimator job is in a group submission, and there are fewer submissions than jobs
    assert all(grouped for rule, grouped, _ in listed if rule in ESTIMATOR_RULES)
    submissions = paper_dry_run.count("Group job")
    assert 100 <= submissions < estimator_jobs
    # every job gets positive runtime and memory (the profile's expressions evaluate per job)
    for rule, _, resources in listed:
        if rule == "all":
            continue
        assert int(resources["runtime"]) > 0 and int(resources["mem_mb"]) > 0, rule
    for rule, _, resources in listed:
        if "mem_mb" in profile["set-resources"].get(rule, {}):
            assert int(resources["mem_mb"]) == int(profile["set-resources"][rule]["mem_mb"])


@pytest.mark.slow
@pytest.mark.skipif(not MIRROR.is_dir(), reason="no data mirror")
def test_a_study_groups_its_estimates_and_prices_them_when_their_inputs_exist(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--profile", str(PROFILE), "--executor",
         "dryrun", "--configfile", "config/study-quick.yaml", "--config",
         f"data_mirror={MIRROR}", f"results_dir={tmp_path}/results",
         f"resources_dir={tmp_path}/resources"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    text = result.stdout + result.stderr
    assert result.returncode == 0, text[-3000:]
    listed = jobs(text)
    estimates = [r for rule, grouped, r in listed if rule == "study_estimate"]
    assert estimates and all(grouped for rule, grouped, _ in listed if rule == "study_estimate")
    # the runtime is the rule's price of the job's predicted work, known once its model exists
    assert {r["runtime"] for r in estimates} == {"<TBD>"}
    assert {r["mem_mb"] for r in estimates} == {"1000"}
