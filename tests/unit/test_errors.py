"""The error tree and error_from_response for every body shape a service might send."""

from __future__ import annotations

import email.utils
import types

import orjson
import pytest

from dealframe import errors
from dealframe.errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    DealframeError,
    IncompleteResultError,
    NotFoundError,
    RateLimitedError,
    RequestInfo,
    ServerError,
    TransportError,
    ValidationError,
    error_from_response,
    parse_retry_after,
)

REQ = RequestInfo("POST", "/api/private/v1/companies?secret=1", "private")


def _body(code: str, message: str, details: dict | None = None) -> bytes:
    error: dict = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return orjson.dumps({"error": error})


def test_tree_matches_the_docstring():
    for cls in (
        ConfigurationError,
        ValidationError,
        ApiError,
        TransportError,
        IncompleteResultError,
    ):
        assert issubclass(cls, DealframeError)
        assert cls.__name__ in errors.__doc__
    for cls in (BadRequestError, AuthenticationError, NotFoundError, RateLimitedError, ServerError):
        assert issubclass(cls, ApiError)
        assert cls.__name__ in errors.__doc__
    assert issubclass(ValidationError, ValueError)
    assert not issubclass(ApiError, ValueError)


def test_request_info_drops_query_strings():
    assert REQ.path == "/api/private/v1/companies"
    assert str(REQ) == "POST /api/private/v1/companies"


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (422, BadRequestError),
        (401, AuthenticationError),
        (403, AuthenticationError),
        (404, NotFoundError),
        (429, RateLimitedError),
        (500, ServerError),
        (502, ServerError),
        (503, ServerError),
        (504, ServerError),
        (405, ApiError),
        (409, ApiError),
    ],
)
def test_status_maps_to_class(status, cls):
    error = error_from_response(status, b"", REQ, {})
    assert type(error) is cls
    assert error.status == status
    assert str(status) in str(error)
    assert error.request is REQ


def test_bad_request_joins_details_errors():
    body = _body(
        "BAD_REQUEST",
        "Invalid request",
        {
            "errors": [
                "limit must be an integer between 1 and 1000",
                "filters.deal_type: 'Foo' is not one of Early, Growth",
            ]
        },
    )
    error = error_from_response(400, body, REQ)
    assert isinstance(error, BadRequestError)
    assert error.code == "BAD_REQUEST" and error.message == "Invalid request"
    assert error.errors == [
        "limit must be an integer between 1 and 1000",
        "filters.deal_type: 'Foo' is not one of Early, Growth",
    ]
    text = str(error)
    assert "limit must be an integer between 1 and 1000; filters.deal_type" in text
    assert "POST /api/private/v1/companies" in text and "secret" not in text


def test_family_a_skus_empty_example():
    body = _body("BAD_REQUEST", "Invalid request", {"errors": ["skus must not be empty"]})
    error = error_from_response(
        400, body, RequestInfo("POST", "/api/v2/companies/current", "public")
    )
    assert "skus must not be empty" in str(error)


def test_missing_and_invalid_token():
    missing = error_from_response(
        401, _body("MISSING_TOKEN", "Authorization header is required"), REQ
    )
    invalid = error_from_response(401, _body("INVALID_TOKEN", "Invalid or expired token"), REQ)
    assert isinstance(missing, AuthenticationError) and missing.code == "MISSING_TOKEN"
    assert invalid.code == "INVALID_TOKEN" and "Invalid or expired token" in str(invalid)


def test_not_found_soft_deleted():
    body = _body("NOT_FOUND", "Resource is deleted", {"deleted": True, "id": "c0ffee"})
    error = error_from_response(404, body, REQ)
    assert isinstance(error, NotFoundError) and error.deleted is True
    assert "soft-deleted" in str(error) and "include_deleted=True" in str(error)
    assert "c0ffee" in str(error)
    plain = error_from_response(404, _body("NOT_FOUND", "Not found"), REQ)
    assert plain.deleted is False and "include_deleted" not in str(plain)


