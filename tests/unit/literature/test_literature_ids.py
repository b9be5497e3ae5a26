from __future__ import annotations

import pytest

from eurekaclaw.errors import BadInputError
from eurekaclaw.tools.literature.ids import (
    arxiv_id_from_doi,
    normalize_arxiv_id,
    normalize_doi,
    parse_paper_id,
    validate_paper_ids,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1204.5721", "1204.5721"),
        ("1706.03762v5", "1706.03762v5"),
        ("arXiv:1706.03762", "1706.03762"),
        ("https://arxiv.org/abs/2312.07559v2", "2312.07559v2"),
        ("math/0601001", "math/0601001"),
        ("hep-th/9901001v2", "hep-th/9901001v2"),
        ("math.AG/0601001", "math/0601001"),
        ("0704.0001", "0704.0001"),
    ],
)
def test_arxiv_ids_normalise(raw: str, expected: str) -> None:
    assert normalize_arxiv_id(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "1204.572",  # too short
        "1706.0376",  # 2017 ids have five digits
        "1204.57210",  # 2012 ids have four
        "1213.5721",  # month 13
        "0612.0001",  # new style began in April 2007
        "math/0613001",  # month 13
        "mth/0601001",  # no such archive
        "math/1001001",  # old style ended in 2007
        "abc",
        "",
    ],
)
def test_malformed_arxiv_ids_are_rejected(raw: str) -> None:
    assert normalize_arxiv_id(raw) is None


def test_dois_normalise_and_arxiv_dois_map_to_arxiv_ids() -> None:
    assert normalize_doi("https://doi.org/10.1073/PNAS.1414271111") == "10.1073/pnas.1414271111"
    assert normalize_doi("doi:10.1073%2Fpnas.1414271111") == "10.1073/pnas.1414271111"
    assert normalize_doi("10.1073") is None
    assert arxiv_id_from_doi("10.48550/arXiv.2312.07559") == "2312.07559"
    ref = parse_paper_id("10.48550/arXiv.2312.07559")
    assert ref is not None and (ref.kind, ref.value) == ("arxiv", "2312.07559")


def test_parse_paper_id_kinds() -> None:
    assert parse_paper_id("10.1103/PhysRevB.85.115117").kind == "doi"  # type: ignore[union-attr]
    s2 = "7E55D8701785818776323B4147CB13354C820469"
    ref = parse_paper_id(s2)
    assert ref is not None and ref.kind == "s2" and ref.value == s2.lower()
    assert parse_paper_id("s2:nothex") is None


def test_validate_paper_ids_normalises_and_dedupes() -> None:
    assert validate_paper_ids(["1204.5721", "arXiv:1204.5721", "math/0601001", "doi:10.1073/X.1"]) == [
        "1204.5721",
        "math/0601001",
        "10.1073/x.1",
    ]


def test_validate_paper_ids_names_the_bad_id() -> None:
    with pytest.raises(BadInputError) as err:
        validate_paper_ids(["1204.5721", "1204.57x1"])
    assert "1204.57x1" in err.value.user_message()
    assert err.value.exit_code == 2


def test_validate_paper_ids_needs_one_id() -> None:
    with pytest.raises(BadInputError):
        validate_paper_ids([])
