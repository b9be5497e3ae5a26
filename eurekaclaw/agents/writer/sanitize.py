"""Make model-written LaTeX safe to compile.

TeX is a programming language that can read and write files (and run programs when shell
escape is on), so text a model wrote is never pasted into the paper as it is. `sanitize_latex`
walks the text token by token and

- removes control sequences that reach files, the shell, catcodes or definitions (a removed
  definition could also redefine a macro the template relies on), the `^^` notation that
  could spell any of them, and expl3: `\\ExplSyntaxOn` and names such as `\\iow_open:Nn`;
- keeps only environments from an allow-list (dropping dangerous ones and tables with their
  content, and theorem-like ones in prose: statements are inserted verbatim by the writer, never
  re-stated);
- drops the paper's own macros (`\\eclevel`, ...) with their arguments: a level tag is ours;
- filters \\cite keys to the verified bibliography and \\ref labels to the ones the template
  defines;
- balances braces, environments and math mode, and escapes stray special characters in prose.

In "block" mode (theorem statements and proofs, which must stay verbatim) nothing is escaped: a
caller compares the result with the input and shows a changed block as source text instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from eurekaclaw.agents.writer.escape import CONTROL_CHARS
from eurekaclaw.agents.writer.latex_policy import (
    ALLOWED_ENVS,
    AMPERSAND_ENVS,
    BLOCK_MODE_OK,
    CITE_COMMANDS,
    DANGEROUS_ENVS,
    DEFINERS,
    DROP_ARGUMENT,
    MATH_ENVS,
    REF_COMMANDS,
    STREAM_COMMANDS,
    THEOREM_LIKE,
    expl3_name_end,
    is_blocked,
)
from eurekaclaw.agents.writer.tex_skip import (
    OPT_ARG,
    group_end,
    matching_end,
    skip_definition,
    skip_group,
    skip_spaces,
    skip_stream_operands,
)
from eurekaclaw.model_text import is_writer_macro
from eurekaclaw.model_text.forged import skip_args as skip_writer_macro_args

SanitizeMode = Literal["prose", "block"]

_ENV_NAME = re.compile(r"\s*\{([A-Za-z]+\*?)\}")


@dataclass
class SanitizeResult:
    text: str
    removed: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.removed)


@dataclass
class _Env:
    name: str
    depth: int  # brace depth when the environment opened


def _escape_stray_dollars(text: str, removed: list[str]) -> str:
    """In each paragraph, an odd number of unescaped `$` means the last one is a currency sign
    or a typo; escape it so the rest of the paragraph is not read as math."""
    out = []
    for para in re.split(r"(\n[ \t]*\n)", text):
        if para.strip() == "" or not para:
            out.append(para)
            continue
        singles = [m.start() for m in re.finditer(r"(?<!\\)(?<!\$)\$(?!\$)", para)]
        if len(singles) % 2 == 1:
            pos = singles[-1]
            para = para[:pos] + "\\$" + para[pos + 1 :]
            removed.append("unbalanced $ escaped")
        doubles = [m.start() for m in re.finditer(r"(?<!\\)\$\$", para)]
        if len(doubles) % 2 == 1:
            pos = doubles[-1]
            para = para[:pos] + "\\$\\$" + para[pos + 2 :]
            removed.append("unbalanced $$ escaped")
        out.append(para)
    return "".join(out)


class _Walker:
    def __init__(
        self,
        text: str,
        mode: SanitizeMode,
        cite_keys: set[str] | None,
        labels: set[str] | None,
    ) -> None:
        self.text = text
        self.mode = mode
        self.cite_keys = cite_keys
        self.labels = labels
        self.out: list[str] = []
        self.removed: list[str] = []
        self.depth = 0
        self.envs: list[_Env] = []
        self.inline_math: str | None = None  # "$", "$$", "\\(", "\\["

    # --- state ----------------------------------------------------------------------------------
    def in_math(self) -> bool:
        return self.inline_math is not None or any(e.name in MATH_ENVS for e in self.envs)

    def ampersand_ok(self) -> bool:
        for env in reversed(self.envs):
            if env.name in AMPERSAND_ENVS:
                return True
            if env.name in MATH_ENVS:
                return False
        return False

    def base_depth(self) -> int:
        return self.envs[-1].depth if self.envs else 0

    def close_braces_to(self, depth: int) -> None:
        while self.depth > depth:
            self.out.append("}")
            self.depth -= 1
            self.removed.append("unclosed { closed")

    def close_env(self, env: _Env) -> None:
        self.close_braces_to(env.depth)
        self.out.append(f"\\end{{{env.name}}}")

    # --- main loop ----------------------------------------------------------------------------
    def run(self) -> SanitizeResult:
        text = self.text
        i = 0
        prose = self.mode == "prose"
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i = self.control(i)
                continue
            if ch == "{":
                self.depth += 1
                self.out.append(ch)
            elif ch == "}":
                if self.depth > self.base_depth():
                    self.depth -= 1
                    self.out.append(ch)
                else:
                    self.removed.append("unbalanced } dropped")
            elif ch == "$":
                i = self.dollar(i)
                continue
            elif ch == "%" and prose:
                self.out.append("\\%")
            elif ch == "#":
                if prose:
                    self.out.append("\\#")
                else:
                    self.out.append(ch)
            elif ch == "&" and prose and not self.ampersand_ok():
                self.out.append("\\&")
            elif ch in "_^" and prose and not self.in_math():
                self.out.append("\\_" if ch == "_" else "\\^{}")
            else:
                self.out.append(ch)
            i += 1
        self.finish()
        return SanitizeResult("".join(self.out), self.removed)

    def finish(self) -> None:
        if self.inline_math is not None:
            closer = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}[self.inline_math]
            self.out.append(closer)
            self.removed.append("unclosed math closed")
            self.inline_math = None
        while self.envs:
            env = self.envs.pop()
            self.close_env(env)
            self.removed.append(f"unclosed environment {env.name} closed")
        self.close_braces_to(0)

    def dollar(self, i: int) -> int:
        token = "$$" if self.text.startswith("$$", i) else "$"
        if self.inline_math == "$":
            self.inline_math = None
            self.out.append("$")
            return i + 1
        if self.inline_math == "$$" and token == "$$":
            self.inline_math = None
            self.out.append("$$")
            return i + 2
        if self.inline_math is not None or self.in_math():
            # a `$` inside \( \), \[ \] or a math environment cannot be right
            self.removed.append("$ inside math dropped")
            return i + len(token)
        self.inline_math = token
        self.out.append(token)
        return i + len(token)

    def control(self, i: int) -> int:
        text = self.text
        m = re.match(r"\\([A-Za-z]+|.)", text[i:], re.DOTALL)
        if m is None:  # a lone backslash at the very end
            self.removed.append("trailing backslash dropped")
            return len(text)
        name = m.group(1)
        end = i + m.end()
        if not name.isalpha():
            return self.symbol(name, m.group(0), end)
        if name == "begin":
            return self.begin(end)
        if name == "end":
            return self.end(end)
        if self.mode == "prose" and name in CITE_COMMANDS:
            return self.cite(name, i, end)
        if self.mode == "prose" and name in REF_COMMANDS:
            return self.ref(name, i, end)
        expl_end = expl3_name_end(text, name, end)
        if expl_end is not None:
            self.removed.append(f"removed expl3 \\{text[i + 1 : expl_end]}")
            return expl_end
        if is_blocked(name) and not (self.mode == "block" and name in BLOCK_MODE_OK):
            return self.blocked(name, end)
        self.out.append(m.group(0))
        return end

    def symbol(self, name: str, token: str, end: int) -> int:
        """A control symbol: a math delimiter kept only where it balances, `\\@` dropped."""
        if name in ("(", "["):
            if self.inline_math is None and not self.in_math():
                self.inline_math = "\\" + name
                self.out.append(token)
            else:
                self.removed.append(f"nested \\{name} dropped")
        elif name in (")", "]"):
            if self.inline_math == "\\" + ("(" if name == ")" else "["):
                self.inline_math = None
                self.out.append(token)
            else:
                self.removed.append(f"unmatched \\{name} dropped")
        elif name == "@":
            # \@ is harmless alone, but `\@@input` reads like a primitive to a human reviewer
            self.removed.append("\\@")
        else:
            self.out.append(token)
        return end

    def blocked(self, name: str, end: int) -> int:
        """Drop a blocked command together with what it would consume."""
        text = self.text
        self.removed.append(f"removed \\{name}")
        if is_writer_macro(name):
            return skip_writer_macro_args(text, end)
        if name in DEFINERS:
            return skip_definition(name, text, end)
        if name in STREAM_COMMANDS:
            return skip_stream_operands(text, end)
        if name in DROP_ARGUMENT:
            j = skip_spaces(text, end)
            while j < len(text) and (text[j].isdigit() or text[j] in "=*"):
                j += 1
            return skip_group(text, j)
        return end

    def begin(self, end: int) -> int:
        text = self.text
        m = _ENV_NAME.match(text, end)
        if m is None:
            self.removed.append("\\begin without a name")
            return end
        name = m.group(1)
        body = m.end()
        theorem_like = self.mode == "prose" and name in THEOREM_LIKE
        if name in DANGEROUS_ENVS or theorem_like:
            self.removed.append(f"environment {name} removed")
            return matching_end(text, name, body)
        allowed = name in ALLOWED_ENVS or (self.mode == "block" and name == "proof")
        if not allowed:
            self.removed.append(f"environment {name} unwrapped")
            return body
        if name in MATH_ENVS and self.in_math():
            self.removed.append(f"nested math environment {name} unwrapped")
            return body
        self.envs.append(_Env(name, self.depth))
        self.out.append(f"\\begin{{{name}}}")
        return body

    def end(self, end: int) -> int:
        m = _ENV_NAME.match(self.text, end)
        if m is None:
            self.removed.append("\\end without a name")
            return end
        name = m.group(1)
        if not any(e.name == name for e in self.envs):
            if name in ALLOWED_ENVS or name in THEOREM_LIKE or name in DANGEROUS_ENVS:
                self.removed.append(f"unmatched \\end{{{name}}} dropped")
            return m.end()
        while self.envs:
            env = self.envs.pop()
            if env.name == name:
                self.close_env(env)
                break
            self.close_env(env)
            self.removed.append(f"unclosed environment {env.name} closed")
        return m.end()

    def _args(self, end: int) -> tuple[int, str, str | None]:
        """Optional star and [..] arguments, then the mandatory {..} group."""
        text = self.text
        j = end
        if j < len(text) and text[j] == "*":
            j += 1
        opts_start = j
        while True:
            m = OPT_ARG.match(text, j)
            if not m:
                break
            j = m.end()
        opts = text[opts_start:j]
        k = skip_spaces(text, j)
        if k < len(text) and text[k] == "{":
            close = group_end(text, k)
            return close, text[end:j], text[k + 1 : close - 1]
        return j, opts, None

    def cite(self, name: str, start: int, end: int) -> int:
        stop, head, group = self._args(end)
        if group is None:
            self.removed.append(f"\\{name} without keys dropped")
            return stop
        if name == "citetext":
            self.removed.append("\\citetext dropped")
            return stop
        keys = [k.strip() for k in group.split(",") if k.strip()]
        allowed = [k for k in keys if self.cite_keys is None or k in self.cite_keys]
        for key in keys:
            if key not in allowed:
                self.removed.append(f"citation {key} dropped (not a verified reference)")
        if not allowed:
            return stop
        if "{" in head or "\\" in head:
            head = ""
        self.out.append(f"\\{name}{head}{{{','.join(allowed)}}}")
        return stop

    def ref(self, name: str, start: int, end: int) -> int:
        stop, _head, group = self._args(end)
        label = (group or "").strip()
        if group is None or (self.labels is not None and label not in self.labels):
            self.removed.append(f"\\{name}{{{label}}} dropped (unknown label)")
            return stop
        self.out.append(f"\\{name}{{{label}}}")
        return stop


def sanitize_latex(
    text: str,
    *,
    mode: SanitizeMode = "prose",
    cite_keys: set[str] | None = None,
    labels: set[str] | None = None,
) -> SanitizeResult:
    """Model LaTeX made safe (see the module docstring). cite_keys/labels None = keep all."""
    removed: list[str] = []
    clean = CONTROL_CHARS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    if clean != text.replace("\r\n", "\n").replace("\r", "\n"):
        removed.append("control characters")
    while "^^" in clean:
        clean = clean.replace("^^", "^")
        removed.append("^^ notation")
    if mode == "prose":
        clean = _escape_stray_dollars(clean, removed)
    result = _Walker(clean, mode, cite_keys, labels).run()
    result.removed[:0] = removed
    return result
