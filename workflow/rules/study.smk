# A study of one's own corpus and models (config key `study`; config/study-example.yaml,
# topiceval.experiments.study).  With it, `rule all` builds these targets only.
#
#   source files (+ model files) --study_corpus--> studies/{name}/corpus.npz (train / test)
#   corpus --study_train--> candidates/{trainer}-T{T}-seed{seed}/model.npz + own.csv
#   model file --study_import--> candidates/{key}/model.npz + own.csv
#   corpus + model --study_estimate--> candidates/{candidate}/part{i}of{K}.csv (+ timings/)
#     K = estimate.parts jobs per candidate, cut at equal predicted work by the job itself
#   every part + own number --study_summary--> candidates.csv, documents.csv, paired.csv
#   summary + models --study_ratio_ais--> ratio_ais.csv (the best against its close runner-ups)
#   tables --study_figure--> perplexity.{FIG} and .caption.{md,rst} (the verdict), and
#     report-front.rst, the report's front page (workflow/report/study.rst includes it)
#
# Bad input is refused here, while the jobs are built: the configuration by the schema and
# S.study_plan, the data (an empty corpus, held-out documents that are training documents,
# model files of another corpus or vocabulary) by S.check_data when its files are present (the
# data mirror, the user's files; a successful check is remembered in studies/{name}/.checked),
# otherwise by the corpus job, before any model is trained.  Each job's params hold only what
# its output depends on, so a changed configuration reruns only the affected candidates.

from topiceval.experiments import study as S

