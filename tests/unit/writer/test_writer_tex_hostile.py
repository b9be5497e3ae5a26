"""Prose that tries to make TeX write files: refused by the sanitiser, and, should anything get
past it, by the compile itself (TeX's paranoid file access, no shell escape)."""

from __future__ import annotations

from pathlib import Path

import pytest
import writer_helpers as wh
from toolreq import require_tool

from eurekaclaw.agents.writer import WriteStage
from eurekaclaw.agents.writer.compile import compile_tex, find_toolchain
from eurekaclaw.types.tasks import InputSpec

EXPL3_ATTACK = (
    r"Regret bounds are classical. \ExplSyntaxOn \iow_new:N \g_ec_iow "
    r"\iow_open:Nn \g_ec_iow {TARGET} \iow_now:Nn \g_ec_iow {owned} \iow_close:N \g_ec_iow "
    r"\sys_shell_now:n {touch~SHELL} \ExplSyntaxOff{} We study UCB1."
)


async def test_expl3_in_prose_writes_no_file(tmp_path: Path) -> None:
    require_tool("latexmk")
    target = tmp_path / "chosen-by-prose.tex"
    shell = tmp_path / "shell-ran"
    attack = EXPL3_ATTACK.replace("TARGET", str(target)).replace("SHELL", str(shell))
    bus = wh.session(tmp_path, with_experiment=False)
    prose = dict(
        wh.GOOD_PROSE,
        introduction=attack + " " + wh.GOOD_PROSE["introduction"],
        related_work=attack.replace(str(target), "local-target"),
    )
    ctx = wh.context(bus, rules=[{"role": "writer", "output": "PaperProse", "reply": prose}])
    outcome = await WriteStage().run(ctx, InputSpec(mode="prove", statement="UCB1 regret"))
    assert outcome.status == "completed", outcome.reason
    sdir = bus.session_dir
    assert sdir is not None
    tex = (sdir / "paper.tex").read_text()
    for name in ("ExplSyntaxOn", "iow_", "sys_shell", "\\iow"):
        assert name not in tex
    assert not target.exists() and not shell.exists()
    assert not list(sdir.rglob("local-target*"))


@pytest.mark.parametrize("where", ["../escaped.txt", "ABSOLUTE", ".hidden.txt"])
async def test_tex_cannot_write_outside_the_build_directory(tmp_path: Path, where: str) -> None:
    """The last line of defence when a hostile source reaches TeX unfiltered."""
    require_tool("latexmk")
    toolchain = find_toolchain()
    assert toolchain is not None
    build = tmp_path / "build"
    build.mkdir()
    path = str(tmp_path / "absolute.txt") if where == "ABSOLUTE" else where
    (build / "paper.tex").write_text(
        "\\documentclass{article}\\begin{document}\n"
        f"\\newwrite\\w\\immediate\\openout\\w={path}\\immediate\\write\\w{{owned}}\\immediate\\closeout\\w\n"
        "\\immediate\\write18{touch shell-escape-ran}\n"
        "x\\end{document}\n"
    )
    await compile_tex(build, "paper.tex", toolchain, 120.0)
    assert not (tmp_path / "escaped.txt").exists()
    assert not (tmp_path / "absolute.txt").exists()
    assert not (build / ".hidden.txt").exists()
    assert not (build / "shell-escape-ran").exists()


async def test_latexmk_runs_in_the_sandbox(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With TeX's own file limits switched off, the sandbox alone still hides EUREKACLAW_DIR and
    the host's /tmp; the same source run outside the sandbox reads and writes both (control)."""
    require_tool("latexmk")
    from eurekaclaw import sandbox
    from eurekaclaw.agents.writer import compile as tex_compile

    if not sandbox.status().available:
        pytest.skip(f"no sandbox here: {sandbox.status().reason}")
    secret = isolated_home / "secret.txt"
    secret.write_text("TOPSECRETVALUE\n")
    out = tmp_path / "written-from-tex.txt"
    monkeypatch.setattr(
        tex_compile, "TEX_SETTINGS", {**tex_compile.TEX_SETTINGS, "openin_any": "a", "openout_any": "a"}
    )
    source = (
        "\\documentclass{article}\\begin{document}\n"
        f"\\newread\\r\\immediate\\openin\\r={secret}\\relax\n"
        "\\ifeof\\r NOFILE\\else\\read\\r to\\l \\message{READ:\\l}\\fi\n"
        f"\\newwrite\\w\\immediate\\openout\\w={out}\\immediate\\write\\w{{x}}\\immediate\\closeout\\w\n"
        "x\\end{document}\n"
    )
    toolchain = find_toolchain()
    assert toolchain is not None

    async def run(name: str) -> str:
        build = tmp_path / name
        build.mkdir()
        (build / "paper.tex").write_text(source)
        await compile_tex(build, "paper.tex", toolchain, 120.0)
        return (build / "paper.log").read_text("utf-8", "replace")

    log = await run("sandboxed")
    assert "TOPSECRETVALUE" not in log and not out.exists()
    monkeypatch.setattr(tex_compile, "use_sandbox", lambda: False)
    log = await run("direct")
    assert "TOPSECRETVALUE" in log and out.exists()  # the control: without the sandbox it leaks