def test_rate_limited_carries_retry_after_seconds_and_dates(monkeypatch):
    error = error_from_response(429, _body("RATE_LIMITED", "Too many"), REQ, {"retry-after": "7"})
    assert isinstance(error, RateLimitedError) and error.retry_after == 7.0
    assert "wait 7 s" in str(error)
    now = 1_800_000_000.0  # the client's wall clock, held: the date is read against it
    monkeypatch.setattr(errors, "time", types.SimpleNamespace(time=lambda: now))
    when = email.utils.formatdate(now + 30, usegmt=True)
    dated = error_from_response(429, b"", REQ, {"Retry-After": when})
    assert dated.retry_after == 30.0
    assert error_from_response(429, b"", REQ, {}).retry_after is None


def test_attempts_and_note_in_message():
    error = error_from_response(
        503,
        _body("SERVICE_UNAVAILABLE", "down"),
        REQ,
        {"Retry-After": "2"},
        attempts=6,
        note="call budget exhausted",
    )
    assert error.attempts == 6
    assert "6 attempts" in str(error) and "wait 2 s" in str(error)
    assert "call budget exhausted" in str(error)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"detail": "Not authenticated"}', "Not authenticated"),
        (b'{"message": "Slow down", "code": "THROTTLED"}', "Slow down"),
        (b'{"error": "plain string error"}', "plain string error"),
        (
            b"<html>Bad Gateway</html>",
            "not a JSON error body (24 bytes of no content type, first line "
            "'<html>Bad Gateway</html>')",
        ),
        (b"", "HTTP 502"),
        (  # JSON that says nothing the reader knows: summarised, never dropped
            b"[1, 2]",
            "HTTP 502, an error body of no known shape (6 bytes of no content type, first "
            "line '[1, 2]')",
        ),
    ],
)
def test_other_body_shapes_are_tolerated(body, message):
    error = error_from_response(502, body, REQ)
    assert isinstance(error, ServerError)
    assert error.message == message


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        (b'{"errors": ["limit must be at most 100"]}', ["limit must be at most 100"]),
        (
            b'{"errors": [{"field": "names", "message": "at most 100 names"}, "x"]}',
            ["names: at most 100 names", "x"],
        ),
    ],
)
def test_an_errors_list_body_is_read(body, errors):
    error = error_from_response(400, body, REQ)
    assert isinstance(error, BadRequestError) and error.errors == errors
    assert all(e in str(error) for e in errors)


def test_a_detail_text_is_one_problem_of_errors_said_once():
    """FastAPI's ``{"detail": "..."}`` (the sandbox's errors-detail profile joins its problems
    with "; "): ``.errors`` holds the text, as each problem of a list is held (it was [])."""
    said = "filters.date_from: 2030-01-01 is after filters.date_to; limit: at most 100"
    error = error_from_response(400, orjson.dumps({"detail": said}), REQ)
    assert isinstance(error, BadRequestError)
    assert (error.message, error.errors) == (said, [said])
    assert str(error).count(said) == 1


@pytest.mark.parametrize(
    ("status", "code"),
    [(401, "UNAUTHORIZED"), (403, "FORBIDDEN"), (422, "BAD_REQUEST"), (418, "HTTP_418")],
)
def test_a_body_without_a_code_gets_the_documented_fallback(status, code):
    """docs/errors.md: the status's name, else HTTP_<status> (the docs said HTTP_<status>)."""
    assert error_from_response(status, b'{"detail": "Invalid token"}', REQ).code == code


def test_detail_list_becomes_errors():
    body = orjson.dumps({"detail": [{"loc": ["body", "limit"], "msg": "too big"}]})
    error = error_from_response(422, body, REQ)
    assert isinstance(error, BadRequestError) and "too big" in str(error)


def test_message_code_shape_keeps_code():
    error = error_from_response(429, b'{"message": "Slow down", "code": "THROTTLED"}', REQ)
    assert error.code == "THROTTLED"


def test_long_text_bodies_are_shortened():
    error = error_from_response(500, b"x" * 5000, REQ)
    assert len(error.message) < 600