if STUDY:
    try:
        S_PLAN = S.study_plan(STUDY, mirror=MIRROR)
    except ValueError as exc:
        raise WorkflowError(f"study: {exc}")
    S_DIR = f"{RESULTS}/studies/{S_PLAN.name}"
    S_DATASET = S_PLAN.data.corpus.get("dataset")
    S_NLTK = S_PLAN.data.needs_nltk()
    S_CAND = f"{S_DIR}/candidates/{{candidate}}"
    S_PARTS = int(S_PLAN.estimate["parts"])
    S_NAMES = [c.name for c in S_PLAN.candidates]
    S_MODELS = {c.name: f"{S_DIR}/candidates/{c.name}/model.npz" for c in S_PLAN.candidates}
    S_OWN = {c.name: f"{S_DIR}/candidates/{c.name}/own.csv" for c in S_PLAN.candidates}
    S_PART_FILES = [f"{S_DIR}/candidates/{n}/part{i}of{S_PARTS}.csv" for n in S_NAMES
                    for i in range(S_PARTS)]
    S_TABLES = {t: f"{S_DIR}/{t}.csv" for t in ("candidates", "documents", "paired", "ratio_ais")}
    S_EXPERIMENT = f"Study {S_PLAN.name}"

    # the dataset's raw files and NLTK data where they are now (downloaded, or in the mirror)
    S_RAW_NOW = [] if not S_DATASET else (
        raw_files(S_DATASET) if all(os.path.exists(p) for p in raw_files(S_DATASET)) or not MIRROR
        else [os.path.join(MIRROR, p) for p in source_paths(S_DATASET)])
    S_NLTK_NOW = None if not S_NLTK else (
        NLTK_DATA if all(os.path.exists(p) for p in NLTK_FILES) or not MIRROR
        else os.path.join(MIRROR, "nltk_data"))

    try:
        S.check_data(S_PLAN.data, S_RAW_NOW, S_NLTK_NOW, f"{S_DIR}/.checked")
    except ValueError as exc:
        raise WorkflowError(f"study {S_PLAN.name}: {exc}")

    rule study_corpus:
        input:
            raw=raw_files(S_DATASET) if S_DATASET else [],
            nltk=NLTK_FILES if S_NLTK else [],
            files=S_PLAN.data.input_files(),
        output:
            f"{S_DIR}/corpus.npz",
        params:
            data=S_PLAN.data.as_params(),
            nltk_data=NLTK_DATA if S_NLTK else None,
        log:
            f"{LOGS}/studies/{S_PLAN.name}/corpus.log",
        benchmark:
            f"{BENCH}/studies/{S_PLAN.name}/corpus.tsv"
        conda:
            ENV
        script:
            "../scripts/study_corpus.py"

    rule study_train:
        input:
            corpus=f"{S_DIR}/corpus.npz",
        output:
            model=f"{S_DIR}/candidates/{{trainer}}-T{{T}}-seed{{seed}}/model.npz",
            own=f"{S_DIR}/candidates/{{trainer}}-T{{T}}-seed{{seed}}/own.csv",
        params:
            candidate=lambda wc: S.dataclasses.asdict(
                S_PLAN.candidate(f"{wc.trainer}-T{wc.T}-seed{wc.seed}")),
            settings=lambda wc: S_PLAN.train[wc.trainer],
        wildcard_constraints:
            trainer="|".join(S.TRAINERS),
            T=r"\d+",
            seed=r"\d+",
        threads: 1
        resources:
            runtime=lambda wc, input, attempt: S.train_minutes(
                input.corpus, wc.trainer, int(wc.T), S_PLAN.train[wc.trainer], attempt),
        log:
            f"{LOGS}/studies/{S_PLAN.name}/train/{{trainer}}-T{{T}}-seed{{seed}}.log",
        benchmark:
            f"{BENCH}/studies/{S_PLAN.name}/train/{{trainer}}-T{{T}}-seed{{seed}}.tsv"
        conda:
            ENV
        script:
            "../scripts/study_train.py"

    rule study_import:
        input:
            corpus=f"{S_DIR}/corpus.npz",
            file=lambda wc: S_PLAN.candidate(wc.candidate).path,
        output:
            model=f"{S_CAND}/model.npz",
            own=f"{S_CAND}/own.csv",
        params:
            candidate=lambda wc: S.dataclasses.asdict(S_PLAN.candidate(wc.candidate)),
        wildcard_constraints:
            candidate="|".join(c.name for c in S_PLAN.files) or "(?!)",
        threads: 1
        log:
            f"{LOGS}/studies/{S_PLAN.name}/import/{{candidate}}.log",
        benchmark:
            f"{BENCH}/studies/{S_PLAN.name}/import/{{candidate}}.tsv"
        conda:
            ENV
        script:
            "../scripts/study_import.py"

    rule study_estimate:
        input:
            corpus=f"{S_DIR}/corpus.npz",
            model=f"{S_CAND}/model.npz",
        output:
            rows=f"{S_CAND}/part{{part}}of{{parts}}.csv",
            timings=f"{S_DIR}/timings/{{candidate}}/part{{part}}of{{parts}}.csv",
        params:
            estimate=S_PLAN.estimate,
            sample=S_PLAN.sample,
        wildcard_constraints:
            candidate="|".join(S_NAMES),
            part=r"\d+",
            parts=r"\d+",
        threads: 1
        resources:
            runtime=lambda wc, input, attempt: S.estimate_minutes(
                input.corpus, input.model, S_PLAN.estimate, S_PLAN.sample, int(wc.part),
                int(wc.parts), attempt),
        log:
            f"{LOGS}/studies/{S_PLAN.name}/estimate/{{candidate}}/part{{part}}of{{parts}}.log",
        benchmark:
            f"{BENCH}/studies/{S_PLAN.name}/estimate/{{candidate}}/part{{part}}of{{parts}}.tsv"
        conda:
            ENV
        script:
            "../scripts/study_estimate.py"

    rule study_summary:
        input:
            corpus=f"{S_DIR}/corpus.npz",
            parts=S_PART_FILES,
            own=list(S_OWN.values()),
            models=list(S_MODELS.values()),
        output:
            candidates=in_report(S_TABLES["candidates"], "study", S_EXPERIMENT,
                                 "study-candidates.rst", output="table: candidates",
                                 item="(your study)"),
            documents=in_report(S_TABLES["documents"], "study", S_EXPERIMENT,
                                "study-documents.rst", output="table: documents",
                                item="(your study)"),
            paired=in_report(S_TABLES["paired"], "study", S_EXPERIMENT, "study-paired.rst",
                             output="table: paired differences", item="(your study)"),
        params:
            candidates=[S.dataclasses.asdict(c) for c in S_PLAN.candidates],
            estimate=S_PLAN.estimate,
            sample=S_PLAN.sample,
            own=S_OWN,
            models=S_MODELS,
            coherence=S_PLAN.coherence,
        log:
            f"{LOGS}/studies/{S_PLAN.name}/summary.log",
        conda:
            ENV
        script:
            "../scripts/study_summary.py"

    rule study_ratio_ais:
        input:
            corpus=f"{S_DIR}/corpus.npz",
            candidates=S_TABLES["candidates"],
            paired=S_TABLES["paired"],
            documents=S_TABLES["documents"],
            models=list(S_MODELS.values()),
        output:
            in_report(S_TABLES["ratio_ais"], "study", S_EXPERIMENT, "study-ratio-ais.rst",
                      output="table: ratio-AIS", item="(your study)"),
        params:
            compare=S_PLAN.compare,
            sample=S_PLAN.sample,
            models=S_MODELS,
        threads: 1
        log:
            f"{LOGS}/studies/{S_PLAN.name}/ratio_ais.log",
        benchmark:
            f"{BENCH}/studies/{S_PLAN.name}/ratio_ais.tsv"
        conda:
            ENV
        script:
            "../scripts/study_ratio_ais.py"

    rule study_figure:
        input:
            candidates=S_TABLES["candidates"],
            paired=S_TABLES["paired"],
            ratio=S_TABLES["ratio_ais"],
        output:
            figure=in_report(f"{S_DIR}/perplexity.{FIG}", "study", S_EXPERIMENT, "caption.rst",
                             output="figure: the verdict", item="(your study)"),
            caption=f"{S_DIR}/perplexity.caption.md",
            caption_rst=f"{S_DIR}/perplexity.caption.rst",
            front=f"{S_DIR}/report-front.rst",
        params:
            name=S_PLAN.name,
            corpus=S_PLAN.data.corpus,
            heldout=S_PLAN.data.heldout,
        log:
            f"{LOGS}/studies/{S_PLAN.name}/figure.log",
        conda:
            ENV
        script:
            "../scripts/study_figure.py"

    register_study_targets(
        *S_TABLES.values(),
        *[f"{S_DIR}/perplexity.{ext}" for ext in (FIG, "caption.md", "caption.rst")],
        f"{S_DIR}/report-front.rst",
    )
