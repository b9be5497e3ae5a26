"""A scripted "capable model" for the README's UCB1 theorem, answering every role the way strong
models do (the regression test of the capable path, issue 27: tests/e2e/test_capable_session.py).

What makes it "capable" rather than a demo: a four-lemma plan whose claims are the real
algebraic steps of the UCB1 analysis (in the claim language, checked by Z3 and the falsifier),
LaTeX proofs that cite their dependencies with \\ref{lem:ID}, and `formal_proof` answers written
as whole Coq files (`Require Import Reals Psatz.` ... `Theorem NAME : ... Proof. ... Qed.`), the
shape that used to be rejected as "nested proofs" and veto the lemma. Two of them compile once
taken apart (verify/coq_answer.py); the one for radius_small cites a lemma that does not exist
in Coq's library, and its repair fails too, so it is dropped with a note and the lemma keeps
the level its other checks give it (agents/theory/formal_attempt.py).

Reviews come from another script (capable_reviewer.py, --review-llm), so the status can be
`proved`; the replies below for the reviewer's roles are only used without it.
"""

from __future__ import annotations

import json
from typing import Any

from eurekaclaw.bench.demo.common import CONSISTENT, minimal

MODEL = "scripted-capable"

STATEMENT = (
    "For K-armed stochastic bandits with rewards in [0,1], UCB1 has expected regret at most "
    "sum_i 8 ln T / Delta_i + (1 + pi^2/3) sum_i Delta_i"
)

_RADIUS_CLAIM = {
    "variables": [
        {"name": "n", "domain": "natural", "low": 1},
        {"name": "T", "domain": "natural", "low": 2},
        {"name": "D", "domain": "interval", "low": 0, "open_low": True, "high": 1},
    ],
    "assumptions": ["n*D^2 >= 8*log(T)"],
    "conclusion": "sqrt(2*log(T)/n) <= D/2",
}
_GAP_CLAIM = {
    "variables": [
        {"name": "m1", "domain": "real"},
        {"name": "mi", "domain": "real"},
        {"name": "h1", "domain": "real"},
        {"name": "hi", "domain": "real"},
        {"name": "r1", "domain": "nonnegative"},
        {"name": "ri", "domain": "nonnegative"},
    ],
    "assumptions": ["h1 + r1 <= hi + ri", "m1 <= h1 + r1", "hi <= mi + ri"],
    "conclusion": "m1 - mi <= 2*ri",
}
_TERM_CLAIM = {
    "variables": [
        {"name": "T", "domain": "natural", "low": 2},
        {"name": "D", "domain": "interval", "low": 0, "open_low": True, "high": 1},
        {"name": "N", "domain": "nonnegative"},
        {"name": "S", "domain": "nonnegative"},
    ],
    "assumptions": ["N <= 8*log(T)/D^2 + 1 + S", "S <= pi^2/3"],
    "conclusion": "D*N <= 8*log(T)/D + (1 + pi^2/3)*D",
}


def _lemma(lid: str, statement: str, informal: str, deps: list[str], claim: Any, **extra: Any) -> dict[str, Any]:
    return {
        "id": lid,
        "statement": statement,
        "informal": informal,
        "provenance": "new",
        "dependencies": deps,
        "claim": claim,
        "claim_is_statement": claim is not None,
        **extra,
    }


