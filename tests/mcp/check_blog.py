"""The blog example through MCP (official Python SDK) as anonymous, as a user (bob) and as staff (alice), and the
same calls over REST compared answer by answer; then the server's read-only resources (the OpenAPI document of the
tools' routes, each ViewSet's schema), listed and read.

Usage: python tests/mcp/check_blog.py <base url> <studio token>
"""

import uuid
import json
import sys

import anyio
from mcp.shared.exceptions import MCPError

from mcp_client import call, check, compare, rest, session

ANON, BOB, ALICE = None, "bob-token", "alice-token"
TOOLS = {
    "posts_list", "posts_retrieve", "posts_create", "posts_update", "posts_delete", "posts_publish", "posts_stats",
    "posts_create_many", "posts_update_many", "posts_delete_many", "authors_list", "authors_retrieve", "authors_create", "authors_update", "authors_delete",
    "posts_upsert", "posts_aggregate", "authors_aggregate",
    "tags_list", "tags_retrieve", "tags_create", "tags_update", "tags_delete",
}
POST = {"title": "Via MCP", "body": "Written by a tool.", "author_id": 1}


async def catalog(base, token):
    async with session(base, token) as s:
        check(s.init_result.server_info.name == "blog (viewset)", f"server info: {s.init_result.server_info}")
        check(s.init_result.capabilities.tools is not None, "tools capability")
        tools = {t.name: t for t in (await s.list_tools()).tools}
        check(set(tools) == TOOLS, f"tools: {sorted(tools)}")
        check(tools["posts_list"].annotations.read_only_hint is True, "posts_list is read-only")
        check(tools["posts_delete"].annotations.destructive_hint is True, "posts_delete is destructive")
        check(tools["posts_update"].annotations.idempotent_hint is True, "posts_update is idempotent")
        check("views__gte" in tools["posts_list"].input_schema["properties"], "filters with lookups")
        check(tools["posts_create"].input_schema["required"] == ["body"], "create needs a body")
        many = tools["posts_create_many"].input_schema["properties"]["body"]
        check(many["type"] == "array" and many["maxItems"] == 1000, f"a bulk create takes an array: {many}")
        check("id__in" in tools["posts_delete_many"].input_schema["properties"], "a bulk delete takes the keys")
        aggregate = tools["posts_aggregate"]
        props = aggregate.input_schema["properties"]
        check(aggregate.annotations.read_only_hint is True, "posts_aggregate is read-only")
        check({"group_by", "count", "sum", "avg", "having", "order_by", "limit", "views__gte"} <= set(props),
              f"an aggregate takes its parameters and the list's filters: {sorted(props)}")
        check(props["limit"].get("maximum") == 200, f"an aggregate's limit is bounded by max_groups: {props['limit']}")


async def anonymous(base, token):
    async with session(base, token, ANON) as s:
        status, stats = await call(s, "posts_stats", {})
        check(status == 200 and stats["count"] >= 3, f"open action: {stats}")
        status, page = await call(s, "posts_list", {"limit": 2, "ordering": "-views"})
        check(status == 200 and page["count"] == stats["count"] and len(page["results"]) == 2, f"list: {page}")
        status, body = await call(s, "posts_create", {"body": POST})
        check(status in (401, 403) and body.get("code"), f"anonymous create is refused with a reason: {status} {body}")
        status, body = await call(s, "authors_list", {})
        check(status in (401, 403), f"authors need an identity: {status} {body}")
        status, body = await call(s, "posts_create_many", {"body": [POST, POST]})
        check(status in (401, 403) and body.get("code"), f"anonymous bulk create is refused: {status} {body}")
        status, counted = await call(s, "posts_aggregate", {"group_by": "published", "count": "true"})
        check(status == 200 and sum(g["count"] for g in counted["groups"]) == stats["count"], f"aggregate: {counted}")
        status, body = await call(s, "posts_aggregate", {"sum": "title"})
        check(status == 422 and body["detail"][0]["loc"] == ["query", "sum"], f"a text field is not summed: {body}")


