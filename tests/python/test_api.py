"""The type stub (__init__.pyi) describes the module as built, and help(joinery) documents it."""
import ast
import pathlib
import pydoc

import joinery


def stub():
    return ast.parse((pathlib.Path(joinery.__file__).parent / "__init__.pyi").read_text())


def test_stub_covers_every_public_name():
    tree = stub()
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    assert set(joinery.__all__) <= names


def test_every_stubbed_member_exists():
    for node in stub().body:
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(joinery, node.name)
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and node.name not in ("InputError", "ModelError"):
                assert hasattr(cls, item.target.id), f"{node.name}.{item.target.id}"
            elif isinstance(item, ast.FunctionDef):
                assert hasattr(cls, item.name), f"{node.name}.{item.name}()"


def test_help_documents_the_api():
    text = pydoc.render_doc(joinery, renderer=pydoc.plaintext)
    for word in ("load(", "InputError", "ModelBuilder", "simulate", "GIL"):
        assert word in text
    assert joinery.Model.simulate.__doc__ and "callback" in joinery.Model.simulate.__doc__
    assert ".path" in joinery.InputError.__doc__
