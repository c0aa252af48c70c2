-- POST the same JSON body on every request.
-- Usage: wrk ... -s bench/lua/post.lua URL -- BODY_FILE
-- With no request() function wrk formats the request once per thread and reuses it.
function init(args)
  local file = assert(io.open(args[1], "rb"), "cannot open body file " .. tostring(args[1]))
  wrk.method = "POST"
  wrk.body = file:read("*a")
  file:close()
  wrk.headers["Content-Type"] = "application/json"
end
