-- POST a new event for the caller.
dofile("bench/wrk/common.lua")
expected_status = 200

request = function()
  local u, n = next_user()
  local day = string.format("2026-%02d-%02d", (n % 12) + 1, (n % 28) + 1)
  local body = '{"action":"create","title":"Dinner ' .. n .. '","description":"At the usual place","startDate":"' .. day ..
    '","endDate":"' .. day .. '","startTime":"19:30","endTime":"21:00","location":"Home","eventType":"date",' ..
    '"importanceLevel":"Medium"}'
  return wrk.format("POST", "/api/users/user/" .. u.id .. "/events", auth(u), body)
end