async def user(base, token):
    async with session(base, token, BOB) as s:
        status, post = await call(s, "posts_create", {"body": POST})
        check(status == 201 and post["title"] == "Via MCP", f"create: {status} {post}")
        pk = post["id"]
        result = await s.call_tool("posts_retrieve", {"pk": pk})
        etag = result.structured_content.get("etag")
        check(result.structured_content["status"] == 200 and etag, f"retrieve with its ETag: {result}")
        status, body = await call(s, "posts_update", {"pk": pk, "body": {"title": "Edited"}, "if_match": '"stale"'})
        check(status == 412, f"a stale If-Match is refused: {status} {body}")
        status, body = await call(s, "posts_update", {"pk": pk, "body": {"title": "Edited"}, "if_match": etag})
        check(status == 200 and body["title"] == "Edited", f"update: {status} {body}")
        status, body = await call(s, "posts_update", {"pk": pk, "body": {"views": "many"}})
        check(status == 422 and body["detail"][0]["loc"] == ["body", "views"], f"validation: {body}")
        status, body = await call(s, "posts_publish", {"pk": pk})
        check(status == 200 and body["published"] is True, f"publish action: {status} {body}")
        status, body = await call(s, "posts_delete", {"pk": pk})
        check(status == 200 and body["deleted"] is True, f"delete: {status} {body}")
        status, body = await call(s, "posts_retrieve", {"pk": pk})
        check(status == 404, f"deleted: {status} {body}")
        status, made = await call(s, "posts_create_many", {"body": [POST, {**POST, "title": "Second"}]})
        check(status == 201 and [p["title"] for p in made] == ["Via MCP", "Second"], f"bulk create: {status} {made}")
        status, body = await call(s, "posts_create_many", {"body": [POST, {"title": "no body"}]})
        check(status == 422 and body["detail"][0]["loc"][:2] == ["body", "1"], f"a bad row, nothing written: {body}")
        keys = [p["id"] for p in made]
        changes = [{"id": keys[0], "title": "Renamed"}, {"id": keys[1], "views": 3}]
        status, changed = await call(s, "posts_update_many", {"body": changes})
        check(status == 200 and [p["title"] for p in changed] == ["Renamed", "Second"], f"bulk update: {changed}")
        status, body = await call(s, "posts_delete_many", {"id__in": keys + [999999]})
        check(status == 404 and body.get("key") == "999999", f"a missing key deletes nothing: {status} {body}")
        status, body = await call(s, "posts_delete_many", {"id__in": keys})
        check(status == 200 and body["deleted"] == 2, f"bulk delete: {status} {body}")
        slug = f"via-mcp-{uuid.uuid4().hex[:8]}"
        status, body = await call(s, "posts_upsert", {"body": [{**POST, "slug": slug}]})
        check(status == 201 and body["created"] == [0], f"upsert creates: {status} {body}")
        status, body = await call(s, "posts_upsert", {"on_conflict": "slug", "body": [{**POST, "slug": slug, "title": "Upserted"}]})
        check(status == 200 and body["updated"] == [0] and body["records"][0]["title"] == "Upserted", f"upsert updates: {status} {body}")
        status, body = await call(s, "posts_delete", {"pk": body["records"][0]["id"]})
        check(status == 200, f"the upserted post deleted: {status} {body}")
        status, author = await call(s, "authors_retrieve", {"pk": 1})
        check(status == 200 and "email" not in author, f"email is hidden from users: {author}")
        status, body = await call(s, "authors_create", {"body": {"name": "Grace", "email": "g@example.com"}})
        check(status == 422 and body["detail"][0]["type"] == "read_only", f"users cannot write email: {body}")


async def staff(base, token):
    async with session(base, token, ALICE) as s:
        status, author = await call(s, "authors_retrieve", {"pk": 1})
        check(status == 200 and author.get("email") == "ada@example.com", f"staff see email: {author}")
        status, body = await call(s, "authors_create", {"body": {"name": "Grace", "email": "grace@example.com"}})
        check(status == 201 and body["email"] == "grace@example.com", f"staff create with email: {body}")
        status, body = await call(s, "authors_delete", {"pk": body["id"]})
        check(status == 200, f"staff delete: {body}")


