"""``dealframe pull ENTITY [filters as flags] -o FILE``: any list or sub-collection to a file.

For ad-hoc pulls from the shell: Family B lists with the filters of their discovery
document as flags, sub-collections of the ids given by ``--id``, and Family A search and
current data, written as ``.parquet``, ``.csv`` or ``.xlsx`` (the ``excel`` extra). See
docs/pull.md.

Examples
--------
::

    dealframe pull deals --deal-type Venture --date-from 2024-01-01 -o deals.parquet
    dealframe pull co-investors --id 0b6f... --id 9c1e... -o pairs.csv
    dealframe pull current --regions "Western Europe" -o comps.xlsx --sandbox
"""

from __future__ import annotations

from .entities import ENTITIES, Entity, entity
from .output import FORMATS, check_output, portable_frame, write_frame

__all__ = [
    "ENTITIES",
    "FORMATS",
    "Entity",
    "check_output",
    "entity",
    "portable_frame",
    "write_frame",
]
