"""A careless scripted "model" on a FALSE statement, replaying what broke the first build.

The statement (UCB1's regret is at most sum_i ln T / (100 Delta_i)) is false: the constant is off
by a factor of about 800. The model answers every role without care:
- lemmas without claims, each "proved" with a Coq file about something else (1 + 1 = 2);
- a claim that merely restates its assumption, marked as the whole statement;
- a false claim (refuted by the falsifier) re-planned as the same lemma, reworded, without claim;
- every review "pass", every consistency check "consistent", the novelty judged high;
- an experiment spec that tests the false bound.
None of it may end in `proved`, a claimless lemma above its review level, or memory that
presents the result as established.
"""

from __future__ import annotations

from typing import Any

from eurekaclaw.bench.demo.common import minimal

STATEMENT = (
    "For K-armed stochastic bandits with rewards in [0,1], UCB1 has expected regret at most sum_i ln(T)/(100 Delta_i)"
)
FORMAL = r"For every $K$-armed bandit with rewards in $[0,1]$ and $T \ge 2$, UCB1 satisfies $\mathbb{E}[R_T] \le \sum_{i:\Delta_i>0} \frac{\ln T}{100\,\Delta_i}$."
TRIVIAL_COQ = "Theorem conc : 1 + 1 = 2.\nProof. reflexivity. Qed."
CLAIMLESS = ("conc", "gap_b", "main")  # what the first build lifted to `formal` with TRIVIAL_COQ

GAP_STATEMENT = r"For $T \ge 2$ and $\Delta \in (0,1]$, $\frac{\ln T}{100\Delta} \ge \frac{8 \ln T}{\Delta}$."
PLAN = {
    "formal_statement": FORMAL,
    "assumptions": ["rewards in [0,1]", "T >= 2"],
    "proof_plan": [
        {
            "id": "P1",
            "description": "Count the pulls of each suboptimal arm.",
            "provenance": "adapted",
            "lemma_ids": ["conc", "unit_gap", "gap", "main"],
        }
    ],
    "lemmas": [
        {
            "id": "conc",
            "statement": r"For every arm, $P(|\hat\mu_{i,n} - \mu_i| > \epsilon) \le e^{-100 n \epsilon^2}$.",
            "informal": "a (too strong) concentration bound",
            "provenance": "new",
            "dependencies": [],
            "claim": None,
        },
        {
            "id": "unit_gap",
            "statement": r"Every gap satisfies $\Delta_i \le 1$.",
            "informal": "gaps are at most one",
            "provenance": "new",
            "dependencies": [],
            "claim": {
                "variables": [{"name": "D", "domain": "interval", "low": 0, "high": 1, "open_low": True}],
                "assumptions": ["D <= 1"],
                "conclusion": "D <= 1",
            },
            "claim_is_statement": True,
        },
        {
            "id": "gap",
            "statement": GAP_STATEMENT,
            "informal": "the per-arm constant",
            "provenance": "new",
            "dependencies": ["conc"],
            "claim": {
                "variables": [
                    {"name": "T", "domain": "natural", "low": 2},
                    {"name": "D", "domain": "interval", "low": 0, "high": 1, "open_low": True},
                ],
                "conclusion": "log(T)/(100*D) >= 8*log(T)/D",
            },
            "claim_is_statement": True,
        },
        {
            "id": "main",
            "statement": FORMAL,
            "informal": "the main theorem",
            "provenance": "new",
            "dependencies": ["conc", "unit_gap", "gap"],
            "is_root": True,
            "claim": None,
        },
    ],
}
REPLAN = {
    "rationale": "The refuted lemma holds in our setting after all.",
    "lemmas": [
        {
            "id": "gap_b",
            "statement": GAP_STATEMENT.replace("$.", "$ in our setting."),
            "informal": "the per-arm constant",
            "provenance": "new",
            "dependencies": ["conc"],
            "claim": None,
        },
        {"id": "main", "statement": FORMAL, "dependencies": ["conc", "unit_gap", "gap_b"], "is_root": True},
    ],
}
SPEC = {
    "rationale": "Check the claimed bound on a three-armed Bernoulli instance.",
    "instances": [{"name": "three", "family": "bernoulli", "means": [0.9, 0.8, 0.7]}],
    "policies": [{"name": "ucb1"}],
    "horizons": [500, 1000, 2000],
    "repetitions": 40,
    "bounds": [
        {
            "name": "claimed",
            "expression": "log(T)*sum_inv_gap/100",
            "direction": "upper",
            "policies": ["ucb1"],
            "lemma_id": "main",
        }
    ],
}
PASS = {"verdict": "pass", "confidence": 0.95, "errors": [], "summary": "Correct."}
CONSISTENT = {
    "proves_statement": True,
    "assumptions_respected": True,
    "cited_lemmas_used_correctly": True,
    "verdict": "consistent",
    "issues": [],
}


def proof_for(lemma_id: str | None) -> str:
    if lemma_id == "main":
        return (
            r"By Lemma~\ref{lem:conc}, Lemma~\ref{lem:unit_gap} and Lemma~\ref{lem:gap_b} each "
            r"suboptimal arm is pulled at most $\ln T/(100\Delta_i^2)$ times, which gives the bound."
        )
    if lemma_id in ("gap", "gap_b"):
        return r"By Lemma~\ref{lem:conc} the constant is small enough, so the inequality holds."
    return "This is standard and follows from the definitions."


def respond(request: Any) -> Any:
    name = request.output_name()
    role = request.role
    if role == "formalizer" and name == "FormalPlan":
        return PLAN
    if role == "formalizer" and name == "ClaimFixes":
        # careless: repeat every claim unchanged
        fixes = [
            {"lemma_id": lo["id"], "claim": lo["claim"], "claim_is_statement": lo.get("claim_is_statement", False)}
            for lo in PLAN["lemmas"]
        ]
        return {"fixes": fixes}
    if role == "formalizer" and name == "Replan":
        return REPLAN
    if role in ("prover", "refiner"):
        attempt = {
            "proof": proof_for(request.lemma_id),
            "self_assessment": {"confidence": 1.0, "gaps": [], "weakest_step": "none"},
        }
        if request.lemma_id in CLAIMLESS:
            attempt["formal_proof"] = TRIVIAL_COQ
        if name == "BroadRepair":
            return {"strategy": "new_approach", "attempt": attempt}
        return attempt
    if role == "verifier":
        return PASS
    if role == "consistency_checker":
        return CONSISTENT
    if role == "counterexample_searcher":
        return {"candidates": []}
    if role == "experiment_designer" and request.output is not None and "instances" in request.output.model_fields:
        return SPEC
    if role == "evaluate" and request.output is not None:
        reply = minimal(request.output)
        for key in ("novelty", "score", "significance"):
            if key in reply:
                reply[key] = 0.95
        return reply
    if request.output is not None:
        return minimal(request.output)
    return "All results are correct and novel."