def test_a_proxy_html_page_is_summarised_not_pasted():
    page = (
        b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n" + b"<p>x</p>" * 900
    )
    error = error_from_response(502, page, REQ, {"Content-Type": "text/html; charset=utf-8"})
    assert "text/html" in error.message and "'<!DOCTYPE html>'" in error.message
    assert str(len(page)) in error.message and "<p>x</p>" not in str(error)
    assert len(str(error)) < 300


def test_secrets_are_scrubbed_from_echoing_bodies():
    secret = "tok-3f6a9c2e"
    body = _body("INVALID_TOKEN", f"token {secret} is unknown", {"errors": [f"bad {secret}"]})
    error = error_from_response(401, body, REQ, secrets=[secret])
    assert secret not in str(error) and secret not in repr(error.details)


def test_validation_error_names_argument_and_expectation():
    error = ValidationError("limit", "an integer between 1 and 1000", got=0)
    assert isinstance(error, ValueError)
    assert error.argument == "limit" and error.expected == "an integer between 1 and 1000"
    assert str(error) == "invalid limit: expected an integer between 1 and 1000, got 0"
    assert str(ValidationError("x", "y")) == "invalid x: expected y"
    long = ValidationError("skus", "a list", got="s" * 500)
    assert len(str(long)) < 200


def test_renamed_keeps_the_class_the_expectation_and_the_value():
    """A refused value restated under a flag's name (issue 13): an EnumValueError stays one,
    with its allowed values, its close match and the value given; the original is kept."""
    from dealframe.private.filters import EnumValueError, FilterSchema

    field = {"field": "stage", "type": "string", "operators": ["eq"], "values": ["Seed", "Late"]}
    with pytest.raises(EnumValueError) as raised:
        FilterSchema("transactions", {"filters": [field]}).build({"stage": "Sead"})
    again = errors.renamed(raised.value, "--stage")
    assert type(again) is EnumValueError
    assert again.argument == "--stage" and raised.value.argument == "stage"
    assert again.expected == raised.value.expected == "one of Seed, Late (did you mean 'Seed'?)"
    assert (
        str(again)
        == "invalid --stage: expected one of Seed, Late (did you mean 'Seed'?), got 'Sead'"
    )
    assert str(raised.value).startswith("invalid stage: ")
    unknown = errors.renamed(errors.UnknownArgumentError("contry", "f", ["country"]), "--contry")
    assert type(unknown) is errors.UnknownArgumentError and unknown.function == "f"


@pytest.mark.parametrize(
    ("word", "choices", "hint"),
    [
        ("Westren Europe", ["Western Europe", "Eastern Europe"], "Western Europe"),
        ("ma", ["Early", "M&A"], "M&A"),  # case is ignored
        ("DEAL_DATE", ["deal_date", "name"], "deal_date"),
        ("ascending", ["asc", "desc"], "asc"),  # a choice the word begins with
        ("descending", ["asc", "desc"], "desc"),
        ("Nordics", ["North America", "Western Europe"], None),  # 0.5 alike: no suggestion
        ("-nothing", ["-n", "--name"], None),  # a choice of two letters begins too much
        ("", ["asc", "desc"], None),
        (3, ["3a", "x"], "3a"),  # a value of another type, as given
    ],
)
def test_did_you_mean_names_the_closest_choice_or_nothing(word, choices, hint):
    expected = f" (did you mean {hint!r}?)" if hint else ""
    assert errors.did_you_mean(word, choices) == expected
    assert errors.did_you_mean(word, iter(choices)) == expected  # any iterable


def test_the_one_did_you_mean_is_the_one_every_message_uses():
    """Issue 13: one helper; the modules that had their own now import it."""
    from dealframe import cli_options
    from dealframe.private import filters
    from dealframe.report import cohort

    assert not hasattr(cohort, "did_you_mean") or cohort.did_you_mean is errors.did_you_mean
    assert not hasattr(filters, "_suggest") and not hasattr(cli_options, "suggest")
    refused = errors.UnknownArgumentError("Country", "f", ["country", "limit"])
    # the close match, then every keyword (issue 4: a suggestion and the list of valid names)
    assert refused.expected == "a keyword of f (did you mean 'country'?); valid: country, limit"
    assert (
        errors.UnknownArgumentError("zzz", "f", ["limit"]).expected
        == "a keyword of f; valid: limit"
    )


