"""Publishing a run with its provenance (topiceval.provenance, rule publish)."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from topiceval.provenance import benchmark_regex, publish, rule_costs
from workflow_config import ROOT

BENCH = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
PATTERNS = {"train": "results/benchmarks/paper/train/{dataset}/{run}.tsv",
            "shard": "results/benchmarks/paper/shards/{figure}/{shard}.tsv"}


def bench(path, wall, cpu, rss):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(BENCH + f"{wall}\t0:00:01\t{rss}\t0\t0\t0\t0\t0\t50\t{cpu}\n")
    return path


def test_benchmark_regex_matches_the_rule_files_only():
    rx = benchmark_regex(PATTERNS["train"])
    assert rx.search("/x/results/benchmarks/paper/train/ap/T10-seed0.tsv")
    assert not rx.search("/x/results/benchmarks/paper/shards/f1/s0.tsv")


def test_rule_costs_sum_and_maximum_per_rule(tmp_path):
    files = [bench(tmp_path / "results/benchmarks/paper/train/ap/a.tsv", 10, 8, 100),
             bench(tmp_path / "results/benchmarks/paper/train/kos/b.tsv", 30, 20, 300),
             bench(tmp_path / "results/benchmarks/paper/shards/f1/c.tsv", 5, 4, 50),
             bench(tmp_path / "results/benchmarks/other/d.tsv", 99, 99, 99)]
    costs = rule_costs(files, PATTERNS)
    assert costs["rule"].tolist() == ["train", "shard"]
    train = costs.iloc[0]
    assert (train["jobs"], train["wall_seconds"], train["cpu_seconds"]) == (2, 40, 28)
    assert (train["largest_job_wall_seconds"], train["max_rss_mb"]) == (30, 300)


def test_publish_copies_what_a_reader_opens_with_provenance(tmp_path):
    results = tmp_path / "results"
    for name in ("figures/x-F1.png", "figures/x-F1.caption.md", "tables/x-F1.csv",
                 "timings/x-t1.csv", "x/shards/f1/s0.csv", "logs/a.log"):
        (results / name).parent.mkdir(parents=True, exist_ok=True)
        (results / name).write_text("Figure 1: a caption of |x|. More.\n" if "caption" in name
                                   else "1")
    bench(results / "benchmarks/paper/train/ap/a.tsv", 10, 8, 100)
    out = tmp_path / "docs/results/run"
    prov = publish(results, out, config={"seed": 1}, command="snakemake --cores 2",
                   root=ROOT, patterns={"train": "benchmarks/paper/train/{d}/{r}.tsv"})
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == ["README.md", "figures/x-F1.caption.md", "figures/x-F1.png",
                     "provenance.json", "rule_costs.csv", "tables/x-F1.csv", "timings/x-t1.csv"]
    saved = json.loads((out / "provenance.json").read_text())
    assert saved == json.loads(json.dumps(prov))
    assert len(saved["commit"]) == 40 and saved["config"] == {"seed": 1}
    assert saved["machine"]["cores"] >= 1 and saved["machine"]["versions"]["numpy"]
    assert saved["rules"][0]["rule"] == "train" and saved["totals"]["jobs_benchmarked"] == 1
    assert "| Figure 1: a caption of \\|x\\| |" in (out / "README.md").read_text()
    assert pd.read_csv(out / "rule_costs.csv")["cpu_seconds"].tolist() == [8]


@pytest.mark.slow
def test_publish_rule_refuses_a_directory_that_is_not_a_publication(tmp_path):
    (tmp_path / "docs").mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", "config/quick.yaml",
         "--config", f"results_dir={tmp_path / 'r'}", f"publish_dir={tmp_path / 'docs'}",
         "--", "publish"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode != 0
    assert "is not an earlier publication" in result.stderr + result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("published", [False, True])
def test_publish_rule_is_scheduled_into_a_new_or_earlier_publication(tmp_path, published):
    target = tmp_path / "pub"
    if published:
        target.mkdir()
        (target / "provenance.json").write_text("{}")
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", "config/quick.yaml",
         "--config", f"results_dir={tmp_path / 'r'}", f"resources_dir={tmp_path / 'res'}",
         f"publish_dir={target}", "--", "publish"],
        cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "publish" in result.stdout


def test_snakemake_directory_markers_are_not_published():
    """The publish rule's directory() output gets Snakemake's empty .snakemake_timestamp; git
    ignores it, so no publication commits one."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)

    marker = "docs/results/default/.snakemake_timestamp"
    assert git("check-ignore", "-q", marker).returncode == 0
    tracked = git("ls-files", "docs/results").stdout.splitlines()
    assert tracked and not [path for path in tracked if path.endswith(".snakemake_timestamp")]
