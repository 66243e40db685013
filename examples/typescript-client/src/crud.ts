import createClient from "openapi-fetch";
import type { paths } from "./blog.js";

// "application/json": a list also answers text/csv, and the typed bodies are the JSON ones.
const blog = createClient<paths, "application/json">({
  baseUrl: process.env.BLOG_URL ?? "http://127.0.0.1:8000",
  headers: { Authorization: "Bearer bob-token" },
});

const created = await blog.POST("/api/posts/", {
  body: { title: "Typed from TypeScript", body: "openapi-fetch", author_id: 2 },
});
// The posts are `bulk` and upsert by `slug`: an array answers an array, `?on_conflict=` an envelope; one object
// without it answers one record.
if (!created.data || Array.isArray(created.data) || !("id" in created.data)) {
  throw new Error(`create: ${JSON.stringify(created.error)}`);
}
const pk = created.data.id;

const page = await blog.GET("/api/posts/", { params: { query: { ordering: "-id", limit: 5 } } });
if (!page.data) throw new Error(`list: ${JSON.stringify(page.error)}`);
console.log(`${page.data.count} posts; newest: ${page.data.results[0]?.title}`);

const edited = await blog.PATCH("/api/posts/{pk}", { params: { path: { pk } }, body: { title: "Edited" } });
if (edited.data?.title !== "Edited") throw new Error(`update: ${JSON.stringify(edited.error)}`);

// An expanded relation is typed: the author's record, or null.
const withAuthor = await blog.GET("/api/posts/{pk}", { params: { path: { pk }, query: { expand: "author" } } });
if (withAuthor.data?.author?.name !== "Alan Turing") throw new Error(`expand: ${JSON.stringify(withAuthor.data)}`);
const authors = await blog.GET("/authors/{pk}", { params: { path: { pk: 2 }, query: { expand: "posts" } } });
console.log(`${authors.data?.name} wrote ${authors.data?.posts?.map((post) => post.title).join(", ")}`);

const missing = await blog.GET("/api/posts/{pk}", { params: { path: { pk: 999999 } } });
console.log(`a missing post: ${missing.response.status} ${missing.error?.detail}`);

const removed = await blog.DELETE("/api/posts/{pk}", { params: { path: { pk } } });
if (!removed.data?.deleted) throw new Error(`delete: ${JSON.stringify(removed.error)}`);
console.log(`created, listed, edited and deleted post ${pk}`);
