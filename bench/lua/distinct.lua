-- POSTs of one document with a distinct variable per request: every request is a new cache key.
-- Usage: wrk -tT ... -s bench/lua/distinct.lua URL -- TEMPLATE_FILE LIMIT T [FIRST]
-- TEMPLATE_FILE holds the JSON body with @ID@ where the distinct id goes. Thread t of T sends
-- ids FIRST+t, FIRST+t+T, ... (FIRST 0 by default) below FIRST+LIMIT; past it, it stops
-- (LIMIT 0: never stops, for churn). A run with a FIRST of its own sends no body an earlier
-- run sent (a request seen twice may be answered from the proxy's memo of parsed requests).
-- wrk keeps running until its -d is over, so the caller stops it once the cache is full.
local counter = 0

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end

local prefix, suffix, limit, step, first, id

function init(args)
  local file = assert(io.open(args[1], "rb"), "cannot open template " .. tostring(args[1]))
  local template = file:read("*a")
  file:close()
  local at = assert(template:find("@ID@", 1, true), "no @ID@ in the template")
  prefix, suffix = template:sub(1, at - 1), template:sub(at + 4)
  limit = tonumber(args[2] or "0")
  step = tonumber(args[3] or "1")
  first = tonumber(args[4] or "0")
  id = tid
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local this = id
  id = id + step
  if limit > 0 and this >= limit then
    wrk.thread:stop()
    this = this % limit
  end
  return wrk.format(nil, nil, nil, prefix .. (first + this) .. suffix)
end
