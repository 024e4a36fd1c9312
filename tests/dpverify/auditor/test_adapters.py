"""The black-box adapter layer: loading targets, call shapes, output conventions, clear errors."""

import numpy as np
import pytest

from mechanisms.core import BOT
from mechanisms.errors import AdapterError, InvalidParameter
from mechanisms.exponential import PeelingEM

from dpverify.auditor.adapters import OutcomeAdapter, Target, detect_shape, load_target, reference_kind


@pytest.mark.parametrize(
    "raw,expected",
    [
        (2, (2,)),
        (np.int64(1), (1,)),
        (2.0, (2,)),
        ([2, 0], (2, 0)),
        ((2, 0), (2, 0)),
        (np.array([3, 1]), (3, 1)),
        (None, (BOT,)),
        (BOT, (BOT,)),
        (-1, (BOT,)),
        ("⊥", (BOT,)),
        ([], (BOT,)),
        ([2, None], (2, BOT)),
        ([2, -1, -1], (2, BOT)),
        (np.array([2.0, np.nan]), (2, BOT)),
        ({1, 3}, frozenset({1, 3})),
        (frozenset({0}), frozenset({0})),
    ],
)
def test_conventions_without_reference(raw, expected):
    assert OutcomeAdapter(4)(raw) == expected


@pytest.mark.parametrize(
    "raw,needle",
    [
        ("abc", "a str is not an outcome"),
        ({"a": 1}, "a dict is not an outcome"),
        (2.5, "not an integer item index (a released noisy value?)"),
        ([1, 7.25], "7.25"),
        (4, "index 4 is out of range for d=4 (1-based indices? pass index_base=1)"),
        ([1, None, 2], "an index follows ⊥"),
        ({1, None}, "a set output cannot contain ⊥"),
        ([True], "is a bool"),
        (np.zeros((2, 2)), "shape (2, 2)"),
    ],
)
def test_unmappable_outputs_raise_adapter_error(raw, needle):
    with pytest.raises(AdapterError, match="cannot map output") as exc:
        OutcomeAdapter(4)(raw)
    assert needle in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_reconciliation_with_the_reference_kind():
    ordered_bot = reference_kind([(0, 1), (1, BOT), (BOT,)])
    assert ordered_bot == {"set": False, "bot": True, "k": 2}
    ad = OutcomeAdapter(3, ordered_bot)
    assert ad([1]) == (1, BOT)  # short output = stopped early
    assert ad([1, 2]) == (1, 2)
    assert ad({2}) == (2,)
    with pytest.raises(AdapterError, match="unordered sets"):
        ad({1, 2})
    sets = OutcomeAdapter(3, reference_kind([frozenset({0, 1}), frozenset({1, 2})]))
    assert sets([2, 1]) == frozenset({1, 2})
    with pytest.raises(AdapterError, match="⊥ in the output of a set-valued"):
        sets([2, None])


def test_index_base_and_support_passthrough():
    assert OutcomeAdapter(3, index_base=1)([3, 1]) == (2, 0)
    with pytest.raises(InvalidParameter, match="index_base=2"):
        OutcomeAdapter(3, index_base=2)
    custom = ("A", "value=3")
    assert OutcomeAdapter(3, support=frozenset({custom}))(custom) == custom


def test_count_normalises_each_distinct_output_once():
    ad = OutcomeAdapter(3)
    c = ad.count([[0, 1], [0, 1], np.array([0, 1]), (1,), 1, None])
    assert c == {(0, 1): 3, (1,): 2, (BOT,): 1}


def test_shape_detection():
    assert detect_shape(PeelingEM(2, 1)) == "mechanism"
    assert detect_shape(lambda h, rng, size: None) == "batch"
    assert detect_shape(lambda h, rng, *, size=1: None) == "batch"
    assert detect_shape(lambda h, rng: None) == "single"
    assert detect_shape(lambda h: None) == "unseeded"
    with pytest.raises(AdapterError, match="takes no histogram"):
        detect_shape(lambda: None)
    with pytest.raises(AdapterError, match="neither callable"):
        detect_shape(42)


def test_target_draws_every_shape():
    rng = np.random.default_rng(0)
    batch = Target(lambda h, rng, size: np.tile(np.array([[0, 1]]), (size, 1)))
    assert batch.draw((1, 0), 3, rng) == [(0, 1)] * 3
    single = Target(lambda h, rng: int(rng.integers(0, 2)))
    assert len(single.draw((1, 0), 5, rng)) == 5 and single.seeded
    unseeded = Target(lambda h: 0)
    assert not unseeded.seeded and unseeded.draw((1, 0), 2, rng) == [0, 0]
    wrong = Target(lambda h, rng, size: [0] * (size + 1))
    with pytest.raises(AdapterError, match="returned 4 outputs for size=3"):
        wrong.draw((1, 0), 3, rng)
    arr = Target(lambda h, rng: type(h).__name__, h_format="array")
    assert arr.draw((1, 0), 1, rng) == ["ndarray"]
    with pytest.raises(InvalidParameter, match="shape='nope'"):
        Target(lambda h: 0, shape="nope")


def test_load_target_from_module_file_and_class(tmp_path):
    f = load_target("mechanisms.core:sorted_items")
    assert f([1, 3]) == [1, 0]
    mech = load_target("mechanisms.exponential:PeelingEM", {"k": 2, "eps": 1})
    assert mech == PeelingEM(2, 1)
    p = tmp_path / "impl.py"
    p.write_text("def sampler(h, rng):\n    return 0\n")
    assert load_target(f"{p}:sampler")([1], None) == 0
    with pytest.raises(InvalidParameter, match="must look like package.module:name"):
        load_target("no_colon_here")
    with pytest.raises(InvalidParameter, match="cannot import"):
        load_target("no.such.module:f")
    with pytest.raises(InvalidParameter, match="has no attribute 'nope'"):
        load_target("mechanisms.core:nope")
    with pytest.raises(InvalidParameter, match="no file"):
        load_target(f"{tmp_path}/missing.py:f")
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(InvalidParameter, match="importing .* failed: RuntimeError"):
        load_target(f"{bad}:f")
