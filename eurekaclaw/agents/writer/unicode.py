"""Unicode math symbols that models and users type, declared for pdflatex.

Theorem statements are inserted verbatim, so a `≤` typed in a statement must typeset as it is:
the preamble declares each of these characters (\\DeclareUnicodeCharacter) instead of the
writer rewriting the statement.
"""

from __future__ import annotations

UNICODE_TEX: dict[str, str] = {
    "≤": r"\le",
    "≥": r"\ge",
    "≠": r"\neq",
    "≈": r"\approx",
    "≡": r"\equiv",
    "∈": r"\in",
    "∉": r"\notin",
    "∞": r"\infty",
    "∑": r"\sum",
    "∏": r"\prod",
    "√": r"\surd",
    "±": r"\pm",
    "∓": r"\mp",
    "×": r"\times",
    "·": r"\cdot",
    "∘": r"\circ",
    "→": r"\to",
    "←": r"\leftarrow",
    "↦": r"\mapsto",
    "⇒": r"\Rightarrow",
    "⇐": r"\Leftarrow",
    "⇔": r"\Leftrightarrow",
    "↔": r"\leftrightarrow",
    "∀": r"\forall",
    "∃": r"\exists",
    "¬": r"\neg",
    "∧": r"\wedge",
    "∨": r"\vee",
    "∅": r"\emptyset",
    "⊂": r"\subset",
    "⊆": r"\subseteq",
    "⊃": r"\supset",
    "⊇": r"\supseteq",
    "∪": r"\cup",
    "∩": r"\cap",
    "∂": r"\partial",
    "∇": r"\nabla",
    "∫": r"\int",
    "∝": r"\propto",
    "∼": r"\sim",
    "≃": r"\simeq",
    "≅": r"\cong",
    "≪": r"\ll",
    "≫": r"\gg",
    "⌊": r"\lfloor",
    "⌋": r"\rfloor",
    "⌈": r"\lceil",
    "⌉": r"\rceil",
    "⟨": r"\langle",
    "⟩": r"\rangle",
    "‖": r"\|",
    "ℓ": r"\ell",
    "ℝ": r"\mathbb{R}",
    "ℕ": r"\mathbb{N}",
    "ℤ": r"\mathbb{Z}",
    "ℚ": r"\mathbb{Q}",
    "ℂ": r"\mathbb{C}",
    "ℙ": r"\mathbb{P}",
    "𝔼": r"\mathbb{E}",
    "α": r"\alpha",
    "β": r"\beta",
    "γ": r"\gamma",
    "δ": r"\delta",
    "ε": r"\varepsilon",
    "ϵ": r"\epsilon",
    "ζ": r"\zeta",
    "η": r"\eta",
    "θ": r"\theta",
    "ι": r"\iota",
    "κ": r"\kappa",
    "λ": r"\lambda",
    "μ": r"\mu",
    "ν": r"\nu",
    "ξ": r"\xi",
    "π": r"\pi",
    "ρ": r"\rho",
    "σ": r"\sigma",
    "τ": r"\tau",
    "υ": r"\upsilon",
    "φ": r"\varphi",
    "ϕ": r"\phi",
    "χ": r"\chi",
    "ψ": r"\psi",
    "ω": r"\omega",
    "Γ": r"\Gamma",
    "Δ": r"\Delta",
    "Θ": r"\Theta",
    "Λ": r"\Lambda",
    "Ξ": r"\Xi",
    "Π": r"\Pi",
    "Σ": r"\Sigma",
    "Φ": r"\Phi",
    "Ψ": r"\Psi",
    "Ω": r"\Omega",
}

# Characters that utf8 inputenc with T1 fonts already knows; declaring them again would clash.
_ALREADY_KNOWN = {"±", "×", "·", "¬"}


def unicode_declarations() -> str:
    lines = []
    for ch, tex in UNICODE_TEX.items():
        if ch in _ALREADY_KNOWN:
            continue
        lines.append(f"\\DeclareUnicodeCharacter{{{ord(ch):04X}}}{{\\ensuremath{{{tex}}}}}")
    return "\n".join(lines)
