"""The interface document's section 4.4 is written down twice: as the client's
``documented_document`` (what it checks a filter's value against when the service's own
discovery document cannot be read) and as the sandbox's served discovery documents (the
sandbox stands alone and imports nothing from the client). Both copies must say the same:
the same filters in the same order with the same types, operators and enum lists, the same
sort keys and sub-resources. Only the sandbox's descriptions of each filter, and its
``aggregate`` block for transactions, are its own."""

from __future__ import annotations

from typing import Any

import pytest

from dealframe.private.filters import FilterSchema, documented_document, documented_schema
from dealframe.sandbox.discovery import discovery_document

ENTITIES = ["companies", "investors", "transactions"]


def _without_descriptions(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "filters": [{k: v for k, v in f.items() if k != "description"} for f in doc["filters"]],
        "sort_fields": doc["sort_fields"],
        "sub_resources": doc["sub_resources"],
    }


@pytest.mark.parametrize("entity", ENTITIES)
def test_the_client_and_the_sandbox_write_the_same_discovery_document(entity):
    served = discovery_document(entity)
    documented = documented_document(entity)
    assert set(served) - {"aggregate"} == set(documented)
    assert _without_descriptions(served) == documented


@pytest.mark.parametrize("entity", ENTITIES)
def test_the_documented_schema_reads_the_served_document_alike(entity):
    """What the client reads of each copy (types, operators, enum lists) is the same."""
    served = FilterSchema(entity, discovery_document(entity))
    documented = documented_schema(entity)
    assert served.fields == documented.fields
    assert served.sort_fields == documented.sort_fields
    assert served.sub_resources == documented.sub_resources
