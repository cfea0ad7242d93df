-- The overhead budget benchmark's work (test/bench/budget.sh): dense small
-- calls through the interpreter's C functions. Each round sorts records with
-- a comparator, builds and formats strings, matches patterns, makes and
-- calls closures and runs a small recursive function. Deterministic (its own
-- generator, no pairs() over hashed keys), so every run prints the same
-- checksum.
--
-- usage: lua budget.lua [ROUNDS]   (default 40)

local rounds = tonumber(arg and arg[1]) or 40

local seed = 12345
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

local sum = 0
local function mix(v)
  sum = (sum * 31 + v) % 4294967296
end

local words = {}
for i = 1, 200 do
  local parts = {}
  for j = 1, 3 + i % 5 do
    parts[j] = string.char(97 + rand(26))
  end
  words[i] = table.concat(parts)
end

-- Sorting: records by two keys, through a Lua comparator.
local function sort_records(n)
  local recs = {}
  for i = 1, n do
    recs[i] = { key = rand(1000), name = words[1 + rand(#words)], id = i }
  end
  table.sort(recs, function(a, b)
    if a.key ~= b.key then return a.key < b.key end
    if a.name ~= b.name then return a.name < b.name end
    return a.id < b.id
  end)
  for i = 1, n, 97 do mix(recs[i].id) end
end

-- Strings: formatting, concatenation, upper/lower, reversal.
local function build_strings(n)
  local out = {}
  for i = 1, n do
    local w = words[1 + i % #words]
    out[#out + 1] = string.format("%5d:%-8s|%6.2f|%x", i, w, i / 7, i * 13)
    if i % 3 == 0 then out[#out + 1] = w:upper() .. w:reverse() end
  end
  local s = table.concat(out, ",")
  mix(#s)
  mix(s:byte(#s // 2))
  return s
end

-- Patterns: find, gsub with a function, gmatch over the built string.
local function match_patterns(s)
  local count = 0
  for num, word in s:gmatch("(%d+):(%a+)") do
    count = count + #word + tonumber(num) % 7
  end
  local replaced, k = s:gsub("%u+", function(u) return u:sub(1, 2):lower() end)
  mix(count)
  mix(k)
  mix(#replaced)
  local pos, hits = 1, 0
  while true do
    local a, b = s:find("|%s*%d+%.%d%d|", pos)
    if not a then break end
    hits = hits + 1
    pos = b + 1
  end
  mix(hits)
end

-- Closures: counters, map and fold through function arguments.
local function make_counter(step)
  local c = 0
  return function() c = c + step; return c end
end

local function map(t, f)
  local r = {}
  for i = 1, #t do r[i] = f(t[i]) end
  return r
end

local function fold(t, f, acc)
  for i = 1, #t do acc = f(acc, t[i]) end
  return acc
end

local function closures(n)
  local counters = {}
  for i = 1, 16 do counters[i] = make_counter(i) end
  local t = {}
  for i = 1, n do t[i] = counters[1 + i % 16]() end
  local doubled = map(t, function(x) return x * 2 + 1 end)
  mix(fold(doubled, function(a, x) return (a + x) % 1000003 end, 0))
end

-- A small recursive function.
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

for r = 1, rounds do
  sort_records(3000)
  local s = build_strings(2000)
  match_patterns(s)
  closures(5000)
  mix(fib(18 + r % 3))
end

print(string.format("checksum %d rounds %d", sum, rounds))
