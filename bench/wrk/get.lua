-- GET one event of the caller's.
dofile("bench/wrk/common.lua")
expected_status = 200

request = function()
  local u, n = next_user()
  local id = u.events[(n % #u.events) + 1]
  return wrk.format("GET", "/api/users/user/" .. u.id .. "/events/" .. id, auth(u))
end