def test_transport_error_keeps_its_cause():
    cause = ConnectionResetError("reset by peer")
    try:
        try:
            raise cause
        except ConnectionResetError as exc:
            raise TransportError(
                "connection error", request=REQ, attempts=3, kind="connection"
            ) from exc
    except TransportError as error:
        assert error.__cause__ is cause
        assert error.kind == "connection" and error.attempts == 3
        assert "3 attempts" in str(error) and "POST /api/private/v1/companies" in str(error)


def test_incomplete_result_lists_failed_items_and_keeps_partial():
    partial = [{"id": 1}]
    error = IncompleteResultError(
        300, 200, [2, 3], errors=[ServerError(503, "X", "down")], partial=partial, what="deals"
    )
    assert error.partial is partial and error.failed == [2, 3]
    assert error.expected == 300 and error.received == 200
    text = str(error)
    assert "200 of 300 deals" in text and "2, 3" in text and "503" in text
    many = IncompleteResultError(None, 0, list(range(25)))
    assert "15 more" in str(many) and " of " not in str(many).split(";")[0]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("3", 3.0),
        (" 10 ", 10.0),
        ("1.5", 1.5),
        ("-4", None),  # no delay (RFC 9110's is digits): a reset header beside it is read
        ("soon", None),
        (None, None),
        ("nan", None),
    ],
)
def test_parse_retry_after(value, expected):
    assert parse_retry_after(value) == expected


def test_parse_retry_after_http_date_in_the_past_is_zero():
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


def test_a_deleted_entitys_sub_collection_does_not_suggest_a_parameter_it_lacks():
    body = _body("NOT_FOUND", "Resource is deleted", {"deleted": True, "id": "c0ffee"})
    sub = RequestInfo("GET", "/api/private/v1/companies/c0ffee/fundings", "private")
    profile = RequestInfo("GET", "/api/private/v1/companies/c0ffee", "private")
    on_sub = str(error_from_response(404, body, sub))
    on_profile = str(error_from_response(404, body, profile))
    assert "sub-collections are not served" in on_sub and "pass include_deleted" not in on_sub
    assert "pass include_deleted=True to read it" in on_profile


def _one_of_each() -> dict[type, BaseException]:
    """An instance of every public error class of dealframe, with every attribute set."""
    import pandas as pd

    import dealframe
    from dealframe import mirror
    from dealframe.private.filters import EnumValueError
    from dealframe.report.config import ConfigError

    made: list[BaseException] = [
        errors.ExtraMissing("dealframe.plot", "report", "matplotlib", "No module named x"),
        ConfigurationError("no token", field="DEALFRAME_PUBLIC_TOKEN"),
        ValidationError("limit", "an integer", got="x"),
        errors.CallError("PrivateApi.aggregate", "missing 'metric'"),
        errors.UnknownArgumentError("contry", "PrivateApi.companies", ["country", "limit"]),
        EnumValueError("filters.deal_type", "one of Early, Growth", got="Seed"),
        ConfigError("cohort", "report.toml: no cohort"),
        ApiError(409, "CONFLICT", "busy", details={"id": 3}, request=REQ, note="n"),
        error_from_response(400, _body("BAD_REQUEST", "Invalid", {"errors": ["a", "b"]}), REQ),
        error_from_response(401, _body("INVALID_TOKEN", "Invalid token"), REQ, attempts=2),
        NotFoundError(404, "NOT_FOUND", "gone", details={"deleted": True, "id": "c1"}),
        RateLimitedError(429, "RATE_LIMITED", "slow down", retry_after=2.5),
        ServerError(503, "SERVICE_UNAVAILABLE", "down", attempts=4),
        errors.ServiceContractError(200, "no data", finding="invalid_body", request=REQ),
        TransportError("connection refused", request=REQ, attempts=3, kind="connection"),
        IncompleteResultError(
            10, 5, [2, 3], errors=[ServerError(500, "X", "y")], partial=pd.DataFrame({"a": [1]})
        ),
        errors.AmbiguousNameError(["Acme", "Apex"]),
        mirror.MirrorLockedError("locked by pid 12"),
    ]
    made += [getattr(mirror, name)("m") for name in mirror.__all__ if name.endswith("Error")]
    made.append(DealframeError("base"))
    out = {type(e): e for e in made}
    public = {
        obj
        for module in (dealframe, errors, mirror)
        for obj in (getattr(module, name) for name in module.__all__)
        if isinstance(obj, type) and issubclass(obj, Exception) and not issubclass(obj, Warning)
    }
    assert public <= set(out), public - set(out)  # a new error class needs an instance here
    return out


