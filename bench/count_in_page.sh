#!/usr/bin/env bash
# The count in the page's statement (`COUNT(*) OVER ()`) against the count and the page as two statements, on the
# database alone, per backend: bash bench/count_in_page.sh [rounds]
# Seeds 5,000 posts as bench/seed.sql does into a database `vscount` on PostgreSQL (BENCH_PG_URL, default
# postgres://postgres@127.0.0.1:5432) and on MariaDB (BENCH_MYSQL_HOST, default 127.0.0.1, user root), and a SQLite
# file, then times the search list of the `list` workload (published=true and `a` in title or body: 833 rows) and
# the plain list's filter (author_id=3), each as the store sends it: two statements (COUNT over the filtered
# select, then the ordered page of 20) or one (the page with the window count). Prints lists per second: pgbench
# (prepared statements) at 1 and 2 clients, mariadb-slap at 2 clients, Python's sqlite3 in one connection.
# Needs psql, pgbench, mariadb, mariadb-slap and python3. Not part of `cargo test` or CI.
set -euo pipefail
rounds=${1:-3}
pg=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432}
my=${BENCH_MYSQL_HOST:-127.0.0.1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cols="id, title, body, published, views, rating, author_id, created_at, updated_at, slug"
rows="FROM generate_series(1, 5000) AS i"

psql -q "$pg/postgres" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS vscount WITH (FORCE)" \
  -c "CREATE DATABASE vscount"
psql -q "$pg/vscount" <<SQL
CREATE TABLE posts (id serial PRIMARY KEY, title varchar(200) NOT NULL, body text NOT NULL,
  published bool NOT NULL DEFAULT false, views int NOT NULL DEFAULT 0, rating double precision,
  author_id int NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz, slug varchar(200) UNIQUE);
INSERT INTO posts (title, body, published, views, rating, author_id, created_at)
SELECT 'Post ' || i || ' on ' || (ARRAY['rust','axum','tokio','serde','sqlx','postgres','python','django'])[1 + i % 8],
       'Notes number ' || i || ': ' || (ARRAY['fast','slow','typed','dynamic','tested','simple'])[1 + i % 6] || ' code',
       i % 2 = 0, ((i::bigint * 7919) % 10000)::int, CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 50) / 10.0 END,
       1 + i % 5, TIMESTAMPTZ '2025-01-01 00:00:00+00' + i * INTERVAL '1 minute' $rows;
VACUUM ANALYZE posts;
SQL
mariadb -h"$my" -uroot -e "DROP DATABASE IF EXISTS vscount; CREATE DATABASE vscount; USE vscount;
  CREATE TABLE posts (id int AUTO_INCREMENT PRIMARY KEY, title varchar(200) NOT NULL, body text NOT NULL,
  published bool NOT NULL DEFAULT false, views int NOT NULL DEFAULT 0, rating double, author_id int NOT NULL,
  created_at datetime NOT NULL, updated_at datetime, slug varchar(200) UNIQUE);
  INSERT INTO posts (title, body, published, views, rating, author_id, created_at)
  SELECT CONCAT('Post ', seq, ' on ', ELT(1 + seq % 8,'rust','axum','tokio','serde','sqlx','postgres','python','django')),
    CONCAT('Notes number ', seq, ': ', ELT(1 + seq % 6,'fast','slow','typed','dynamic','tested','simple'), ' code'),
    seq % 2 = 0, (seq * 7919) % 10000, IF(seq % 3 = 0, NULL, (seq % 50) / 10.0), 1 + seq % 5,
    '2025-01-01 00:00:00' + INTERVAL seq MINUTE FROM seq_1_to_5000; ANALYZE TABLE posts;" >/dev/null

