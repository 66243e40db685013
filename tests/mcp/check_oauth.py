"""MCP authorization end to end with the official MCP Python SDK's OAuth client against a real OpenID provider
(npm `oidc-provider`, tests/oidc/provider.js, started with `MCP_RESOURCE=<base>/ai/tools/mcp`), the blog running
with `SERVICE_JWT_ISSUER=<issuer>`, `SERVICE_STUDIO_PUBLIC_URL=<base>` and `SERVICE_MCP_SCOPES=mcp:tools`.

For bob and alice: the endpoint's 401 → protected resource metadata → authorization server metadata → dynamic client
registration → authorization code with PKCE (the provider's login and consent forms driven over HTTP, the redirect's
`code`, `state` and `iss` captured without a browser) → token → `initialize`, `tools/list` and tool calls that obey
that user's policy (bob, not staff: may create a post, may not create a tag, sees no author email; alice, staff: may
create a tag, sees emails). Then: a token issued for another resource is a 401 `invalid_token` naming
`resource_metadata`; a token for the MCP endpoint without `mcp:tools` is a 403 `insufficient_scope`; the MCP token is
refused by the REST API (its audience is the MCP endpoint alone). Exits non-zero on any deviation.

Usage: python tests/mcp/check_oauth.py <base url> <issuer>
"""

import base64
import json
import re
import sys
import uuid
from urllib.parse import parse_qs, urljoin, urlparse

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from mcp_client import call, check

SCOPE = "mcp:tools"
REDIRECT = "http://127.0.0.1:9/callback"  # never contacted: the redirect is read from the provider's answer


class MemoryStorage(TokenStorage):
    """The SDK's token storage, in memory."""

    def __init__(self):
        self.tokens, self.client = None, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull):
        self.client = client_info


class Login:
    """The user agent: follows the authorization URL through the provider's login and consent forms as `user` and
    keeps the redirect's parameters for the callback handler."""

    def __init__(self, user):
        self.user, self.result, self.pages = user, None, []

    async def redirect_handler(self, url):
        async with httpx2.AsyncClient(timeout=30, follow_redirects=False) as agent:
            response = await agent.get(url)
            for _ in range(10):
                if response.status_code in (302, 303):
                    location = urljoin(str(response.url), response.headers["location"])
                    if location.startswith(REDIRECT):
                        query = parse_qs(urlparse(location).query)
                        check("error" not in query, f"the provider refused: {query}")
                        self.result = AuthorizationCodeResult(
                            code=query["code"][0], state=query["state"][0], iss=query.get("iss", [None])[0]
                        )
                        return
                    response = await agent.get(location)
                    continue
                check(response.status_code == 200, f"{response.url}: {response.status_code} {response.text[:300]}")
                form = re.search(r'<form[^>]*action="([^"]+)"[^>]*>(.*?)</form>', response.text, re.S)
                check(form is not None, f"no form at {response.url}: {response.text[:300]}")
                prompt = re.search(r'name="prompt" value="([a-z]+)"', form.group(2)).group(1)
                self.pages.append(prompt)
                data = {"prompt": prompt}
                if prompt == "login":
                    data.update(login=self.user, password="any password")
                response = await agent.post(urljoin(str(response.url), form.group(1)), data=data)
            check(False, f"no redirect to the client after {self.pages}")

    async def callback_handler(self):
        check(self.result is not None, "the callback ran before the redirect")
        return self.result


