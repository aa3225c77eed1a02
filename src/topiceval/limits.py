"""Work and memory limits: every estimator call knows its whole cost before it starts.

Each method's declaration (``topiceval.estimators.method.Method``) predicts the work of one
(document, run) task from the document's size and the settings (LDA: Gibbs site updates, the
units of Wallach et al. 2009 Table 1; GaP-FA: topic-word site updates).  Before anything is
allocated or run, ``check_work`` prices the *whole call*, the sum over its documents and runs,
and refuses it if that total (or any one task) is over the limit, giving the predicted total,
the time it would take at the measured rate, and what would fit: fewer runs, a smaller budget
setting (each affine in its setting, ``largest_within``), fewer documents, or a larger limit.
``check_memory`` prices every array the call allocates (results, temperature schedules,
per-thread working arrays) and refuses a call that would not fit in ``MEMORY_FRACTION`` of
physical memory, naming the setting that would fit (numba would otherwise fail deep inside a
kernel, or the operating system kill the process).

Default limit: ``DEFAULT_SECONDS`` (one minute) of one core at the family's benchmark rate ``RATE``
(``benchmarks/README.md``: the LDA estimators run about 4e7 site updates per second per core, LR
with rejuvenation 4.2e7 and Chib-style 4.4e7 on the 002-T1 workload; GaP-FA about 1e8 topic-word
site updates per second, between the 1.2-1.8 ns per unit of long documents and the 8-15 ns of
three-word tweets; the logistic-normal family 2.3e9 work units per second, the median of
``benchmarks/ln_rate.py``, whose rates span 1.8e9-4.1e9 across decoders, K, V, lengths and
methods, ``logistic_normal.registry``), so ``DEFAULT_WORK_LIMIT`` is 2.4e9 LDA site updates, 6e9
GaP-FA topic-word site updates and 1.4e11 logistic-normal work units per call.  Measured with
the default methods on a 2-core test machine (``benchmarks/work_limit_time.py``), the LDA limit
takes two to four minutes of one core (1.1e7-2.3e7 site updates per second, Chib-style, 4- to
1,000-token documents) and GaP-FA's 9-52 seconds.  ``work_limit=None`` lifts the limit (the
experiments and the workflow do: they price their own jobs); a number sets it.  The messages
speak the API
(``str(error)``) or, through ``WorkLimitError.for_command_line``, the command line.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from topiceval.validation import option

# work units per second on one core, measured (benchmarks/README.md; see the module docstring)
RATE = {"lda": 4e7, "gapfa": 1e8, "logistic_normal": 2.3e9}
UNITS = {"lda": "site updates", "gapfa": "topic-word site updates",
         "logistic_normal": "work units"}
# the default limit of one call: a minute of one core at RATE (measured on a 2-core test machine
# with the default methods, the LDA limit takes 104-225 CPU-s, GaP-FA's 9-52: issue 46,
# benchmarks/work_limit_time.py)
DEFAULT_SECONDS = 60
DEFAULT_WORK_LIMIT = {family: DEFAULT_SECONDS * rate for family, rate in RATE.items()}
# the advice for one document over the limit where a document's work grows with its length
SPLIT = "split the document"
MEMORY_FRACTION = 0.5  # of the machine's physical memory, for all the arrays of one call
GIB = 2.0**30


@dataclass(frozen=True)
class Fit:
    """One way to make a refused call fit: the argument ``name`` at most ``largest`` (it is
    ``current`` now).  ``argument``: whether the call takes it as an argument; the only one
    that may not is ``threads``, then numba's thread count around the call."""

    name: str
    largest: int
    current: int
    argument: bool = True

    def text(self, command_line: bool) -> str:
        """``samples <= 10 (now 100)``, or ``--samples 10 or less (now 100)``."""
        if command_line:
            return f"{option(self.name)} {self.largest} or less (now {self.current})"
        if not self.argument:
            return (f"numba {self.name} <= {self.largest:,} (now {self.current:,}; set around "
                    f"the call, e.g. with topiceval.threads.numba_threads({self.largest}))")
        return f"{self.name} <= {self.largest:,} (now {self.current:,})"


@dataclass(frozen=True)
class EvenOne:
    """No smaller setting fits: even 1 of each of ``names`` is over the limit; what to lower
    instead (settings ``cheaper``), or why one task is too large (``alone``)."""

    names: tuple[str, ...]
    cheaper: tuple[str, ...] = ()
    alone: str = ""

    def text(self, command_line: bool) -> str:
        """``even samples = 1 is over it: lower gibbs``, or ``even --samples 1 is over it:
        lower --gibbs``."""
        spell = option if command_line else str
        listed = " and ".join(f"{spell(name)}{' ' if command_line else ' = '}1"
                              for name in self.names)
        text = f"even {listed} {'is' if len(self.names) == 1 else 'are'} over it"
        if self.cheaper:
            text += ": lower " + " or ".join(spell(name) for name in self.cheaper)
        return text + (f": {self.alone}" if self.alone else "")


