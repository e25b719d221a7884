"""The package's public surface is exactly its __all__, and the core imports without the sandbox."""

import subprocess
import sys

import dealframe


def test_all_is_sorted_and_exact():
    # In a fresh interpreter: pytest's plugins import dealframe.sandbox into this one.
    listing = subprocess.run(
        [sys.executable, "-c", "import dealframe; print(' '.join(dir(dealframe)))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    public = {name for name in listing if not name.startswith("_")}
    exported = set(dealframe.__all__) - {"__version__"}
    modules = {
        "client",
        "config",
        "errors",
        "frames",
        "notices",
        "provenance",
        "public",
        "private",
        "transport",
        "analytics",
        "_vocab",
        "contract",
        "arguments",
        "clitools",
        "comparison",
        "currency",
        "link",
        "field_names",
    }
    assert exported <= public
    assert public - exported <= modules, f"unexported public names: {public - exported - modules}"
    assert dealframe.__all__ == sorted(dealframe.__all__)


def test_core_works_without_the_sandbox_extra():
    # Block starlette and uvicorn: the client must import and build frames without them.
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('starlette', 'uvicorn'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import dealframe\n"
        "from dealframe.frames.private import deals_frame\n"
        "c = dealframe.Client('http://127.0.0.1:9', 'a', 'b', cache_enabled=False)\n"
        "print(len(deals_frame([])), 'starlette' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "False"]
