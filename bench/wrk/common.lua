-- Shared by the benchmark scripts: the fixture's users (tandem-load prepare
-- or serve wrote them to $FIXTURE) taken in turn, one per request, and a
-- last line the runner (bench/run.sh) reads.
local fixture = dofile(os.getenv("FIXTURE") or "bench/out/fixture.lua")
local turn = 0

-- next_user returns the next user and this request's number.
function next_user()
  turn = turn + 1
  return fixture[(turn % #fixture) + 1], turn
end

function auth(u)
  return {["Authorization"] = "Bearer " .. u.token, ["Content-Type"] = "application/json"}
end

-- A response other than the one expected counts as an error: a benchmark
-- of 401s measures nothing. Each wrk thread counts in its own Lua state (a
-- global, so done can read it); done runs in another and sums them.
bad = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function response(status, headers, body)
  if status ~= expected_status then
    bad = bad + 1
    if bad <= 3 then io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n") end
  end
end

function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do
    bad = bad + t:get("bad")
  end
  local secs = summary.duration / 1e6
  io.write(string.format("RESULT rps=%.0f p50_ms=%.2f p99_ms=%.2f requests=%d unexpected=%d socket_errors=%d\n",
    summary.requests / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests,
    bad, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
