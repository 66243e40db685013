# The wrk scripts of the Rust servers' workloads, one definition for bench/profile.sh, bench/sample.sh and
# bench/memory.sh (sourced, not run). lua WORKLOAD [DEEP_PATH] prints the script; its `done` prints the requests and
# errors wrk counted. run.sh's workloads are the same requests, written in bench/src (the `run` command).
lua() { # workload -> wrk script
  case $1 in
    retrieve) echo 'wrk.headers["Accept"] = "application/json"
request = function() return wrk.format("GET", "/api/posts/" .. math.random(1, 5000)) end' ;;
    list) echo 'wrk.headers["Accept"] = "application/json"
request = function() return wrk.format("GET", "/api/posts/?published=true&search=a&ordering=-views&limit=20") end' ;;
    list_plain) echo 'wrk.headers["Accept"] = "application/json"
request = function() return wrk.format("GET", "/api/posts/?author_id=3&ordering=-views&limit=20") end' ;;
    cursor) echo 'wrk.headers["Accept"] = "application/json"
request = function() return wrk.format("GET", "/cursor/posts/?limit=20") end' ;;
    deep_cursor) echo "wrk.headers[\"Accept\"] = \"application/json\"
request = function() return wrk.format(\"GET\", \"$2\") end" ;;
    create) echo 'wrk.headers["Authorization"] = "Bearer bob-token"
wrk.headers["Content-Type"] = "application/json"
local body = [[{"title": "Benchmark post", "body": "Written by the load generator.", "author_id": 1, "views": 3}]]
request = function() return wrk.format("POST", "/api/posts/", nil, body) end' ;;
    patch) echo 'wrk.headers["Authorization"] = "Bearer bob-token"
wrk.headers["Content-Type"] = "application/json"
request = function() return wrk.format("PATCH", "/api/posts/" .. math.random(1, 5000), nil, "{\"views\": " .. math.random(0, 1000000) .. "}") end' ;;
  esac
  echo 'done = function(s) io.write("REQUESTS " .. s.requests .. " ERRORS " .. (s.errors.status + s.errors.connect + s.errors.read + s.errors.write + s.errors.timeout) .. "\n") end'
}

answering() { # port -> waits until the server there answers a list request (at most 60 s)
  for _ in $(seq 1 120); do curl -fsS "http://127.0.0.1:$1/api/posts/?limit=1" >/dev/null 2>&1 && return 0; sleep 0.5; done
}

deep_path() { # port -> the deep_cursor workload's path: the cursor page 2,000 rows deep, reached by following `next`
  local deep="/cursor/posts/?limit=100"
  for _ in $(seq 1 20); do
    deep=$(curl -fsS "http://127.0.0.1:$1$deep" | python3 -c 'import json, sys; n = json.load(sys.stdin)["next"]; print(n[n.index("/cursor/"):])')
  done
  echo "${deep/limit=100/limit=20}"
}
