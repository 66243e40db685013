-- The rows bench/profile.sh and bench/memory.sh measure on (the schema comes from the blog's migrations, run by
-- the server at start): 5 authors, 5,000 posts.
TRUNCATE posts RESTART IDENTITY;
INSERT INTO authors (name, email) SELECT 'Author ' || i, 'author' || i || '@example.com' FROM generate_series(1, 5) AS i
  ON CONFLICT DO NOTHING;
INSERT INTO posts (title, body, published, views, rating, author_id, created_at)
SELECT 'Post ' || i || ' on ' || (ARRAY['rust','axum','tokio','serde','sqlx','postgres','python','django'])[1 + i % 8],
       'Notes number ' || i || ': ' || (ARRAY['fast','slow','typed','dynamic','tested','simple'])[1 + i % 6] || ' code',
       i % 2 = 0, (i * 7919) % 10000, CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 50) / 10.0 END, 1 + i % 5,
       TIMESTAMPTZ '2025-01-01 00:00:00+00' + i * INTERVAL '1 minute'
FROM generate_series(1, 5000) AS i;
VACUUM ANALYZE posts;