PLAN = {
    "formal_statement": (
        r"Let $K \ge 2$ arms have reward distributions on $[0,1]$ with means $\mu_1 \ge \mu_i$, gaps "
        r"$\Delta_i = \mu_1 - \mu_i$, and let UCB1 play each arm once and then the arm maximising "
        r"$\hat\mu_i + \sqrt{2 \ln t / n_i}$. For every horizon $T \ge 2$, its expected regret satisfies "
        r"$R_T \le \sum_{i : \Delta_i > 0} \frac{8 \ln T}{\Delta_i} + \left(1 + \frac{\pi^2}{3}\right) "
        r"\sum_{i} \Delta_i$."
    ),
    "assumptions": [
        r"rewards are independent and take values in $[0,1]$",
        r"$T \ge 2$ and every gap $\Delta_i \in (0, 1]$ of a suboptimal arm",
    ],
    "proof_plan": [
        {
            "id": "P1",
            "description": "Bound the confidence radius once an arm has been played often enough.",
            "provenance": "new",
            "lemma_ids": ["radius_small", "gap_split"],
        },
        {
            "id": "P2",
            "description": "Count the plays of a suboptimal arm (Hoeffding and a union bound over t).",
            "provenance": "adapted",
            "citation": "Auer, Cesa-Bianchi, Fischer (2002)",
            "lemma_ids": ["count_bound", "regret_term"],
        },
        {
            "id": "P3",
            "description": "Sum the per-arm terms: regret is the gap-weighted expected number of plays.",
            "provenance": "new",
            "lemma_ids": ["main"],
        },
    ],
    "lemmas": [
        _lemma(
            "radius_small",
            r"For integers $n \ge 1$, $T \ge 2$ and $0 < \Delta \le 1$ with $n \Delta^2 \ge 8 \ln T$, "
            r"$\sqrt{2 \ln T / n} \le \Delta / 2$.",
            "after 8 ln T / Delta^2 plays the confidence radius is at most half the gap",
            [],
            _RADIUS_CLAIM,
        ),
        _lemma(
            "gap_split",
            r"For reals $m_1, m_i, h_1, h_i$ and $r_1, r_i \ge 0$ with $h_1 + r_1 \le h_i + r_i$, "
            r"$m_1 \le h_1 + r_1$ and $h_i \le m_i + r_i$: $m_1 - m_i \le 2 r_i$.",
            "if UCB1 picks arm i while both confidence bounds hold, the gap is at most twice its radius",
            [],
            _GAP_CLAIM,
        ),
        _lemma(
            "count_bound",
            r"For every suboptimal arm $i$ and $T \ge 2$, the expected number of plays of $i$ up to $T$ "
            r"satisfies $\mathbb{E}[N_i(T)] \le \frac{8 \ln T}{\Delta_i^2} + 1 + \frac{\pi^2}{3}$.",
            "plays beyond 8 ln T / Delta^2 need a failed confidence bound, whose probabilities sum to pi^2/3",
            ["radius_small", "gap_split"],
            None,
        ),
        _lemma(
            "regret_term",
            r"For an integer $T \ge 2$, $0 < \Delta \le 1$, $N \ge 0$ and $0 \le S \le \pi^2/3$ with "
            r"$N \le 8 \ln T / \Delta^2 + 1 + S$: $\Delta N \le 8 \ln T / \Delta + (1 + \pi^2/3) \Delta$.",
            "one arm's share of the regret",
            [],
            _TERM_CLAIM,
        ),
        _lemma(
            "main",
            r"For every horizon $T \ge 2$, UCB1's expected regret satisfies $R_T \le \sum_{i : \Delta_i > 0} "
            r"\frac{8 \ln T}{\Delta_i} + \left(1 + \frac{\pi^2}{3}\right) \sum_i \Delta_i$.",
            "the regret bound",
            ["count_bound", "regret_term"],
            None,
            is_root=True,
        ),
    ],
}

