-- GET the first page of 20 of the caller's events.
dofile("bench/wrk/common.lua")
expected_status = 200

request = function()
  local u = next_user()
  return wrk.format("GET", "/api/users/user/" .. u.id .. "/events?limit=20", auth(u))
end
