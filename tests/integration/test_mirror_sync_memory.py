"""What a full sync holds while it reads the feed grows by a few bytes a row, not by the ids'
text (issue 16: memory bounded by the page size, not the table). The Python memory held when the
walk ends (``tracemalloc``, at the staging's close, less what was held before the sync) for a
full sync of the deals over HTTP at two sizes: its growth per row between them. The sandbox runs
in another process (its own memory is not counted), grown by 1,000 deals a clock second, so
every page of the feed is a tie. Ids held as text cost about 245 bytes a row here; their 16-byte
keys, with the 64-bit keys of the rows read in ties, about 40."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tracemalloc

import dealframe.mirror as mirror
from dealframe.client import Client
from dealframe.mirror import store

#: Bytes a row the held memory may grow by (ids as text: about 245; as keys: about 45).
BOUND = 100

_SERVER = textwrap.dedent(
    """
    import sys
    import dealframe.sandbox
    from dealframe.sandbox.changes import Changes

    with dealframe.sandbox.run(scale=0.05, seed=7) as sb:
        changes = Changes(sb.state, seed=2)
        print(sb.url, sb.private_key, flush=True)
        for line in sys.stdin:  # grow to this many deals, 1,000 a clock second
            n = int(line)
            with changes.bulk():
                while len(sb.state.dataset.deals) < n:
                    changes.advance(1)
                    changes.insert("deals", min(1000, n - len(sb.state.dataset.deals)))
            print(len(sb.state.dataset.deals), flush=True)
    """
)


def test_a_full_sync_holds_a_few_bytes_a_row(tmp_path, monkeypatch):
    held: list[int] = []
    close = store.StagedRows.close

    def measured(self):
        if tracemalloc.is_tracing():
            held[-1] = tracemalloc.get_traced_memory()[0] - held[-1]
        return close(self)

    monkeypatch.setattr(store.StagedRows, "close", measured)
    sizes = (5_000, 20_000)  # both past the sandbox's 2,500 deals: ties in both
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None and server.stdin is not None
        url, key = server.stdout.readline().split()
        with Client(url, private_key=key, cache_enabled=False, progress=False) as client:
            mirror.sync(client, tmp_path / "warm", ["investors"], progress=False)
            for n in sizes:
                server.stdin.write(f"{n}\n")
                server.stdin.flush()
                assert int(server.stdout.readline()) == n
                tracemalloc.start()
                try:
                    held.append(tracemalloc.get_traced_memory()[0])
                    done = mirror.sync(client, tmp_path / f"m{n}", ["deals"], progress=False)
                finally:
                    tracemalloc.stop()
                assert done["deals"].full and done["deals"].rows_written == n
    finally:
        server.kill()
        server.wait()
    per_row = (held[1] - held[0]) / (sizes[1] - sizes[0])
    assert 0 < per_row < BOUND, f"{per_row:.0f} bytes a row held ({held})"