class WorkLimitError(ValueError):
    """A call would exceed its work or memory limit; nothing was run.

    ``str(error)`` names the API's arguments (``samples <= 10``, ``work_limit=None``);
    ``for_command_line()`` (and ``command_line``, as ``validation.naming`` errors have it) gives
    the same message with the command's options.
    """

    def __init__(self, problem: str, remedies: Sequence[Fit | EvenOne | str] = (), *,
                 liftable: bool = True) -> None:
        self.problem, self.remedies, self.liftable = problem, tuple(remedies), liftable
        super().__init__(self._render(False))

    def for_command_line(self) -> str:
        """The message with the command line's options instead of the API's arguments."""
        return self._render(True)

    @property
    def command_line(self) -> str:
        return self._render(True)

    def _render(self, command_line: bool) -> str:
        first = next((r for r in self.remedies if isinstance(r, Fit)), None)
        texts = [r if isinstance(r, str) else
                 ("use " if r is first else "") + r.text(command_line) for r in self.remedies]
        if self.liftable:
            texts.append("pass a larger --work-limit (--work-limit none lifts it)" if command_line
                         else "pass a larger work_limit (work_limit=None lifts it)")
        return f"{self.problem}: {', or '.join(texts)}" if texts else self.problem


@dataclass(frozen=True)
class WorkSetting:
    """A setting the call's work grows with: its ``name``, its ``current`` value, and
    ``work_at(k)``, the (D,) work per (document, run) with the setting at k (affine in k)."""

    name: str
    current: int
    work_at: Callable[[int], np.ndarray]


def resolve_limit(limit, default: float) -> float | None:
    """``"default"`` -> the family default; ``None`` -> no limit; else a positive number."""
    if isinstance(limit, str) and limit == "default":
        return float(default)
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, numbers.Real) or not limit > 0:
        raise ValueError(f"work_limit must be a positive number or None, got {limit!r}")
    return float(limit)


def duration(seconds: float) -> str:
    """``seconds`` as a short human duration ("40 s", "15 min", "3.2 h", "12 days")."""
    for size, unit in ((86400, "days"), (3600, "h"), (60, "min")):
        if seconds >= 2 * size:
            return f"{seconds / size:,.2g} {unit}" if seconds < 10 * size else \
                f"{seconds / size:,.0f} {unit}"
    return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"


