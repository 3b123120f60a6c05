-- wrk script: DynamoDB GetItem / PutItem / Query against the table `monotable bench` loads
-- (table monotable-bench, items i = 0..ITEMS-1 with pk = p%06d(i / 25), sk = s%04d(i % 25)).
--
--   WORKLOAD=get|put|put-new|query ITEMS=2000 wrk -t2 -c32 -d5s -s bench/wrk/dynamodb.lua http://127.0.0.1:8000
--
-- put overwrites loaded items; put-new writes a new item with every request (keys from ITEMS
-- on, distinct per thread and per run through RUN, so a second run does not overwrite the
-- first one's items).
--
-- Load the table first, e.g. `monotable bench --endpoint URL --items 2000 --requests 1`.
-- Requests carry a fixed, well-formed SigV4 Authorization header that is NOT a valid
-- signature: monotable serve (default --auth accept, like DynamoDB Local) and dynoxide only
-- check that one is present and well-formed. wrk does no signing, so this measures the servers
-- without the cost of a signing client; `monotable bench` signs every request like an SDK.
-- Bodies are pre-built in init(); request() only picks the next one. Non-200 answers are
-- counted by wrk as "Non-2xx or 3xx responses" and must be zero for a valid run.

local workload = os.getenv("WORKLOAD") or "get"
local items = tonumber(os.getenv("ITEMS") or "2000")
local table_name = "monotable-bench"
local targets = { get = "GetItem", put = "PutItem", ["put-new"] = "PutItem", query = "Query" }
local run = tonumber(os.getenv("RUN") or "0")
local headers = nil
local requests = {}
local n = 0

local function key(i)
  return string.format("p%06d", math.floor(i / 25)), string.format("s%04d", i % 25)
end

local function body(i)
  local pk, sk = key(i)
  if workload == "get" then
    return string.format('{"TableName":"%s","Key":{"pk":{"S":"%s"},"sk":{"S":"%s"}}}', table_name, pk, sk)
  elseif workload == "put" or workload == "put-new" then
    -- The same 256-byte item shape as `monotable bench --workload put`.
    local gsi1pk = string.format("g%02d", i % 64)
    local num = tostring((i * 7919) % 1000000)
    local fixed = 2 + #pk + 2 + #sk + 6 + #gsi1pk + 6 + #sk + 1 + #num + 7
    local pad = math.max(256 - fixed, 1)
    return string.format(
      '{"TableName":"%s","Item":{"gsi1pk":{"S":"%s"},"gsi1sk":{"S":"%s"},"n":{"N":"%s"},"payload":{"S":"%s"},"pk":{"S":"%s"},"sk":{"S":"%s"}}}',
      table_name, gsi1pk, sk, num, string.rep("x", pad), pk, sk)
  else
    local full = math.floor(items / 25)
    local p = string.format("p%06d", i % full)
    return string.format('{"TableName":"%s","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"%s"}}}', table_name, p)
  end
end

local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function init(args)
  local target = targets[workload]
  if target == nil then error("WORKLOAD must be get, put, put-new or query") end
  headers = {
    ["Content-Type"] = "application/x-amz-json-1.0",
    ["X-Amz-Target"] = "DynamoDB_20120810." .. target,
    ["X-Amz-Date"] = "20261202T120000Z",
    ["Authorization"] = "AWS4-HMAC-SHA256 Credential=AKIDWRK/20261202/us-east-1/dynamodb/aws4_request, "
      .. "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature="
      .. string.rep("0", 64),
  }
  -- A different starting point per thread, 1000 distinct bodies per thread.
  local seed = (id or 0) * 7919 + 17
  for k = 1, 1000 do
    local i = (seed + k * 104729) % items
    requests[k] = wrk.format("POST", "/", headers, body(i))
  end
  n = 0
end

function request()
  if workload == "put-new" then
    -- 2^40 keys per thread and run: never a key another thread or run writes.
    n = n + 1
    return wrk.format("POST", "/", headers, body(items + ((run * 64 + (id or 0)) * 2 ^ 40) + n))
  end
  n = n % #requests + 1
  return requests[n]
end
