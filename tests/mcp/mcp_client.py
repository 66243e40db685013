"""Helpers of the MCP checks: an MCP session with the official Python SDK (`mcp`) as a given caller, the same call
over REST, and assertions that print what differed.

The Studio token goes in `X-Studio-Token`; the caller's own token in `Authorization: Bearer` (the examples'
authentication). A tool result's text is the REST body; its structured content is `{"status", "body", "etag"?}`.
"""

import contextlib
import json
import sys
import urllib.error
import urllib.request

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

CHECKS = 0


def check(condition, message):
    """Counts a check; exits with the message when it fails."""
    global CHECKS
    CHECKS += 1
    if not condition:
        print(f"MCP CHECK FAILED: {message}", file=sys.stderr)
        sys.exit(1)


@contextlib.asynccontextmanager
async def session(base, studio_token, user=None):
    """An initialized MCP session at `base`/ai/tools/mcp as `user` (a bearer token, or None for anonymous)."""
    headers = {"X-Studio-Token": studio_token}
    if user:
        headers["Authorization"] = f"Bearer {user}"
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(f"{base}/ai/tools/mcp", http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                s.init_result = await s.initialize()
                yield s


async def call(s, tool, arguments):
    """(status, body) of a tool call, with `isError` and the text checked against the structured content."""
    result = await s.call_tool(tool, arguments)
    structured = result.structured_content
    check(structured is not None and "status" in structured, f"{tool}: no structured status: {result}")
    status = structured["status"]
    check(result.is_error == (not 200 <= status < 300), f"{tool}: isError={result.is_error} for status {status}")
    body = json.loads(result.content[0].text)
    check(body == structured["body"], f"{tool}: the text and the structured body differ")
    return status, body


def rest(base, method, path, user=None, body=None):
    """(status, body) of the same request over REST."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}{path}", data=data, method=method)
    if user:
        request.add_header("Authorization", f"Bearer {user}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def without(body, *keys):
    """`body` without `keys` (values that differ between two creations: ids, timestamps)."""
    if isinstance(body, dict):
        return {k: v for k, v in body.items() if k not in keys}
    return body


async def compare(base, studio_token, user, calls):
    """Runs each `(tool, arguments, method, path, body, ignored_keys)` over MCP and over REST as `user` and checks
    both answered the same status and body (denials with their reason, hidden fields absent, out-of-scope rows not
    found, validation errors with their loc/type). Returns the MCP answers."""
    answers = []
    async with session(base, studio_token, user) as s:
        for tool, arguments, method, path, body, ignored in calls:
            over_rest = rest(base, method, path, user, body)
            over_mcp = await call(s, tool, arguments)
            check(over_mcp[0] == over_rest[0], f"{tool} {arguments} as {user}: MCP {over_mcp} != REST {over_rest}")
            check(
                without(over_mcp[1], *ignored) == without(over_rest[1], *ignored),
                f"{tool} {arguments} as {user}: MCP {over_mcp} != REST {over_rest}",
            )
            answers.append(over_mcp)
    return answers
