"""The house stays as ARCHITECTURE.md draws it.

The import graph is read from the source (every ``import`` / ``from ... import`` statement, including
those inside functions), never from what happens to be loaded:

* imports only point down the layers ``mechanisms`` -> ``proofs`` -> ``dpverify``;
* no import circles, between modules or through a package's face (its ``__init__``);
* a private module (``_name``) is imported only from its own layer;
* every room (package folder) of the code is on the map (``ARCHITECTURE.md``) and every room on the map exists;
* every dotted code pointer of the claims ledger (``Claim.code``, printed in ``proofs/INDEX.md``) resolves;
* docstrings and comments cite only what a clone holds: no design or style notes kept outside the repository
  (they are ``docs/design.md`` and ``docs/style.md``), no issue numbers, no numbers of the stored paper copies;
  and every paper key they cite (``DR19 Algorithm 1``, ``CWGM20 §3.2``, ids such as
  ``GJMR21.Thm8``) is defined in ``docs/references.md``.

Each rule is shown able to fail on a small synthetic tree with the violation planted.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the layers, lowest first: a module may import its own layer and the layers before it
LAYERS = ("mechanisms", "proofs", "dpverify")


def module_files(root: Path) -> dict[str, Path]:
    """Every module of the three layers under ``root``: dotted name -> file (a package is its ``__init__.py``)."""
    out = {}
    for layer in LAYERS:
        for p in sorted((root / layer).rglob("*.py")):
            parts = p.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = p
    return out


def _targets(node: ast.AST, here: str, is_package: bool, modules: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] in LAYERS]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = here.split(".") if is_package else here.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        mod = ".".join(base + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    if mod.split(".")[0] not in LAYERS:
        return []
    out = []
    for a in node.names:
        sub = f"{mod}.{a.name}"
        out.append(sub if sub in modules else mod)
    return out


def import_graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    """``{module: {imported module: first line}}`` for every module of the layers under ``root``."""
    modules = module_files(root)
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for t in _targets(node, name, path.name == "__init__.py", modules):
                    if t != name:
                        edges.setdefault(t, node.lineno)
        graph[name] = edges
    return graph


def upward_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    """Imports from a lower layer into a higher one, as ``module:line -> target``."""
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    return [f"{m}:{line} -> {t}" for m, edges in graph.items() for t, line in edges.items()
            if rank[t.split(".")[0]] > rank[m.split(".")[0]]]


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def private_imports_across_layers(graph: dict[str, dict[str, int]]) -> list[str]:
    """Imports of a private module (a ``_name`` part) from another layer."""
    return [f"{m}:{line} -> {t}" for m, edges in graph.items() for t, line in edges.items()
            if any(p.startswith("_") for p in t.split(".")) and t.split(".")[0] != m.split(".")[0]]


def rooms(root: Path = ROOT) -> set[str]:
    """Every package folder of the layers, as ``layer/sub/`` paths."""
    return {str(p.parent.relative_to(root)) + "/" for layer in LAYERS for p in (root / layer).rglob("__init__.py")}


def rooms_on_the_map(root: Path = ROOT) -> set[str]:
    """The package folders ``ARCHITECTURE.md`` names (backquoted ``layer/.../`` paths)."""
    text = (root / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return set(re.findall(r"`((?:%s)(?:/[a-z_0-9]+)*/)`" % "|".join(LAYERS), text))


#: what a clone cannot follow: the stored paper copies by number, notes outside the repository, this project's
#: issue numbers (another project's issue, ``opendp/opendp issue #2911``, can be followed: ``repo`` is set)
STALE_CITATION = re.compile(r"\b[Ss]eeds? 00\d|(?<![\w.])00\d(?= ?§)"
                            r"|\b(?:DESIGN|STYLE)\.md\b|(?P<repo>\b[\w.-]+/[\w.-]+ )?(?i:\bissues? #?\d+)"
                            r"|(?i:\bthe issue's\b)")
#: a place in a paper: what follows a bibliography key when it is cited
_PLACE = (r"(?:§|Alg(?:orithm)?s?\.?|Thm\.?|Theorems?|Lem(?:ma|mas|\.)?|Cor(?:ollary)?\.?|Def(?:inition)?\.?|"
          r"Prop(?:osition)?\.?|Claims?|[Ee]qs?\.|Sec(?:tions?|\.)|App(?:endix)?\.?|Fig(?:ure)?\.?|Tables?|Remark|Example|ref\.)")
#: a bibliography key (``DR19``, ``CWGM20``, ``DR19-NeurIPS``, ``Mir12``) cited with a place, or a ledger id's key
CITED_KEY = re.compile(r"(?<![\w.-])([A-Z][A-Za-z]*\d{2}(?:-[A-Z][A-Za-z]+)?)"
                       r"(?:\s+" + _PLACE + r"|\.(?:Thm|Lem|Alg|Def|Cor|Claim|Prop|Fn|Table|Fig)\d)")


def prose(path: Path) -> list[tuple[int, str]]:
    """The docstrings (module, class, function) and comments of a module, with their first line."""
    src = path.read_text(encoding="utf-8")
    out = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                out.append((node.body[0].lineno, doc))
    out += [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type == tokenize.COMMENT]
    return out


#: folders whose Python files are read for citations besides the layers
PROSE_DIRS = ("tests", "examples")


def prose_files(root: Path = ROOT) -> list[Path]:
    """The modules of the layers, then every Python file of the tests and the examples."""
    return [*module_files(root).values(), *(p for d in PROSE_DIRS for p in sorted((root / d).rglob("*.py")))]


def stale_citations(root: Path = ROOT) -> list[str]:
    """Citations in docstrings and comments that a reader with only the clone cannot follow, as ``file:line: text``."""
    return [f"{p.relative_to(root)}:{line}: {m.group(0)}" for p in prose_files(root)
            for line, text in prose(p) for m in STALE_CITATION.finditer(text) if not m.group("repo")]


def defined_keys(root: Path = ROOT) -> set[str]:
    """The bibliography keys ``docs/references.md`` defines (its ``### KEY`` headings)."""
    return set(re.findall(r"^### (\S+)\s*$", (root / "docs" / "references.md").read_text(encoding="utf-8"), re.MULTILINE))


def undefined_keys(root: Path = ROOT) -> list[str]:
    """Keys cited in docstrings and comments that ``docs/references.md`` does not define, as ``file:line: KEY``."""
    have = defined_keys(root)
    return [f"{p.relative_to(root)}:{line}: {m.group(1)}" for p in prose_files(root)
            for line, text in prose(p) for m in CITED_KEY.finditer(text) if m.group(1) not in have]


# ----------------------------------------------------------------------------- the house as it is


def test_imports_only_point_down_the_layers():
    bad = upward_imports(import_graph())
    assert not bad, "imports running up a layer:\n  " + "\n  ".join(bad)


def test_no_import_circles():
    bad = circles(import_graph())
    assert not bad, "import circles:\n  " + "\n  ".join(" <-> ".join(c) for c in bad)


def test_private_modules_are_imported_only_inside_their_layer():
    bad = private_imports_across_layers(import_graph())
    assert not bad, "private modules imported from another layer:\n  " + "\n  ".join(bad)


def test_every_room_is_on_the_map_and_every_room_on_the_map_exists():
    have, drawn = rooms(), rooms_on_the_map()
    assert have - drawn == set(), f"rooms missing from ARCHITECTURE.md: {sorted(have - drawn)}"
    assert drawn - have == set(), f"ARCHITECTURE.md names rooms that do not exist: {sorted(drawn - have)}"


def test_public_functions_are_not_shadowed_by_their_rooms():
    """``dpverify.check`` / ``dpverify.audit`` are functions; their rooms have other names, so
    ``import dpverify.checker.parallel as p`` works (a room named ``check`` would break it)."""
    import dpverify

    assert callable(dpverify.check) and callable(dpverify.audit)
    import dpverify.auditor.stats as stats
    import dpverify.checker.parallel as par

    assert par.__name__ == "dpverify.checker.parallel" and stats.__name__ == "dpverify.auditor.stats"


_POINTER = re.compile(r"\b((?:mechanisms|proofs|dpverify)(?:\.[A-Za-z_][A-Za-z_0-9]*)+)")


def _instance_attribute(cls: object, attr: str) -> bool:
    """A dataclass field, or an attribute a class's methods assign (``self.gaps = ...``)."""
    if not isinstance(cls, type):
        return False
    if attr in getattr(cls, "__dataclass_fields__", {}):
        return True
    return re.search(rf"self\.{attr}\s*(:[^=]*)?=", inspect.getsource(cls)) is not None


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr) and not _instance_attribute(obj, attr):
                return False
            obj = getattr(obj, attr, None)
        return True
    return False