def largest_within(cost_at: Callable[[int], float], limit: float) -> int:
    """The largest k >= 1 with ``cost_at(k) <= limit`` for a cost affine in k (0 if even k = 1
    is over; -1 if the cost does not grow with k)."""
    one, two = float(cost_at(1)), float(cost_at(2))
    if one > limit:
        return 0
    step = two - one
    if not step > 0:
        return -1
    k = int(min((limit - one) // step + 1, 2.0**62))
    while k > 1 and float(cost_at(k)) > limit:  # rounding of the affine solution
        k -= 1
    return k


def check_work(work: np.ndarray, limit: float | None, *, family: str, method: str,
               lengths: np.ndarray, runs: int = 1, budgets: Sequence[WorkSetting] = (),
               cheaper: Sequence[str] = (), size_unit: str = "tokens",
               task: str = "per run", split: str = SPLIT) -> None:
    """Refuse the call, before it runs, if one task or the whole call is over ``limit``.

    Parameters
    ----------
    work : (D,) array
        Predicted work of one (document, run) task, in the units of ``family``.
    limit : float or None
        The most work of the whole call (``resolve_limit``); None: no limit.
    family, method : str
        ``"lda"`` or ``"gapfa"`` (units and measured rate), and the method's name.
    lengths : (D,) array
        Each document's size in ``size_unit``, for the message.
    runs : int
        R, the runs of every document: the call's work is R sum(work).
    budgets : sequence of WorkSetting
        The settings whose smaller values would fit, named in the message.
    cheaper : sequence of str
        The settings to lower when even 1 of every budget is over the limit.
    task : str
        How one task's work is named (``"per run"``).
    split : str
        The advice for a document that alone is over the limit (``SPLIT``: its work grows with
        its length), or ``""`` where splitting would not bring it under (the caller knows).
    """
    if limit is None or work.size == 0:
        return
    units, rate = UNITS[family], RATE[family]
    at = f"at the measured {rate:.2g} per second"
    d = int(np.argmax(work))
    if work[d] > limit:
        over = int(np.count_nonzero(work > limit))
        others = "" if over == 1 else f"; {over:,} documents are over it"
        fits = _fits(budgets, lambda b, k: b.work_at(k)[d], limit)
        if not fits and budgets:
            fits.append(EvenOne(tuple(b.name for b in budgets), tuple(cheaper)))
        raise WorkLimitError(
            f"{method}: document {d} ({_quantity(int(lengths[d]), size_unit)}) needs "
            f"{float(work[d]):.3g} {units} {task} (about {duration(work[d] / rate)} of one core "
            f"{at}), above the limit of {limit:.3g} for the whole call{others}",
            [*fits, *([split] if split and lengths[d] > 1 else [])])
    total = runs * float(np.sum(work, dtype=np.float64))
    if total <= limit:
        return
    fits: list[Fit | EvenOne | str] = []
    if runs > 1:
        fitting_runs = int(limit // float(np.sum(work, dtype=np.float64)))
        if fitting_runs >= 1:
            fits.append(Fit("runs", fitting_runs, runs))
    fits += _fits(budgets, lambda b, k: runs * float(np.sum(b.work_at(k), dtype=np.float64)),
                  limit)
    n_docs = int(np.searchsorted(np.cumsum(runs * work.astype(np.float64)), limit,
                                 side="right"))
    if n_docs >= 1:
        fits.append(f"evaluate at most {n_docs:,} of the {work.size:,} documents per call")
    raise WorkLimitError(
        f"{method}: the call needs {total:.3g} {units} ({_quantity(work.size, 'documents')}"
        f"{f' x {runs:,} runs' if runs > 1 else ''}), about {duration(total / rate)} of one "
        f"core {at}, above the limit of {limit:.3g} (about {duration(limit / rate)})", fits)


def _quantity(n: int, unit: str) -> str:
    """"1 document", "2 documents": ``n`` with ``unit`` (a plural in s) in the right number."""
    return f"{n:,} {unit[:-1] if n == 1 and unit.endswith('s') else unit}"


def _fits(budgets: Sequence[WorkSetting], cost: Callable[[WorkSetting, int], float],
          limit: float) -> list[Fit | EvenOne | str]:
    """A ``Fit`` for every budget whose smaller value would bring ``cost`` within ``limit``."""
    out: list[Fit | EvenOne | str] = []
    for b in budgets:
        k = largest_within(lambda k, b=b: cost(b, k), limit)
        if 1 <= k < b.current:
            out.append(Fit(b.name, k, b.current))
    return out


def physical_memory() -> int:
    """Bytes of physical memory (0 if the platform does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 0


def check_memory(parts_at: Callable[[Mapping[str, int]], Mapping[str, float]],
                 current: Mapping[str, int], *, method: str, alone: str = "",
                 threads_argument: bool = True) -> None:
    """Refuse a call whose arrays would exceed ``MEMORY_FRACTION`` of physical memory.

    ``parts_at(values)``: bytes of each kind of array the call allocates (name -> bytes) with
    the settings ``values`` (``current`` overridden); ``current``: the settings that a smaller
    value of would fit (``runs``, the budget, ``threads``), each affine in its setting;
    ``alone``: what makes one task too large, said when no smaller setting fits;
    ``threads_argument``: whether the call takes ``threads`` as an argument (if not, fewer
    threads are suggested as numba's, set around the call).
    """
    total_memory = physical_memory()
    if not total_memory:
        return
    cap = MEMORY_FRACTION * total_memory
    parts = parts_at(current)
    need = float(sum(parts.values()))
    if need <= cap:
        return
    fits: list[Fit | EvenOne | str] = []
    for name, value in current.items():
        k = largest_within(lambda k, name=name: sum(parts_at({**current, name: k}).values()),
                           cap)
        if 1 <= k < value:
            fits.append(Fit(name, k, value, argument=threads_argument or name != "threads"))
    if not fits:
        fits.append(EvenOne(tuple(name for name in current
                                  if threads_argument or name != "threads"), alone=alone))
    shown = ", ".join(f"{name} {size / GIB:,.3g} GiB" for name, size in parts.items()
                      if size >= 0.01 * need)
    raise WorkLimitError(
        f"{method}: the call's arrays would need {need / GIB:,.1f} GiB ({shown}), more than "
        f"{MEMORY_FRACTION:.0%} of this machine's {total_memory / GIB:,.1f} GiB", fits,
        liftable=False)


def working_threads(threads: int, tasks: int) -> int:
    """How many tasks run at once: ``threads``, or fewer if there are fewer tasks."""
    return max(1, min(int(threads), int(tasks)))


def threads_of(threads) -> int:
    """The threads a call will run on: ``threads`` if it is a positive integer, else numba's
    current number (None or 0 mean all; ``topiceval.threads.numba_threads`` refuses the rest)."""
    if isinstance(threads, (int, np.integer)) and not isinstance(threads, bool) and threads > 0:
        return int(threads)
    import numba

    return numba.get_num_threads()