pg_search="published = true AND (title ILIKE '%a%' OR body ILIKE '%a%')"
my_search="published = true AND (LOWER(title) LIKE LOWER('%a%') OR LOWER(body) LIKE LOWER('%a%'))"
two() { echo "SELECT COUNT(*) AS num_items FROM (SELECT $cols FROM posts WHERE $1) AS sub_query;
SELECT $cols FROM posts WHERE $1 ORDER BY views DESC, id ASC LIMIT 20 OFFSET 0;"; }
one() { echo "SELECT $cols, COUNT(*) OVER () AS n FROM posts WHERE $1 ORDER BY views DESC, id ASC LIMIT 20 OFFSET 0;"; }
two "$pg_search" >"$tmp/pg_search_two.sql"; one "$pg_search" >"$tmp/pg_search_one.sql"
two "author_id = 3" >"$tmp/pg_plain_two.sql"; one "author_id = 3" >"$tmp/pg_plain_one.sql"
two "$my_search" >"$tmp/my_search_two.sql"; one "$my_search" >"$tmp/my_search_one.sql"

echo "| database | list | clients | round | two statements (lists/s) | one statement (lists/s) | one ÷ two |"
echo "|---|---|---|---|---:|---:|---:|"
ratio() { python3 -c "print(f'{$2 / $1:.2f}')"; }
for round in $(seq 1 "$rounds"); do
  for list in search plain; do
    for clients in 1 2; do
      tps() { pgbench -n -M prepared -T 5 -c "$clients" -j "$clients" -f "$1" "$pg/vscount" 2>&1 | grep -oP 'tps = \K[0-9.]+'; }
      a=$(tps "$tmp/pg_${list}_two.sql"); b=$(tps "$tmp/pg_${list}_one.sql")
      echo "| PostgreSQL | $list | $clients | $round | ${a%.*} | ${b%.*} | $(ratio "$a" "$b") |"
    done
  done
  secs() { mariadb-slap -h"$my" -uroot --create-schema=vscount --concurrency=2 --iterations=1 --number-of-queries="$2" \
    --delimiter=";" --query="$1" 2>&1 | grep -oP 'Average number of seconds to run all queries: \K[0-9.]+'; }
  a=$(secs "$tmp/my_search_two.sql" 400); b=$(secs "$tmp/my_search_one.sql" 200)
  a=$(python3 -c "print(200 / $a)"); b=$(python3 -c "print(200 / $b)")
  echo "| MariaDB | search | 2 | $round | ${a%.*} | ${b%.*} | $(ratio "$a" "$b") |"
  python3 - "$round" <<'PY'
import sqlite3, sys, time, tempfile, os
path = os.path.join(tempfile.mkdtemp(), "count.db")
db = sqlite3.connect(path)
db.executescript("""CREATE TABLE posts (id integer PRIMARY KEY, title varchar(200) NOT NULL, body text NOT NULL,
  published bool NOT NULL DEFAULT false, views int NOT NULL DEFAULT 0, rating real, author_id int NOT NULL,
  created_at text NOT NULL, updated_at text, slug varchar(200) UNIQUE);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 5000)
INSERT INTO posts (title, body, published, views, rating, author_id, created_at)
SELECT 'Post ' || i || ' on ' || (CASE i % 8 WHEN 0 THEN 'rust' WHEN 1 THEN 'axum' WHEN 2 THEN 'tokio'
  WHEN 3 THEN 'serde' WHEN 4 THEN 'sqlx' WHEN 5 THEN 'postgres' WHEN 6 THEN 'python' ELSE 'django' END),
  'Notes number ' || i || ': ' || (CASE i % 6 WHEN 0 THEN 'fast' WHEN 1 THEN 'slow' WHEN 2 THEN 'typed'
  WHEN 3 THEN 'dynamic' WHEN 4 THEN 'tested' ELSE 'simple' END) || ' code',
  i % 2 = 0, (i * 7919) % 10000, CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 50) / 10.0 END, 1 + i % 5, '2025-01-01'
FROM s; ANALYZE;""")
where = "published = 1 AND (LOWER(title) LIKE LOWER('%a%') OR LOWER(body) LIKE LOWER('%a%'))"
cols = "id, title, body, published, views, rating, author_id, created_at, updated_at, slug"
two = [f"SELECT COUNT(*) AS num_items FROM (SELECT {cols} FROM posts WHERE {where}) AS sub_query",
       f"SELECT {cols} FROM posts WHERE {where} ORDER BY views DESC, id ASC LIMIT 20 OFFSET 0"]
one = [f"SELECT {cols}, COUNT(*) OVER () AS n FROM posts WHERE {where} ORDER BY views DESC, id ASC LIMIT 20 OFFSET 0"]
rate = {}
for name, statements in (("two", two), ("one", one)):
    n, start = 300, time.perf_counter()
    for _ in range(n):
        for statement in statements:
            db.execute(statement).fetchall()
    rate[name] = n / (time.perf_counter() - start)
print(f"| SQLite | search | 1 | {sys.argv[1]} | {rate['two']:.0f} | {rate['one']:.0f} | {rate['one'] / rate['two']:.2f} |")
db.close()
os.remove(path)
os.rmdir(os.path.dirname(path))
PY
done
psql -q "$pg/postgres" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS vscount WITH (FORCE)"
mariadb -h"$my" -uroot -e "DROP DATABASE IF EXISTS vscount"