PROOFS = {
    "radius_small": (
        r"Since $T \ge 2$ we have $\ln T > 0$, and $n \ge 1$, so $2 \ln T / n \ge 0$ and the square root is "
        r"defined. From $n \Delta^2 \ge 8 \ln T$ and $n > 0$ we get $\frac{2 \ln T}{n} \le \frac{2 \ln T}"
        r"{8 \ln T / \Delta^2} = \frac{\Delta^2}{4}$. The square root is increasing on $[0, \infty)$ and "
        r"$\Delta / 2 > 0$, hence $\sqrt{2 \ln T / n} \le \sqrt{\Delta^2 / 4} = \Delta / 2$."
    ),
    "gap_split": (
        r"Chaining the three hypotheses: $m_1 \le h_1 + r_1 \le h_i + r_i \le (m_i + r_i) + r_i = m_i + 2 r_i$. "
        r"Subtracting $m_i$ from both ends gives $m_1 - m_i \le 2 r_i$."
    ),
    "count_bound": (
        r"Fix a suboptimal arm $i$ and let $u = \lceil 8 \ln T / \Delta_i^2 \rceil$, so $u \le 8 \ln T / "
        r"\Delta_i^2 + 1$. Every play of $i$ at a round $t$ with $N_i(t-1) \ge u$ has, by "
        r"Lemma~\ref{lem:gap_split}, either a failed upper confidence bound for arm $1$ "
        r"($\hat\mu_{1} + r_{1} < \mu_1$) or a failed lower bound for arm $i$ ($\hat\mu_i > \mu_i + r_i$), "
        r"or $\Delta_i \le 2 r_i$; the last is impossible because Lemma~\ref{lem:radius_small} gives "
        r"$r_i = \sqrt{2 \ln t / N_i(t-1)} \le \Delta_i / 2$ when $N_i(t-1) \ge u$ and $t \le T$. By "
        r"Hoeffding's inequality each failed bound at round $t$ with $s$ samples has probability at most "
        r"$t^{-4}$; a union bound over $s, s' \le t$ gives at most $2 t^{-2}$ per round, and "
        r"$\sum_{t \ge 1} 2 t^{-2} = \pi^2 / 3$. Hence $\mathbb{E}[N_i(T)] \le u + \pi^2 / 3 \le "
        r"8 \ln T / \Delta_i^2 + 1 + \pi^2 / 3$."
    ),
    "regret_term": (
        r"Multiply $N \le 8 \ln T / \Delta^2 + 1 + S$ by $\Delta > 0$: $\Delta N \le 8 \ln T / \Delta + \Delta + "
        r"\Delta S$. Since $\Delta > 0$ and $S \le \pi^2/3$, $\Delta S \le \Delta \pi^2 / 3$, so "
        r"$\Delta N \le 8 \ln T / \Delta + (1 + \pi^2/3) \Delta$."
    ),
    "main": (
        r"The regret of UCB1 decomposes over arms as $R_T = \sum_i \Delta_i \, \mathbb{E}[N_i(T)]$, where the "
        r"optimal arms contribute $0$. For each suboptimal arm, Lemma~\ref{lem:count_bound} gives "
        r"$\mathbb{E}[N_i(T)] \le 8 \ln T / \Delta_i^2 + 1 + S$ with $S = \pi^2/3$, and "
        r"Lemma~\ref{lem:regret_term} (with $N = \mathbb{E}[N_i(T)]$, $\Delta = \Delta_i$) turns this into "
        r"$\Delta_i \mathbb{E}[N_i(T)] \le 8 \ln T / \Delta_i + (1 + \pi^2/3) \Delta_i$. Summing over the "
        r"arms gives $R_T \le \sum_{i : \Delta_i > 0} 8 \ln T / \Delta_i + (1 + \pi^2/3) \sum_i \Delta_i$."
    ),
}

# Whole Coq files, as a strong model writes them (another theorem name, its own binders).
COQ = {
    "gap_split": """Require Import Reals Psatz.
Open Scope R_scope.

(* UCB1 picked arm i although both confidence bounds hold: the gap is at most 2 r_i. *)
Theorem gap_split : forall m1 mi h1 hi r1 ri : R,
  0 <= r1 -> 0 <= ri -> h1 + r1 <= hi + ri -> m1 <= h1 + r1 -> hi <= mi + ri ->
  m1 - mi <= 2 * ri.
Proof.
  intros m1 mi h1 hi r1 ri Hr1 Hri Hpick Hopt Hi.
  lra.
Qed.
""",
    "regret_term": """Require Import Reals Psatz.
Open Scope R_scope.

Lemma regret_term (T : nat) (D N S : R) :
  (2 <= T)%nat -> 0 < D -> D <= 1 -> 0 <= N -> 0 <= S ->
  N <= S + 1 + 8 * ln (INR T) / D ^ 2 -> S <= PI ^ 2 / 3 ->
  D * N <= (1 + PI ^ 2 / 3) * D + 8 * ln (INR T) / D.
Proof.
  intros HT HD HD1 HN HS Hcount Htail.
  assert (Hsplit : D * (8 * ln (INR T) / D ^ 2) = 8 * ln (INR T) / D) by (field; lra).
  assert (HDN : D * N <= D * (S + 1 + 8 * ln (INR T) / D ^ 2)) by (apply Rmult_le_compat_l; lra).
  assert (HDS : D * S <= D * (PI ^ 2 / 3)) by (apply Rmult_le_compat_l; lra).
  rewrite Rmult_plus_distr_l, Rmult_plus_distr_l, Hsplit in HDN.
  lra.
Qed.
""",
    # cites a library lemma that does not exist: coqc rejects it
    "radius_small": """Require Import Reals Psatz.
Open Scope R_scope.

Theorem radius_small : forall (n T : nat) (D : R),
  (1 <= n)%nat -> (2 <= T)%nat -> 0 < D -> D <= 1 ->
  INR n * D ^ 2 >= 8 * ln (INR T) ->
  sqrt (2 * ln (INR T) / INR n) <= D / 2.
Proof.
  intros n T D Hn HT HD HD1 Hcount.
  apply le_INR in Hn. simpl in Hn.
  rewrite <- (sqrt_pow2 (D / 2)) by lra.
  apply sqrt_le_sqr_compat.
  unfold Rdiv. nra.
Qed.
""",
}
# ... and its repair, which leaves the division to lra: rejected too ("No applicable tactic")
COQ_REPAIR = COQ["radius_small"].replace(
    "apply sqrt_le_sqr_compat.\n  unfold Rdiv. nra.", "apply sqrt_le_1_alt.\n  lra."
)