async def same_as_rest(base, token):
    bad = {"views": "many"}
    with_email = {"name": "X", "email": "x@example.com"}
    for who in (ANON, BOB, ALICE):
        # A write that succeeds for staff cannot run twice (the email is unique): compared where it is refused.
        refused = [] if who == ALICE else [("authors_create", {"body": with_email}, "POST", "/authors/", with_email, ())]
        await compare(base, token, who, refused + [
            ("posts_list", {"views__gte": 100, "ordering": "-views"}, "GET", "/api/posts/?views__gte=100&ordering=-views", None, ()),
            ("posts_list", {"limit": 0}, "GET", "/api/posts/?limit=0", None, ()),
            ("posts_retrieve", {"pk": 999}, "GET", "/api/posts/999", None, ()),
            ("posts_retrieve", {"pk": "abc"}, "GET", "/api/posts/abc", None, ()),
            ("posts_create", {"body": POST}, "POST", "/api/posts/", POST, ("id", "created_at")),
            ("posts_update", {"pk": 1, "body": bad}, "PATCH", "/api/posts/1", bad, ()),
            ("posts_publish", {"pk": 999}, "POST", "/api/posts/999/publish", None, ()),
            ("authors_list", {}, "GET", "/authors/", None, ()),
            ("authors_retrieve", {"pk": 2}, "GET", "/authors/2", None, ()),
            ("authors_create", {"body": {"name": "X"}}, "POST", "/authors/", {"name": "X"}, ("id",)),
            ("authors_delete", {"pk": 999}, "DELETE", "/authors/999", None, ()),
        ])


RESOURCES = [
    "viewset://openapi.json",
    "viewset://viewsets/PostViewSet",
    "viewset://viewsets/AuthorViewSet",
    "viewset://viewsets/TagViewSet",
]


async def read_json(s, uri):
    result = await s.read_resource(uri)
    check(len(result.contents) == 1 and result.contents[0].mime_type == "application/json", f"{uri}: {result}")
    return json.loads(result.contents[0].text)


async def resources(base, token):
    async with session(base, token, BOB) as s:
        check(s.init_result.capabilities.resources is not None, "resources capability")
        listed = (await s.list_resources()).resources
        check([r.uri for r in listed] == RESOURCES, f"resources: {[r.uri for r in listed]}")
        check(all(r.mime_type == "application/json" and r.size for r in listed), f"JSON with sizes: {listed}")
        tools = (await s.list_tools()).tools
        document = await read_json(s, RESOURCES[0])
        # The operations of the tools, exactly as the application's own /openapi.json describes them.
        routes = {(t.meta["path"], t.meta["method"].lower()) for t in tools}
        kept = {(path, method) for path, item in document["paths"].items() for method in item if method != "parameters"}
        check(kept == routes, f"the OpenAPI resource holds the tools' operations: {sorted(kept ^ routes)}")
        status, served = rest(base, "GET", "/openapi.json")
        check(status == 200, f"/openapi.json: {status}")
        for path, method in routes:
            check(document["paths"][path][method] == served["paths"][path][method], f"{method} {path} as served")
        posts = await read_json(s, RESOURCES[1])
        check(posts["viewset"] == "PostViewSet" and posts["table"] == "posts", f"posts: {posts['viewset']}")
        check("title" in posts["schemas"]["create"]["properties"], "the create body's schema")
        check("views" in posts["schemas"]["read"]["properties"], "the record's schema")
        check({t["name"] for t in posts["tools"]} == {n for n in TOOLS if n.startswith("posts_")}, "its tools")
        authors = await read_json(s, RESOURCES[2])
        check(any(f["name"] == "email" for f in authors["model"]["fields"]), "the model's fields")
        check(authors["configuration"]["staff_only_fields"] == ["email"], f"configuration: {authors['configuration']}")
        try:
            await s.read_resource("viewset://viewsets/NoSuchViewSet")
            check(False, "an unknown resource is an error")
        except MCPError as error:
            # -32002 (resource not found); protocol 2026-07-28 and later ask for -32602 (invalid params).
            check(error.code in (-32002, -32602) and "NoSuchViewSet" in error.message, f"unknown: {error.code} {error}")
    # The same documents for every caller: they describe, they hold no record.
    async with session(base, token) as s:
        check([r.uri for r in (await s.list_resources()).resources] == RESOURCES, "anonymous: the same resources")
        check(await read_json(s, RESOURCES[1]) == posts, "anonymous: the same schema")


async def main(base, token):
    for step in (catalog, anonymous, user, staff, same_as_rest, resources):
        await step(base, token)
        print(f"blog: {step.__name__} ok")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
    import mcp_client
    print(f"blog: {mcp_client.CHECKS} checks passed")
