-- search.lua -- headless Neovim (0.7+) as a real Fourfold client.
--
-- Starts the server with Neovim's built-in LSP client on a workspace, waits for the server's
-- `fourfold/indexStatus` notification with phase "indexed" (no sleeping), sends the requests in
-- FOURFOLD_REQUESTS_JSON one by one, and writes every answer to FOURFOLD_OUT as JSON.
-- Self-contained: it needs only Neovim and the server, so the suite runs from a bare clone.
--
-- Environment: FOURFOLD_CMD_JSON (server argv), FOURFOLD_ROOT, FOURFOLD_OUT, FOURFOLD_REQUESTS_JSON,
-- FOURFOLD_INIT_OPTIONS_JSON, FOURFOLD_TIMEOUT_MS (default 30000).
-- Output: {"ok", "nvim_version", "server_name", "commands", "statuses", "responses": [{"method", "result"|"error"}]}

local out = { ok = false, responses = {}, statuses = {} }
local v = vim.version()
out.nvim_version = v.major .. '.' .. v.minor .. '.' .. v.patch

local function finish(code)
  local fh = assert(io.open(os.getenv('FOURFOLD_OUT'), 'w'))
  fh:write(vim.json.encode(out), '\n')
  fh:close()
  vim.cmd(code == 0 and 'qall!' or ('cquit ' .. code))
end

local function main()
  local timeout = tonumber(os.getenv('FOURFOLD_TIMEOUT_MS') or '30000')
  local root = os.getenv('FOURFOLD_ROOT')
  local indexed = false
  local client_id = vim.lsp.start_client({
    name = 'fourfold',
    cmd = vim.json.decode(os.getenv('FOURFOLD_CMD_JSON')),
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    init_options = vim.json.decode(os.getenv('FOURFOLD_INIT_OPTIONS_JSON') or '{}'),
    -- Neovim 0.7 keeps no serverInfo on the client object: read it from the initialize result.
    on_init = function(_, result)
      out.server_name = result.serverInfo and result.serverInfo.name or vim.NIL
    end,
    handlers = {
      ['fourfold/indexStatus'] = function(_, params)
        table.insert(out.statuses, params)
        if params.phase == 'indexed' or params.phase == 'error' then indexed = true end
      end,
    },
  })
  assert(client_id, 'could not start the server')
  assert(vim.wait(timeout, function() return indexed end, 10), 'the index was not ready in time')
  local client = vim.lsp.get_client_by_id(client_id)
  local provider = client.server_capabilities.executeCommandProvider
  out.commands = provider and provider.commands or vim.NIL

  local all_ok = true
  for _, r in ipairs(vim.json.decode(os.getenv('FOURFOLD_REQUESTS_JSON') or '[]')) do
    local resp, err = client.request_sync(r.method, r.params, timeout, 0)
    local entry = { method = r.method }
    if not resp then
      entry.error = { message = tostring(err) }
      all_ok = false
    elseif resp.err then
      entry.error = resp.err
      all_ok = false
    else
      entry.result = resp.result == nil and vim.NIL or resp.result
    end
    table.insert(out.responses, entry)
  end
  client.stop()
  vim.wait(5000, function() return client.is_stopped() end, 10)
  out.ok = all_ok
  return all_ok and 0 or 1
end

local ok, res = xpcall(main, debug.traceback)
if not ok then
  out.error = tostring(res)
  io.stderr:write('search.lua: ', out.error, '\n')
  finish(2)
else
  finish(res)
end