def test_every_code_pointer_of_the_ledger_resolves():
    from proofs.registry import all_claims

    bad = [(c.id, p) for c in all_claims().values() for p in _POINTER.findall(c.code) if not _resolves(p)]
    assert bad == []


def test_docstrings_and_comments_cite_only_what_the_clone_holds():
    bad = stale_citations()
    assert not bad, f"{len(bad)} citations a clone cannot follow:\n  " + "\n  ".join(bad)


def test_every_cited_paper_key_is_in_the_references():
    bad = undefined_keys()
    assert not bad, "keys missing from docs/references.md:\n  " + "\n  ".join(bad)


# ----------------------------------------------------------------------------- each rule can fail


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    for layer in LAYERS:
        (tmp_path / layer).mkdir(exist_ok=True)
        (tmp_path / layer / "__init__.py").touch()
    return tmp_path


def test_an_upward_import_is_caught(tmp_path):
    root = _tree(tmp_path, {"mechanisms/core.py": "def f():\n    from dpverify.checker import check\n",
                            "dpverify/checker/__init__.py": "", "proofs/claims.py": "from mechanisms.core import f\n"})
    assert upward_imports(import_graph(root)) == ["mechanisms.core:2 -> dpverify.checker"]


def test_a_circle_is_caught_also_through_a_package_face(tmp_path):
    root = _tree(tmp_path, {
        "proofs/a.py": "from . import b\n", "proofs/b.py": "from proofs.a import x\n",
        "mechanisms/fam/__init__.py": "from .m import X\n", "mechanisms/fam/m.py": "from mechanisms.fam import Y\n",
        "mechanisms/ok/__init__.py": "from .m import X\n", "mechanisms/ok/m.py": "from mechanisms.ok.n import Y\n",
        "mechanisms/ok/n.py": "Y = 1\n",
    })
    assert circles(import_graph(root)) == [["mechanisms.fam", "mechanisms.fam.m"], ["proofs.a", "proofs.b"]]


