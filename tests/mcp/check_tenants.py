"""The tenants example through MCP (official Python SDK): a caller of one tenant never sees, changes or acts on
another tenant's rows through any tool, anonymous and tenant-less callers are refused, owner-private notes stay
private, and every call answers what REST answers to the same caller.

Usage: python tests/mcp/check_tenants.py <base url> <studio token>
"""

import sys

import anyio

from mcp_client import call, check, compare, session

ANON, ALICE, BOB, CAROL, DAVE = None, "acme-alice", "acme-bob", "globex-carol", "nobody-dave"


def ids(page):
    return [row["id"] for row in page["results"]]


async def main(base, token):
    async with session(base, token, BOB) as s:
        status, rocket = await call(s, "projects_create", {"body": {"name": "Rocket"}})
        check(status == 201 and rocket["tenant_id"] == "acme" and rocket["owner"] == "bob", f"bob creates: {rocket}")
        status, note = await call(s, "notes_create", {"body": {"text": "bob's secret"}})
        check(status == 201, f"bob's note: {note}")
    async with session(base, token, CAROL) as s:
        status, anvil = await call(s, "projects_create", {"body": {"name": "Anvil"}})
        check(status == 201 and anvil["tenant_id"] == "globex", f"carol creates: {anvil}")
        status, page = await call(s, "projects_list", {})
        check(status == 200 and rocket["id"] not in ids(page) and anvil["id"] in ids(page), f"carol's list: {page}")
        for tool, arguments in [
            ("projects_retrieve", {"pk": rocket["id"]}),
            ("projects_update", {"pk": rocket["id"], "body": {"name": "Stolen"}}),
            ("projects_archive", {"pk": rocket["id"]}),
            ("projects_delete", {"pk": rocket["id"]}),
            ("projects_delete_many", {"id__in": [rocket["id"]]}),
            ("notes_retrieve", {"pk": note["id"]}),
        ]:
            status, body = await call(s, tool, arguments)
            check(status == 404 and "Rocket" not in str(body), f"{tool} across tenants is not found: {status} {body}")
        status, made = await call(s, "projects_create_many", {"body": [{"name": "Hammer"}, {"name": "Tongs"}]})
        check(status == 201 and {p["tenant_id"] for p in made} == {"globex"}, f"a bulk create stays home: {made}")
        status, body = await call(s, "projects_create_many", {"body": [{"name": "Sneaky", "tenant_id": "acme"}]})
        check(status == 422 and body["detail"][0]["loc"] == ["body", "0", "tenant_id"], f"no tenant named: {body}")
        status, page = await call(s, "projects_list", {"search": "Rocket"})
        check(status == 200 and page["count"] == 0, f"search does not cross tenants: {page}")
        status, notes = await call(s, "notes_list", {})
        check(status == 200 and notes["count"] == 0, f"notes are private: {notes}")
    async with session(base, token, ALICE) as s:
        status, page = await call(s, "projects_list", {})
        check(status == 200 and ids(page) == [rocket["id"]], f"staff sees its own tenant only: {page}")
        status, body = await call(s, "projects_update", {"pk": rocket["id"], "body": {"name": "Rocket 2"}})
        check(status == 200 and body["owner"] == "bob", f"staff of the tenant may write: {status} {body}")
        status, mine = await call(s, "projects_mine", {})
        check(status == 200 and mine == [], f"alice owns nothing: {mine}")
    async with session(base, token, BOB) as s:
        status, body = await call(s, "projects_archive", {"pk": rocket["id"]})
        check(status == 200 and body["archived"] is True, f"the owner archives: {body}")
        status, mine = await call(s, "projects_mine", {})
        check(status == 200 and [p["id"] for p in mine] == [rocket["id"]], f"bob's own: {mine}")
    for who in (ANON, DAVE):
        async with session(base, token, who) as s:
            status, body = await call(s, "projects_list", {})
            check(status in (401, 403) and body.get("detail"), f"{who} is refused: {status} {body}")
    print("tenants: scenario ok")

    new = {"name": "Compared"}
    for who in (ANON, ALICE, BOB, CAROL, DAVE):
        await compare(base, token, who, [
            ("projects_list", {}, "GET", "/api/projects/", None, ()),
            ("projects_list", {"ordering": "-id", "name__icontains": "o"}, "GET",
             "/api/projects/?ordering=-id&name__icontains=o", None, ()),
            ("projects_retrieve", {"pk": rocket["id"]}, "GET", f"/api/projects/{rocket['id']}", None, ()),
            ("projects_retrieve", {"pk": anvil["id"]}, "GET", f"/api/projects/{anvil['id']}", None, ()),
            ("projects_update", {"pk": anvil["id"], "body": {"name": ""}}, "PATCH", f"/api/projects/{anvil['id']}",
             {"name": ""}, ()),
            ("projects_update", {"pk": rocket["id"], "body": {"tenant_id": "globex"}}, "PATCH",
             f"/api/projects/{rocket['id']}", {"tenant_id": "globex"}, ()),
            ("projects_archive", {"pk": anvil["id"]}, "POST", f"/api/projects/{anvil['id']}/archive", None, ()),
            ("projects_create", {"body": new}, "POST", "/api/projects/", new, ("id",)),
            ("notes_retrieve", {"pk": note["id"]}, "GET", f"/api/notes/{note['id']}", None, ()),
            ("notes_list", {}, "GET", "/api/notes/", None, ()),
        ])
    print("tenants: same_as_rest ok")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
    import mcp_client
    print(f"tenants: {mcp_client.CHECKS} checks passed")
