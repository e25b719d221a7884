"""dealframe: a pandas-native client for a company, investor and deal data service.

Examples
--------
>>> import dealframe, dealframe.sandbox
>>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as client:
...     deals = client.private.deals(deal_type=["M&A"], limit=50)
...     people = dealframe.explode_participants(deals, roles=["lead_investor", "buyer"])
>>> list(people.columns[:3])
['deal_id', 'role', 'participant_id']
"""

from . import errors
from ._version import __version__
from .client import Client
from .comparison import Comparison, compare_multiples
from .config import Settings
from .currency import to_local, to_usd
from .doctor import doctor
from .errors import (
    AmbiguousNameError,
    ApiError,
    AuthenticationError,
    BadRequestError,
    CallError,
    ConfigurationError,
    DealframeError,
    EnumValueError,
    ExtraMissing,
    IncompleteResultError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    ServiceContractError,
    TransportError,
    UnknownArgumentError,
    ValidationError,
)
from .frames.nested import contains_any, to_lists
from .frames.participants import co_investment_edges, explode_participants
from .link import companies_for_skus, skus_for_companies
from .notices import (
    DealframeWarning,
    MissingDataWarning,
    MissingInvestorsWarning,
    ServiceContractWarning,
)

__all__ = [
    "AmbiguousNameError",
    "ApiError",
    "AuthenticationError",
    "BadRequestError",
    "CallError",
    "Client",
    "Comparison",
    "ConfigurationError",
    "DealframeError",
    "DealframeWarning",
    "EnumValueError",
    "ExtraMissing",
    "IncompleteResultError",
    "MissingDataWarning",
    "MissingInvestorsWarning",
    "NotFoundError",
    "RateLimitedError",
    "ServerError",
    "ServiceContractError",
    "ServiceContractWarning",
    "Settings",
    "TransportError",
    "UnknownArgumentError",
    "ValidationError",
    "__version__",
    "co_investment_edges",
    "companies_for_skus",
    "compare_multiples",
    "contains_any",
    "doctor",
    "errors",
    "explode_participants",
    "skus_for_companies",
    "to_lists",
    "to_local",
    "to_usd",
]