def test_a_private_import_across_layers_is_caught(tmp_path):
    root = _tree(tmp_path, {"proofs/_helper.py": "X = 1\n", "proofs/ledger.py": "from ._helper import X\n",
                            "dpverify/cmd.py": "from proofs._helper import X\n"})
    assert private_imports_across_layers(import_graph(root)) == ["dpverify.cmd:1 -> proofs._helper"]


def test_a_room_missing_from_the_map_is_caught(tmp_path):
    root = _tree(tmp_path, {"mechanisms/exact/__init__.py": "",
                            "ARCHITECTURE.md": "`mechanisms/` `proofs/` `dpverify/` `mechanisms/gone/`\n"})
    assert rooms(root) - rooms_on_the_map(root) == {"mechanisms/exact/"}
    assert rooms_on_the_map(root) - rooms(root) == {"mechanisms/gone/"}


def test_a_stale_citation_is_caught(tmp_path):
    root = _tree(tmp_path, {"mechanisms/m.py": '"""As DESIGN.md says (seed 001 §2)."""\n\n\ndef f():\n'
                                               '    """Fixed in issue #12."""\n    return 1  # see STYLE.md §4, and issue 7\n',
                            "proofs/p.py": '"""DR19 Algorithm 1, docs/design.md ("Conventions"), opendp/opendp issue #2911. '
                                           'Not an issue: tissue 3."""\n'
                                           'X = "seed 001 in a string that reaches a report"\n'
                                           '# 004 §3, Algorithm 1; 0.004 §2 is a number\n',
                            "tests/test_m.py": "# as STYLE.md §4 asks\n"})
    assert stale_citations(root) == ["mechanisms/m.py:1: DESIGN.md", "mechanisms/m.py:1: seed 001",
                                     "mechanisms/m.py:5: issue #12", "mechanisms/m.py:6: STYLE.md", "mechanisms/m.py:6: issue 7",
                                     "proofs/p.py:3: 004", "tests/test_m.py:1: STYLE.md"]


def test_an_undefined_paper_key_is_caught(tmp_path):
    root = _tree(tmp_path, {"docs/references.md": "# References\n\n### DR19\n\nDurfee & Rogers.\n\n### DR19-NeurIPS\n\n...\n",
                            "dpverify/m.py": '"""DR19 Algorithm 1 and DR19-NeurIPS eq. (2); XY99 Lemma 3; PCG64 is a '
                                             'generator."""\n# the ledger id QQ21.Thm8 and QQ21 §4, but not QQ21 alone\n'})
    assert undefined_keys(root) == ["dpverify/m.py:1: XY99", "dpverify/m.py:2: QQ21", "dpverify/m.py:2: QQ21"]


@pytest.mark.parametrize("pointer, ok", [("mechanisms.limited_domain.gumbel.LimitDom", True), ("proofs.pld.br_delta", False),
                                         ("mechanisms.core.no_such_name", False), ("mechanisms.joint.sets.SetTables.gaps", True),
                                         ("mechanisms.joint.sets.SetTables.no_such_attribute", False)])
def test_a_stale_code_pointer_is_caught(pointer, ok):
    assert _resolves(pointer) is ok


def test_what_users_read_of_the_registries_cites_only_what_the_clone_holds():
    """The ``paper`` of every registered mechanism (``dpverify mechanisms``) and the ``source`` of every ledger item
    (the pages) are printed to users: no stored-copy numbers (a paper cited by its file number), notes or issue numbers."""
    from mechanisms.registry import MECHANISM_REGISTRY
    from proofs.registry import all_claims

    texts = [(f"mechanism {s.name}", s.paper) for s in MECHANISM_REGISTRY.entries().values()]
    texts += [(f"claim {c.id}", c.source) for c in all_claims().values()]
    assert len(texts) > 300
    assert [f"{who}: {m.group(0)}" for who, t in texts for m in STALE_CITATION.finditer(t or "") if not m.group("repo")] == []


def test_test_files_have_unique_names():
    """The tests folders have no ``__init__.py`` (pytest's default import mode): two test files of one name in two
    folders stop the collection ("import file mismatch")."""
    from collections import Counter

    names = Counter(p.name for p in (ROOT / "tests").rglob("test_*.py"))
    assert [n for n, c in names.items() if c > 1] == []