def claims(token):
    """The payload of a JWT (read only: the server verifies it)."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


async def as_user(base, issuer, user):
    """The SDK's OAuth flow as `user`, then tools as that user; returns the access token."""
    resource = f"{base}/ai/tools/mcp"
    storage, login = MemoryStorage(), Login(user)
    oauth = OAuthClientProvider(
        server_url=resource,
        client_metadata=OAuthClientMetadata(
            client_name=f"viewset MCP check ({user})",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=login.redirect_handler,
        callback_handler=login.callback_handler,
    )
    async with httpx2.AsyncClient(auth=oauth, timeout=30) as http:
        async with streamable_http_client(resource, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                init = await s.initialize()
                check(init.server_info.name == "blog (viewset)", f"server info: {init.server_info}")
                check(login.pages == ["login", "consent"], f"{user}: login then consent: {login.pages}")
                check(storage.client is not None and storage.client.client_id, "the client registered itself")
                token = storage.tokens.access_token
                payload = claims(token)
                check(payload["aud"] == resource, f"{user}: the token's audience is the MCP endpoint: {payload}")
                check(payload["iss"] == issuer and payload["sub"] == user, f"{user}: {payload}")
                check(SCOPE in payload.get("scope", "").split(), f"{user}: the token carries {SCOPE}: {payload}")
                tools = {t.name for t in (await s.list_tools()).tools}
                check({"posts_create", "tags_create", "authors_list"} <= tools, f"tools: {sorted(tools)}")
                await policy(s, user)
    return token


async def policy(s, user):
    """The blog's policy, as `user`: anyone signed in writes posts, staff alone write tags and read emails."""
    status, post = await call(s, "posts_create", {"body": {"title": f"OAuth {user}", "body": "x", "author_id": 1}})
    check(status == 201 and post["title"] == f"OAuth {user}", f"{user} creates a post: {status} {post}")
    status, tag = await call(s, "tags_create", {"body": {"name": f"oauth-{user}-{uuid.uuid4().hex[:8]}"}})
    status_authors, authors = await call(s, "authors_list", {})
    check(status_authors == 200 and authors["results"], f"{user} lists authors: {status_authors} {authors}")
    emails = ["email" in a for a in authors["results"]]
    if user == "alice":
        check(status == 201, f"alice (staff) creates a tag: {status} {tag}")
        check(all(emails), f"alice (staff) sees the authors' emails: {authors}")
    else:
        check(status == 403 and tag.get("code") == "permission_denied", f"bob may not create a tag: {status} {tag}")
        check(not any(emails), f"bob sees no author email: {authors}")


async def refused(base, issuer, bob_token):
    """Tokens the endpoint refuses, with the challenges the MCP authorization specification asks for."""
    resource = f"{base}/ai/tools/mcp"
    init = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx2.AsyncClient(timeout=30) as http:
        metadata_url = f"{base}/.well-known/oauth-protected-resource/ai/tools/mcp"
        answer = await http.post(resource, json=init, headers=headers)
        challenge = answer.headers.get("www-authenticate", "")
        check(answer.status_code == 401, f"no credential: {answer.status_code}")
        check(f'resource_metadata="{metadata_url}"' in challenge and f'scope="{SCOPE}"' in challenge, challenge)
        metadata = (await http.get(metadata_url)).json()
        check(metadata["resource"] == resource and metadata["authorization_servers"] == [issuer], f"{metadata}")
        check(metadata["scopes_supported"] == [SCOPE], f"scopes_supported: {metadata}")

        async def client_token(resource_indicator, scope):
            answer = await http.post(
                f"{issuer}/token",
                data={"grant_type": "client_credentials", "resource": resource_indicator, "scope": scope},
                auth=("staff", "staff-secret"),
            )
            check(answer.status_code == 200, f"client_credentials for {resource_indicator}: {answer.text}")
            return answer.json()["access_token"]

        other = await client_token("https://blog.example", "posts:read")
        answer = await http.post(resource, json=init, headers={**headers, "Authorization": f"Bearer {other}"})
        challenge = answer.headers.get("www-authenticate", "")
        check(answer.status_code == 401, f"a token for another resource: {answer.status_code} {answer.text}")
        check('error="invalid_token"' in challenge and "audience" in challenge, f"invalid_token: {challenge}")
        check(f'resource_metadata="{metadata_url}"' in challenge, f"still names the metadata: {challenge}")

        unscoped = await client_token(resource, "posts:read")
        check(claims(unscoped)["aud"] == resource, f"issued for the MCP endpoint: {claims(unscoped)}")
        answer = await http.post(resource, json=init, headers={**headers, "Authorization": f"Bearer {unscoped}"})
        challenge = answer.headers.get("www-authenticate", "")
        check(answer.status_code == 403, f"a token without {SCOPE}: {answer.status_code} {answer.text}")
        check(f'error="insufficient_scope", scope="{SCOPE}"' in challenge, f"insufficient_scope: {challenge}")
        check(answer.json().get("code") == "insufficient_scope", f"{answer.text}")

    # A client of its own: the gate answers a refusal without reading the request's body, so the server closes that
    # connection.
    async with httpx2.AsyncClient(timeout=30) as http:
        answer = await http.post(
            f"{base}/api/posts", json={"title": "t", "body": "b"}, headers={"Authorization": f"Bearer {bob_token}"}
        )
        check(answer.status_code == 401, f"the MCP token is not the REST API's: {answer.status_code} {answer.text}")
        check('error="invalid_token"' in answer.headers.get("www-authenticate", ""), f"{answer.headers}")


async def main(base, issuer):
    bob = await as_user(base, issuer, "bob")
    await as_user(base, issuer, "alice")
    await refused(base, issuer, bob)
    from mcp_client import CHECKS

    print(f"OAuth checks passed ({CHECKS} checks)")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1].rstrip("/"), sys.argv[2].rstrip("/"))
