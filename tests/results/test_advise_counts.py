"""Finding counts per cell for `gc advise`: verdicts on hand-made documents, and seeded
simulations of the intervals' coverage (the share's and the mean count's)."""

from __future__ import annotations

import numpy as np

from jvmlab.results.advise import (
    CANNOT_TELL,
    FEWER,
    GONE,
    MORE,
    NOT_REPRODUCED,
    STILL,
    count_finding,
    went_away,
)


def _doc(count: int, fid: str = "explicit-gc") -> dict[str, object]:
    return {"findings": [{"id": fid, "evidence": {"count": count}}] if count else []}



def test_verdicts() -> None:
    current = count_finding("explicit-gc", "current", [_doc(3)] * 5)
    assert went_away(current, count_finding("explicit-gc", "fix", [_doc(0)] * 5))[0] == GONE
    assert went_away(current, count_finding("explicit-gc", "fix", [_doc(3)] * 5))[0] == STILL
    many = count_finding("explicit-gc", "current", [_doc(c) for c in (9, 10, 11, 10, 9, 11)])
    few = count_finding("explicit-gc", "fix", [_doc(c) for c in (1, 2, 1, 2, 1, 2)])
    assert went_away(many, few)[0] == FEWER and went_away(few, many)[0] == MORE
    never = count_finding("explicit-gc", "current", [_doc(0)] * 4)
    assert went_away(never, few)[0] == NOT_REPRODUCED
    unknown = count_finding("explicit-gc", "fix", [{"pauses": {}}] * 3)  # older documents: no findings key
    assert unknown.runs == 0 and went_away(current, unknown)[0] == CANNOT_TELL


def test_gone_reports_the_upper_bound_of_the_share() -> None:
    gone = count_finding("explicit-gc", "fix", [_doc(0)] * 10)
    assert gone.share_ci is not None and gone.share_ci[0] == 0.0
    assert 0.25 < gone.share_ci[1] < 0.35  # Clopper-Pearson 0/10: 30.8%
    assert "31%" in went_away(count_finding("explicit-gc", "c", [_doc(1)] * 3), gone)[1]


def test_share_interval_covers_the_true_rate() -> None:
    rng = np.random.default_rng(7)
    p, n, sims = 0.2, 12, 400
    covered = 0
    for k in range(sims):
        hits = rng.random(n) < p
        c = count_finding("explicit-gc", f"s{k}", [_doc(1 if h else 0) for h in hits])
        assert c.share_ci is not None
        covered += c.share_ci[0] <= p <= c.share_ci[1]
    assert covered / sims >= 0.93  # exact (conservative) interval: at least nominal, up to noise


def test_mean_count_interval_covers_and_is_never_negative() -> None:
    rng = np.random.default_rng(11)
    lam, n, sims = 1.5, 12, 300
    covered = 0
    for k in range(sims):
        c = count_finding("explicit-gc", f"m{k}", [_doc(int(v)) for v in rng.poisson(lam, n)])
        if c.mean_ci is None:
            continue
        assert c.mean_ci[0] >= 0.0
        covered += c.mean_ci[0] <= lam <= c.mean_ci[1]
    assert covered / sims >= 0.88  # BCa at n=12 on Poisson counts, with the small-n level expansion
