"""The blog's posts in the Python original, aksara-framework 0.7.2, for viewset's benchmark (bench/run.sh).

The same model and ViewSet configuration as the blog's `PostViewSet`: filterable_fields, search_fields,
ordering_fields, ordering "-id", reads open and writes with a bearer token ("bob-token"), served by uvicorn.
Differences that aksara imposes, stated in BENCHMARKS.md: the primary key is a UUID (aksara has no integer
auto-increment key), it adds `updated_at`, and `author_id` is a plain integer (no authors table).

`python benchapp.py --print-ddl` prints the table's DDL as aksara generates it; the harness runs it and seeds rows.
The background task poller is off: `tasks_enabled=False` below (and AKSARA_TASKS_ENABLED=false in the
environment), read by `Aksara._startup_runtime` before it starts `aksara.tasks.TaskWorker`.
"""

import os
import sys
from types import SimpleNamespace

from aksara import configure

DATABASE_URL = os.environ["DATABASE_URL"]
POOL_SIZE = int(os.environ.get("BENCH_POOL_SIZE", "10"))

configure(
    database_url=DATABASE_URL,
    debug=False,
    pool_min_size=2,
    pool_max_size=POOL_SIZE,
    apps=["benchapp"],
    installed_apps=["benchapp"],
    tasks_enabled=False,
    enable_studio=False,
    ai_enabled=False,
    mcp_enabled=False,
)

from aksara import Aksara, Model, ModelViewSet, fields  # noqa: E402
from aksara.api.filters import AksaraFilterBackend, OrderingFilter, SearchFilter  # noqa: E402
from aksara.api.pagination import CursorPagination  # noqa: E402
from aksara.permissions import BasePermission  # noqa: E402
from aksara.security.principal import Principal  # noqa: E402
from starlette.middleware.base import BaseHTTPMiddleware  # noqa: E402


class Post(Model):
    title = fields.String(max_length=200)
    body = fields.Text()
    published = fields.Boolean(default=False)
    views = fields.Integer(default=0)
    rating = fields.Float(nullable=True)
    author_id = fields.Integer()
    created_at = fields.DateTime(auto_now_add=True)

    class Meta:
        table_name = "posts"


class IsAuthenticatedOrReadOnly(BasePermission):
    """Reads are open; writes need an authenticated user (aksara 0.7.2 ships no such class)."""

    message = "Authentication required."

    def has_permission(self, request, view=None):
        if self.is_safe_method(request):
            return True
        user = self.get_user(request)
        return user is not None and getattr(user, "is_authenticated", False)


class PostViewSet(ModelViewSet):
    model = Post
    prefix = "/api/posts"
    filter_backends = [AksaraFilterBackend, SearchFilter, OrderingFilter]
    filterable_fields = ["published", "views", "author_id", "rating", "title", "created_at"]
    search_fields = ["title", "body"]
    ordering_fields = ["id", "title", "views", "created_at"]
    ordering = "-id"
    permission_classes = [IsAuthenticatedOrReadOnly]
    stream_enabled = False


class CursorPostViewSet(PostViewSet):
    """Deep pages by cursor. aksara's CursorPagination only walks `id > cursor`, so it is ordered by `id`."""

    prefix = "/cursor/posts"
    pagination_class = CursorPagination
    ordering = "id"


class DemoTokens(BaseHTTPMiddleware):
    """The blog's demo authentication: `Authorization: Bearer bob-token` is the user bob."""

    async def dispatch(self, request, call_next):
        if request.headers.get("authorization") == "Bearer bob-token":
            request.state.user = SimpleNamespace(
                id="bob", pk="bob", is_authenticated=True, is_active=True, is_staff=False, is_superuser=False
            )
            request.state.principal = Principal.for_user("bob")
        return await call_next(request)


app = Aksara(
    database_url=DATABASE_URL,
    min_pool_size=2,
    max_pool_size=POOL_SIZE,
    auto_discover_views=False,
    enable_admin=False,
    docs_url=None,
    redoc_url=None,
    openapi_url=None,
    middlewares=[(DemoTokens, {})],
)
app.register_viewsets([PostViewSet, CursorPostViewSet])

if __name__ == "__main__" and "--print-ddl" in sys.argv:
    print(Post.get_create_table_sql())
