"""install_skills: built-in seeds, folders, archives and git; and everything a hostile
source can try (traversal, absolute paths, links, oversized and non-skill files)."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from skillkit import write_skill
from toolreq import require_tool

from eurekaclaw.errors import BadInputError
from eurekaclaw.skills import install as install_mod
from eurekaclaw.skills.install import install_skills
from eurekaclaw.skills.registry import SkillRegistry, builtin_skills_dir

SKILL = "---\nname: {name}\ntags: [t]\nagent_roles: [prover]\ndescription: d\n---\n\nBody of {name}.\n"


def rejected_names(report) -> set[str]:
    return {r.name for r in report.rejected}


def test_seeds_install_then_keep_user_edits_unless_forced(tmp_path):
    dest = tmp_path / "skills"
    first = install_skills(None, dest)
    seeds = sorted(p.name for p in builtin_skills_dir().iterdir() if (p / "SKILL.md").exists())
    assert sorted(first.installed) == seeds and not first.rejected
    assert (dest / "induction" / "SKILL.md").read_text() == (
        builtin_skills_dir() / "induction" / "SKILL.md"
    ).read_text()
    second = install_skills(None, dest)
    assert sorted(second.unchanged) == seeds and not second.installed and not second.updated

    edited = dest / "induction" / "SKILL.md"
    edited.write_text(edited.read_text() + "\nMy own note.\n")
    third = install_skills(None, dest)
    assert [k.name for k in third.kept] == ["induction"] and "--force" in third.kept[0].reason
    assert "My own note." in edited.read_text()
    text = third.render()
    assert "kept:      induction (edited since it was installed; use --force to overwrite)" in text
    assert text.splitlines()[-1] == f"0 installed, 0 updated, {len(seeds) - 1} unchanged, 1 kept, 0 rejected"
    forced = install_skills(None, dest, force=True)
    assert forced.updated == ["induction"] and "My own note." not in edited.read_text()
    # installed seeds live in the user folder, so they take priority over the shipped copies,
    # and they say they were installed (not written by the user)
    reg = SkillRegistry(dest)
    assert reg.get("induction").origin == "installed"
    assert reg.get("induction").path.startswith(str(dest))
    write_skill(dest, "my-own-skill", body="mine")
    assert SkillRegistry(dest).get("my-own-skill").origin == "user"


def test_changed_seed_updates_an_unedited_copy(tmp_path, monkeypatch):
    seeds, dest = tmp_path / "seeds", tmp_path / "skills"
    write_skill(seeds, "alpha", body="version one")
    write_skill(seeds, "beta", body="beta")
    monkeypatch.setattr(install_mod, "builtin_skills_dir", lambda: seeds)
    install_skills(None, dest)
    write_skill(seeds, "alpha", body="version two")
    report = install_skills(None, dest)
    assert report.updated == ["alpha"] and report.unchanged == ["beta"]
    assert "version two" in (dest / "alpha" / "SKILL.md").read_text()
    # a skill the user wrote under a seed's name is never replaced silently
    write_skill(dest, "gamma", body="mine")
    write_skill(seeds, "gamma", body="shipped")
    report = install_skills(None, dest)
    assert [k.name for k in report.kept] == ["gamma"] and "mine" in (dest / "gamma" / "SKILL.md").read_text()


def test_a_skill_of_the_same_name_from_another_source_is_not_replaced_silently(tmp_path):
    first, second, dest = tmp_path / "first", tmp_path / "second", tmp_path / "skills"
    write_skill(first / "pack", "peeling", body="the first source's peeling")
    write_skill(second / "pack", "peeling", body="another source's peeling")
    assert install_skills(str(first / "pack"), dest).installed == ["peeling"]
    report = install_skills(str(second / "pack"), dest)
    assert [k.name for k in report.kept] == ["peeling"] and not report.updated
    assert "installed from" in report.kept[0].reason and str(first / "pack") in report.kept[0].reason
    assert "first source's" in (dest / "peeling" / "SKILL.md").read_text()
    # an update from the source it came from still replaces it, and --force replaces it from anywhere
    write_skill(first / "pack", "peeling", body="the first source's peeling, version two")
    assert install_skills(str(first / "pack"), dest).updated == ["peeling"]
    assert install_skills(str(second / "pack"), dest, force=True).updated == ["peeling"]
    assert "another source's" in (dest / "peeling" / "SKILL.md").read_text()


def test_install_from_a_folder_and_a_single_skill(tmp_path):
    src, dest = tmp_path / "src", tmp_path / "skills"
    write_skill(src / "pack", "one")
    write_skill(src / "pack", "two")
    (src / "pack" / "two" / "notes.md").write_text("extra notes")
    (src / "pack" / "README.md").write_text("a pack of skills")
    report = install_skills(str(src / "pack"), dest)
    assert sorted(report.installed) == ["one", "two"]
    assert (dest / "two" / "notes.md").read_text() == "extra notes"
    assert rejected_names(report) == {"README.md"}
    single = write_skill(src, "three")
    assert install_skills(str(single), dest).installed == ["three"]
    assert install_skills(str(single / "SKILL.md"), dest).unchanged == ["three"]


def test_folder_with_links_and_bad_files(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    write_skill(outside, "smuggled")
    src, dest = tmp_path / "src", tmp_path / "skills"
    write_skill(src, "good")
    linked = write_skill(src, "linked")
    os.symlink(outside / "secret.md", linked / "ref.md")
    os.symlink(outside / "smuggled", src / "smuggled")
    script = write_skill(src, "script")
    (script / "run.sh").write_text("rm -rf ~")
    big = write_skill(src, "big")
    (big / "data.md").write_text("x" * (300 * 1024))
    malformed = src / "malformed"
    malformed.mkdir()
    (malformed / "SKILL.md").write_text("---\nname: !!python/object/apply:os.system ['id']\n---\nbody\n")
    report = install_skills(str(src), dest)
    assert report.installed == ["good"]
    reasons = {r.name: r.reason for r in report.rejected}
    assert "outside the source" in reasons["linked"]
    assert "symbolic link" in reasons["smuggled"]
    assert "not a skill file" in reasons["script"]
    assert "oversized" in reasons["big"]
    assert "YAML" in reasons["malformed"] or "front matter" in reasons["malformed"]
    assert sorted(p.name for p in dest.iterdir() if not p.name.startswith("_")) == ["good"]


def _zip_entry(zf: zipfile.ZipFile, name: str, data: bytes, mode: int = 0o100644) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    zf.writestr(info, data)


def test_malicious_zip(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        _zip_entry(zf, "good/SKILL.md", SKILL.format(name="good").encode())
        _zip_entry(zf, "../x.md", b"escaped")
        _zip_entry(zf, "good/../../y.md", b"escaped too")
        _zip_entry(zf, "/tmp/abs-evil.md", b"absolute")
        _zip_entry(zf, "C:/win.md", b"drive")
        _zip_entry(zf, "linked/SKILL.md", SKILL.format(name="linked").encode())
        _zip_entry(zf, "linked/passwd", b"/etc/passwd", mode=0o120777)
        _zip_entry(zf, "big/SKILL.md", SKILL.format(name="big").encode())
        _zip_entry(zf, "big/notes.md", b"a" * (257 * 1024))
        _zip_entry(zf, "script/SKILL.md", SKILL.format(name="script").encode())
        _zip_entry(zf, "script/payload.py", b"import os")
    dest = tmp_path / "home" / "skills"
    report = install_skills(str(archive), dest)
    # any rejected entry rejects the whole archive, and the entries are listed
    assert report.installed == []
    reasons = {r.name: r.reason for r in report.rejected}
    assert "rejected entries" in reasons["good"] and "'../x.md'" in reasons["good"]
    assert "traversal" in reasons["../x.md"] and "traversal" in reasons["good/../../y.md"]
    assert "absolute" in reasons["/tmp/abs-evil.md"] and "absolute" in reasons["C:/win.md"]
    assert "symbolic link" in reasons["linked/passwd"] and "linked" in reasons
    assert "oversized" in reasons["big/notes.md"] and "big" in reasons
    assert "rejected entries" in reasons["script"]
    assert not (tmp_path / "x.md").exists() and not (tmp_path / "home" / "x.md").exists()
    assert not (tmp_path / "y.md").exists() and not Path("/tmp/abs-evil.md").exists()
    assert not dest.exists() or sorted(p.name for p in dest.iterdir() if not p.name.startswith("_")) == []


def test_malicious_tarball(tmp_path):
    archive = tmp_path / "evil.tar.gz"

    def add(tf: tarfile.TarFile, name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = "") -> None:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = link
        info.size = len(data) if kind == tarfile.REGTYPE else 0
        tf.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)

    with tarfile.open(archive, "w:gz") as tf:
        add(tf, "ok/SKILL.md", SKILL.format(name="ok").encode())
        add(tf, "ok2/SKILL.md", SKILL.format(name="ok2").encode())
        add(tf, "ok2/escape", kind=tarfile.SYMTYPE, link="../../../../etc/passwd")
        add(tf, "ok3/SKILL.md", SKILL.format(name="ok3").encode())
        add(tf, "ok3/hard", kind=tarfile.LNKTYPE, link="ok/SKILL.md")
        add(tf, "dev/SKILL.md", SKILL.format(name="dev").encode())
        add(tf, "dev/null", kind=tarfile.CHRTYPE)
        add(tf, "../../outside.md", b"x")
        add(tf, "/etc/evil.md", b"x")
    dest = tmp_path / "skills"
    report = install_skills(str(archive), dest)
    assert report.installed == []
    assert {"ok", "ok2", "ok3", "dev", "../../outside.md", "/etc/evil.md"} <= rejected_names(report)
    assert not (tmp_path.parent / "outside.md").exists()


def test_archive_that_expands_too_far_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("eurekaclaw.skills.archive.MAX_TOTAL_BYTES", 1024 * 1024)
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("s/SKILL.md", SKILL.format(name="s"))
        for i in range(8):
            zf.writestr(f"s/part{i}.md", b"0" * (200 * 1024))
    assert archive.stat().st_size < 50_000
    with pytest.raises(BadInputError, match="expands"):
        install_skills(str(archive), tmp_path / "skills")
    assert not (tmp_path / "skills" / "s").exists()


def test_unusable_sources(tmp_path):
    with pytest.raises(BadInputError):
        install_skills(str(tmp_path / "missing"), tmp_path / "skills")
    with pytest.raises(BadInputError):
        install_skills("   ", tmp_path / "skills")
    not_archive = tmp_path / "notes.pdf"
    not_archive.write_bytes(b"%PDF")
    with pytest.raises(BadInputError):
        install_skills(str(not_archive), tmp_path / "skills")
    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"not a zip at all")
    with pytest.raises(BadInputError):
        install_skills(str(fake), tmp_path / "skills")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(BadInputError, match="no skills"):
        install_skills(str(empty), tmp_path / "skills")


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_install_from_a_git_url(tmp_path):
    require_tool("git")
    repo = tmp_path / "repo"
    write_skill(repo / "skills", "from-git", body="cloned body")
    (repo / "README.md").write_text("readme")
    _git("init", "-q", cwd=repo)
    _git("add", ".", cwd=repo)
    _git("commit", "-q", "-m", "skills", cwd=repo)
    dest = tmp_path / "skills"
    report = install_skills(f"file://{repo}", dest)
    assert report.installed == ["from-git"]
    assert "cloned body" in (dest / "from-git" / "SKILL.md").read_text()
    assert not (dest / ".git").exists() and not (dest / "from-git" / ".git").exists()
    with pytest.raises(BadInputError, match="git clone"):
        install_skills(f"file://{tmp_path / 'no-such-repo'}", dest)