# A short simulation of the bound on two Bernoulli instances (seconds, not minutes).
EXPERIMENT = {
    "rationale": "compare UCB1's empirical regret with the proved bound on an easy and a hard instance",
    "instances": [
        {"name": "three_arms", "family": "bernoulli", "means": [0.9, 0.8, 0.5]},
        {"name": "close_pair", "family": "bernoulli", "means": [0.6, 0.5]},
    ],
    "policies": [{"name": "ucb1"}],
    "horizons": [500, 2000],
    "repetitions": 20,
    "seed": 7,
    "bounds": [{"name": "ucb1_readme_bound", "known": "ucb1_auer2002", "lemma_id": "main"}],
}

PASS = {"verdict": "pass", "confidence": 0.9, "errors": [], "summary": "every step is justified"}

PROSE = {
    "title": "A logarithmic regret bound for UCB1",
    "abstract": (
        "We prove that UCB1 on a K-armed stochastic bandit with rewards in [0,1] has expected regret at most "
        "the sum over suboptimal arms of 8 ln T / Delta_i plus (1 + pi^2/3) times the sum of the gaps. The "
        "proof bounds the confidence radius after enough plays, counts the plays of each suboptimal arm with "
        "Hoeffding's inequality and a union bound, and sums the per-arm terms."
    ),
    "introduction": (
        "Upper confidence bound algorithms balance exploration and exploitation by playing the arm with the "
        "largest optimistic estimate. We give a self-contained proof of the classical logarithmic regret "
        "bound of UCB1, split into lemmas small enough to be checked one by one."
    ),
    "preliminaries": (
        r"Arm $i$ has mean $\mu_i$ and gap $\Delta_i = \mu_1 - \mu_i$; $N_i(T)$ counts its plays up to $T$."
    ),
    "related_work": "The bound and its proof follow Auer, Cesa-Bianchi and Fischer (2002).",
    "limitations": "The constants are not optimal; the analysis is distribution-dependent only.",
    "experiments": "",
}


def _attempt(lemma_id: str, with_formal: bool) -> dict[str, Any]:
    attempt: dict[str, Any] = {
        "proof": PROOFS.get(lemma_id, PROOFS["main"]),
        "self_assessment": {"confidence": 0.9, "gaps": [], "weakest_step": "the union bound over rounds"},
    }
    if with_formal and lemma_id in COQ:
        attempt["formal_proof"] = COQ[lemma_id]
    return attempt


def respond(request: Any) -> Any:
    name = request.output_name()
    role = request.role
    if role == "formalizer" and name == "FormalPlan":
        return PLAN
    if name == "FormalRepair":
        return {"formal_proof": COQ_REPAIR if request.lemma_id == "radius_small" else COQ.get(request.lemma_id, "")}
    if name == "ClaimFixes":
        # the regret of a K-armed bandit is not a formula in finitely many real variables
        return {"fixes": [{"lemma_id": "main", "claim": None}]}
    if role in ("prover", "refiner") and (name in ("ProofAttempt", "BroadRepair") or request.output is None):
        # the prompt shows the generated Coq statement only when a formal proof is wanted
        attempt = _attempt(request.lemma_id or "", "<coq_statement>" in request.prompt_text())
        if name == "BroadRepair":
            return {"strategy": "new_approach", "attempt": attempt}
        # offered tools, it needs none and answers with the object as JSON text, as asked
        return json.dumps(attempt) if request.output is None else attempt
    if name == "MABExperimentSpec":
        return EXPERIMENT
    if role == "verifier":
        return PASS
    if role == "consistency_checker":
        return CONSISTENT
    if role == "counterexample_searcher":
        return {"candidates": []}
    if name == "PaperProse":
        return PROSE
    if request.output is not None:
        return minimal(request.output)
    return "The proof follows the plan: radius, count, per-arm term, sum."