def test_every_error_class_round_trips_through_pickle():
    import pickle

    import pandas as pd

    for cls, error in _one_of_each().items():
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is cls
        assert str(again) == str(error) and again.args == error.args, cls
        state, back = dict(vars(error)), dict(vars(again))
        partial, errs = state.pop("partial", None), state.pop("errors", None)
        assert back.pop("partial", None) is not None or partial is None
        assert [str(e) for e in back.pop("errors", None) or []] == [str(e) for e in errs or []]
        assert back == state, cls
        if isinstance(partial, pd.DataFrame):
            pd.testing.assert_frame_equal(again.partial, partial)
        if isinstance(error, ImportError):
            assert again.name == error.name == "matplotlib"
        if isinstance(error, NotFoundError):
            assert again.deleted and "c1" in str(again)
        if isinstance(error, BadRequestError):
            assert again.errors == ["a", "b"]


@pytest.mark.parametrize(
    ("body", "message", "errors"),
    [
        (  # Spring Boot's default: "error" is the status phrase, "message" the words
            {"status": 400, "error": "Bad Request", "message": "limit must be <= 100"},
            "limit must be <= 100",
            [],
        ),
        (  # NestJS's validation pipe: one entry of "message" per problem
            {"statusCode": 400, "message": ["limit must be <= 100"], "error": "Bad Request"},
            "limit must be <= 100",
            ["limit must be <= 100"],
        ),
        (
            {
                "statusCode": 400,
                "message": ["limit must be <= 100", "page x"],
                "error": "Bad Request",
            },
            "Bad Request",
            ["limit must be <= 100", "page x"],
        ),
        (  # the documented body with details as a list of strings
            {"error": {"code": "X", "message": "Invalid request", "details": ["limit: <= 100"]}},
            "Invalid request",
            ["limit: <= 100"],
        ),
        (  # Spring's field errors
            {
                "message": "Validation failed",
                "errors": [{"field": "limit", "defaultMessage": "max 100"}],
            },
            "Validation failed",
            ["limit: max 100"],
        ),
        (  # problem+json: the title is a phrase, the detail the words
            {"type": "about:blank", "title": "Bad Request", "status": 400, "detail": "limit > 100"},
            "limit > 100",
            ["limit > 100"],  # a detail text is one problem (docs/real-service.md)
        ),
        ({"error": "invalid_request", "error_description": "limit > 100"}, "limit > 100", []),
        ({"error": "Bad Request"}, "Bad Request", []),  # nothing but the phrase
        (  # a null "message" beside the "detail" that says it
            {"title": "Bad Request", "message": None, "detail": "limit > 100"},
            "limit > 100",
            ["limit > 100"],
        ),
    ],
    ids=[
        "spring",
        "nestjs-one",
        "nestjs-two",
        "details-list",
        "spring-fields",
        "problem",
        "oauth",
        "phrase",
        "null-message",
    ],
)
def test_the_services_words_are_kept_whatever_member_carries_them(body, message, errors):
    error = error_from_response(400, orjson.dumps(body), REQ)
    inner = body.get("error")
    assert isinstance(error, BadRequestError)
    assert error.code == (inner["code"] if isinstance(inner, dict) else "BAD_REQUEST")
    assert (error.message, error.errors) == (message, errors)
    assert all(e in str(error) for e in [message, *errors])


def test_an_unknown_keyword_to_a_function_taking_none_says_so():
    text = str(errors.UnknownArgumentError("x", "TransportStats.snapshot", []))
    assert "it takes no arguments" in text and "valid: ," not in text
