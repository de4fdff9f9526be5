-- efmesh for Neovim: starts `efmesh lsp` for the buffers of an efmesh project
-- (the nearest folder above them holding efmesh.yaml) and adds commands for
-- what the protocol alone does not show: the rendered SQL, plans, apply,
-- lineage and unit tests.
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client) and
-- on current Neovim (vim.lsp.start).
--
--   require('efmesh').setup { cmd = { 'efmesh', 'lsp' }, environment = 'dev' }
local M = {}

local CONFIG_FILE = 'efmesh.yaml'
local PROD = 'prod'

local defaults = {
  -- The server command; the first word also runs `efmesh test`.
  cmd = { 'efmesh', 'lsp' },
  -- The environment code lenses compare with and commands default to.
  environment = 'dev',
  -- Attach to project buffers as they are opened.
  autostart = true,
  -- Passed on to the client, as with any language server.
  on_attach = nil,
  capabilities = nil,
  handlers = nil,
  -- Debounce of didChange, in milliseconds.
  debounce = 80,
}

M.config = vim.deepcopy(defaults)

local clients = {} -- project root -> client id (Neovim 0.7)
local uv = vim.uv or vim.loop
local has_011 = vim.fn.has('nvim-0.11') == 1

local function notify(msg, level)
  vim.notify('efmesh: ' .. msg, level or vim.log.levels.INFO)
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function normalize(path)
  return (vim.fn.fnamemodify(path, ':p'):gsub('/$', ''))
end

--- root returns the project root of a file: the nearest folder above it
--- that holds efmesh.yaml, or nil.
function M.root(path)
  if not path or path == '' then
    return nil
  end
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while dir and dir ~= '' do
    if exists(dir .. '/' .. CONFIG_FILE) then
      return dir
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

--- is_project_file tells whether the server should see the file: SQL files,
--- efmesh.yaml and unit tests (tests/**/*.yaml) below the project root.
local function is_project_file(root, path)
  local rel = path:sub(#root + 2)
  if path:sub(1, #root + 1) ~= root .. '/' then
    return false
  end
  if rel:match('%.sql$') or rel == CONFIG_FILE then
    return true
  end
  return rel:match('^tests/.*%.ya?ml$') ~= nil
end

-- Server messages (plan summaries, apply results) go through vim.notify,
-- so a notification plugin shows them like the plugin's own.
local message_levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
local default_handlers = {
  ['window/showMessage'] = function(_, result)
    if result and result.message then
      vim.notify('efmesh: ' .. result.message, message_levels[result.type] or vim.log.levels.INFO)
    end
    return vim.NIL
  end,
}

local function client_config(root)
  local c = M.config
  return {
    name = 'efmesh',
    cmd = c.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = { environment = c.environment },
    settings = { efmesh = { environment = c.environment } },
    capabilities = c.capabilities or vim.lsp.protocol.make_client_capabilities(),
    on_attach = c.on_attach,
    handlers = vim.tbl_extend('force', default_handlers, c.handlers or {}),
    flags = { debounce_text_changes = c.debounce },
  }
end

local warned = false

--- executable_cmd tells whether the server command can run; once per
--- session it says how to fix it when it cannot.
local function executable_cmd()
  local exe = M.config.cmd[1]
  if vim.fn.executable(exe) == 1 then
    return true
  end
  if not warned then
    warned = true
    notify(string.format(
      'cannot run %q: install efmesh (go install github.com/efmesh/efmesh/cmd/efmesh@latest) and put it on PATH, '
        .. "or pass its full path: require('efmesh').setup { cmd = { '/path/to/efmesh', 'lsp' } }",
      exe
    ), vim.log.levels.ERROR)
  end
  return false
end

local function live(id)
  return id and vim.lsp.get_client_by_id(id) or nil
end

--- attach starts (or reuses) the server of the buffer's project and
--- attaches the buffer to it. It returns the client id, or nil when the
--- buffer is not part of an efmesh project.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local path = normalize(name)
  local root = M.root(path)
  if not root or not is_project_file(root, path) then
    return nil
  end
  if not executable_cmd() then
    return nil
  end
  if vim.lsp.start then
    local id = vim.lsp.start(client_config(root), {
      bufnr = bufnr,
      reuse_client = function(client, config)
        return client.name == config.name and client.config.root_dir == config.root_dir
      end,
    })
    clients[root] = id
    return id
  end
  local id = clients[root]
  if not live(id) then
    id = vim.lsp.start_client(client_config(root))
    clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = 'efmesh' })
  end
  return vim.tbl_filter(function(c)
    return c.name == 'efmesh'
  end, vim.lsp.get_active_clients())
end

--- client returns the efmesh client of a buffer's project (default: the
--- current buffer) and the project root. It finds a client started by this
--- plugin or by anything else that names it "efmesh" (nvim-lspconfig), and
--- starts one when autostart is on.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local path = normalize(vim.api.nvim_buf_get_name(bufnr))
  local root = M.root(path)
  if not root then
    return nil, nil
  end
  local client = live(clients[root])
  if client then
    return client, root
  end
  for _, c in ipairs(all_clients()) do
    if c.config.root_dir and normalize(c.config.root_dir) == root then
      return c, root
    end
  end
  if M.config.autostart then
    client = live(M.attach(bufnr))
  end
  return client, root
end

local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- execute runs a server command (efmesh.render, efmesh.plan, …) about the
--- current buffer's project and calls on_result(result) on success.
function M.execute(command, args, on_result, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client, root = M.client(bufnr)
  if not root then
    notify('this buffer is not in an efmesh project (no ' .. CONFIG_FILE .. ' above it)', vim.log.levels.ERROR)
    return
  end
  if not client then
    notify('no efmesh language server runs for ' .. root, vim.log.levels.ERROR)
    return
  end
  args = vim.tbl_extend('keep', args or {}, { uri = vim.uri_from_bufnr(bufnr) })
  if not is_project_file(root, normalize(vim.api.nvim_buf_get_name(bufnr))) then
    args.uri, args.root = nil, root
  end
  request(client, 'workspace/executeCommand', { command = command, arguments = { args } }, function(err, result)
    if err then
      notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_result(result, root)
  end, bufnr)
end

--- scratch shows lines in a read-only scratch buffer named name, in a split
--- beside the current window (reused when it is already shown).
local function scratch(name, lines, filetype)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('rightbelow vsplit')
    vim.api.nvim_win_set_buf(0, buf)
    win = vim.api.nvim_get_current_win()
    vim.cmd('wincmd p')
  end
  return buf, win
end

local function split_lines(text)
  return vim.split(text or '', '\n', { plain = true, trimempty = false })
end

local function env_arg(env)
  env = env and vim.trim(env) or ''
  if env == '' then
    return M.config.environment
  end
  return env
end

--- render shows the SQL the current model runs in env, in a scratch buffer.
function M.render(env)
  env = env_arg(env)
  local source = vim.api.nvim_buf_get_name(0)
  M.execute('efmesh.render', { env = env }, function(sql)
    local name = string.format('efmesh://render/%s (%s).sql', vim.fn.fnamemodify(source, ':t:r'), env)
    local lines = { '-- rendered by efmesh for environment ' .. env .. ' from ' .. vim.fn.fnamemodify(source, ':~:.') }
    vim.list_extend(lines, split_lines(sql))
    scratch(name, lines, 'sql')
  end)
end

local function plan_lines(plan)
  local lines = split_lines(plan.summary)
  local details = {}
  for _, m in ipairs(plan.models or {}) do
    if m.change ~= 'unchanged' or m.build then
      local line = string.format('  %-32s %s%s', m.name, m.change, m.build and ', build' or '')
      local backfill = {}
      for _, iv in ipairs(m.backfill or {}) do
        table.insert(backfill, string.format('[%s .. %s)', iv[1]:sub(1, 10), iv[2]:sub(1, 10)))
      end
      if #backfill > 0 then
        line = line .. ', backfill ' .. table.concat(backfill, ' ')
      end
      table.insert(details, line)
    end
  end
  if #details > 0 then
    table.insert(lines, '')
    vim.list_extend(lines, details)
  end
  return lines
end

--- plan shows what applying to env would do, in a scratch buffer.
function M.plan(env, on_done)
  env = env_arg(env)
  M.execute('efmesh.plan', { env = env }, function(plan)
    scratch('efmesh://plan/' .. env, plan_lines(plan), nil)
    if on_done then
      on_done(plan)
    end
  end)
end

--- modified_under lists the modified buffers of files below root.
local function modified_under(root)
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified and vim.bo[b].buftype == '' then
      local path = normalize(vim.api.nvim_buf_get_name(b))
      if path:sub(1, #root + 1) == root .. '/' then
        table.insert(out, b)
      end
    end
  end
  return out
end

--- apply builds and promotes env. Modified project buffers are saved first
--- (after asking), and prod is applied only after the plan was shown and
--- confirmed.
function M.apply(env)
  env = env_arg(env)
  local bufnr = vim.api.nvim_get_current_buf()
  local client, root = M.client(bufnr)
  if not client then
    notify('this buffer is not in an efmesh project', vim.log.levels.ERROR)
    return
  end
  local modified = modified_under(root)
  if #modified > 0 then
    local names = {}
    for _, b in ipairs(modified) do
      table.insert(names, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':~:.'))
    end
    local choice = vim.fn.confirm('Apply builds what is saved. Save ' .. table.concat(names, ', ') .. '?', '&Save and apply\n&Cancel', 2)
    if choice ~= 1 then
      notify('apply ' .. env .. ' cancelled')
      return
    end
    for _, b in ipairs(modified) do
      vim.api.nvim_buf_call(b, function()
        vim.cmd('silent write')
      end)
    end
  end
  local function run(confirm)
    M.execute('efmesh.apply', { env = env, confirm = confirm or nil }, function(r)
      local msg
      if r.applied then
        msg = string.format('applied to %s: built %d, promoted %d', env, #(r.built or {}), #(r.promoted or {}))
      else
        msg = env .. ' is up to date: nothing applied'
      end
      notify(msg)
    end, bufnr)
  end
  if env ~= PROD then
    run(false)
    return
  end
  M.execute('efmesh.plan', { env = env }, function(plan)
    if not plan.hasChanges then
      notify(env .. ' is up to date: nothing to apply')
      return
    end
    local choice = vim.fn.confirm(plan.summary .. '\n\nApply this plan to ' .. PROD .. '?', '&Apply to ' .. PROD .. '\n&Cancel', 2)
    if choice == 1 then
      run(true)
    else
      notify('apply ' .. env .. ' cancelled')
    end
  end, bufnr)
end

--- lineage shows the lineage of the current model (or of one of its
--- columns) as a tree: sources above (<-), consumers below (->). <CR> on a
--- line opens that model's file.
function M.lineage(column)
  column = column and vim.trim(column) or ''
  M.execute('efmesh.lineage', { column = column ~= '' and column or nil }, function(g, root)
    local nodes, ins, outs = {}, {}, {}
    for _, n in ipairs(g.nodes or {}) do
      nodes[n.id] = n
    end
    for _, e in ipairs(g.edges or {}) do
      ins[e.to] = ins[e.to] or {}
      table.insert(ins[e.to], e.from)
      outs[e.from] = outs[e.from] or {}
      table.insert(outs[e.from], e.to)
    end
    local lines, files = {}, {}
    local function line(depth, arrow, id)
      local n = nodes[id] or { id = id }
      local desc = { n.type, n.kind }
      local text = string.rep('  ', depth) .. arrow .. id
      local extra = table.concat(vim.tbl_filter(function(x)
        return x ~= nil and x ~= ''
      end, desc), ' · ')
      if extra ~= '' then
        text = text .. '  (' .. extra .. ')'
      end
      if n.file then
        text = text .. '  ' .. n.file
      end
      table.insert(lines, text)
      files[#lines] = n.file
    end
    local function walk(id, edges, arrow, depth, seen)
      for _, next_id in ipairs(edges[id] or {}) do
        line(depth, arrow, next_id)
        if not seen[next_id] then
          seen[next_id] = true
          walk(next_id, edges, arrow, depth + 1, seen)
        end
      end
    end
    line(0, '', g.root)
    if ins[g.root] then
      table.insert(lines, '')
      table.insert(lines, 'sources:')
      walk(g.root, ins, '<- ', 1, {})
    end
    if outs[g.root] then
      table.insert(lines, '')
      table.insert(lines, 'consumers:')
      walk(g.root, outs, '-> ', 1, {})
    end
    local buf = scratch('efmesh://lineage/' .. g.root, lines, nil)
    vim.api.nvim_buf_set_keymap(buf, 'n', '<CR>', '', {
      noremap = true,
      silent = true,
      callback = function()
        local file = files[vim.api.nvim_win_get_cursor(0)[1]]
        if file then
          vim.cmd('wincmd p')
          vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. file))
        end
      end,
    })
  end)
end

local function cell(v)
  if v == nil or v == vim.NIL then
    return 'NULL'
  end
  if type(v) == 'table' then
    return vim.fn.json_encode(v)
  end
  return (tostring(v):gsub('\n', '\\n'))
end

--- preview_lines lays a preview result (efmesh.preview) out as a text
--- table: a title, the column names and types, a rule, one line per row.
function M.preview_lines(r)
  local cols = r.columns or {}
  local header, types, rows, width = {}, {}, {}, {}
  for i, c in ipairs(cols) do
    header[i], types[i] = c.name, c.type
    width[i] = math.max(vim.fn.strdisplaywidth(c.name), vim.fn.strdisplaywidth(c.type or ''))
  end
  for _, row in ipairs(r.rows or {}) do
    local cells = {}
    for i = 1, #cols do
      cells[i] = cell(row[i])
      width[i] = math.max(width[i], vim.fn.strdisplaywidth(cells[i]))
    end
    table.insert(rows, cells)
  end
  local function line(cells)
    local parts = {}
    for i = 1, #cols do
      parts[i] = cells[i] .. string.rep(' ', width[i] - vim.fn.strdisplaywidth(cells[i]))
    end
    return (table.concat(parts, ' | '):gsub('%s+$', ''))
  end
  local n = #rows
  local title = string.format('-- %s in %s: %d row%s', r.model, r.env, n, n == 1 and '' or 's')
  if r.truncated then
    title = title .. ' (more not shown)'
  end
  if r.preview then
    title = title .. ', computed from this version (not built in ' .. r.env .. ')'
  end
  local rule = {}
  for i = 1, #cols do
    rule[i] = string.rep('-', width[i])
  end
  local lines = { title, line(header), line(types), table.concat(rule, '-+-') }
  for _, cells in ipairs(rows) do
    table.insert(lines, line(cells))
  end
  return lines
end

--- preview shows the first rows of a model (default: the current buffer's)
--- as the environment serves them, in a scratch buffer.
function M.preview(model, limit)
  model = model and vim.trim(model) or ''
  local args = { env = M.config.environment, limit = limit }
  if model ~= '' then
    args.model = model
  end
  M.execute('efmesh.preview', args, function(r)
    scratch(string.format('efmesh://preview/%s (%s)', r.model, r.env), M.preview_lines(r), nil)
  end)
end

--- selection returns the LSP range and the text of lines line1..line2 of
--- buf (1-based): the whole lines, or, when the last visual selection was
--- characterwise on exactly those lines, its columns.
local function selection(buf, line1, line2)
  local lines = vim.api.nvim_buf_get_lines(buf, line1 - 1, line2, false)
  local first, last = lines[1] or '', lines[#lines] or ''
  local s, e = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if vim.fn.visualmode() == 'v' and s[2] == line1 and e[2] == line2 then
    -- Byte columns: '< at the first selected byte, '> at the start of the
    -- last selected character (or past the line's end after $).
    local scol = math.min(s[3] - 1, #first)
    local ecol = math.min(e[3] - 1, #last)
    ecol = ecol + #vim.fn.strpart(last, ecol, 1, 1)
    if #lines == 1 then
      lines[1] = first:sub(scol + 1, ecol)
    else
      lines[1], lines[#lines] = first:sub(scol + 1), last:sub(1, ecol)
    end
    local _, sc = vim.str_utfindex(first, scol)
    local _, ec = vim.str_utfindex(last, ecol)
    return { start = { line = line1 - 1, character = sc }, ['end'] = { line = line2 - 1, character = ec } }, table.concat(lines, '\n')
  end
  -- Whole lines: up to the start of the next one (the server clamps past
  -- the end of the buffer).
  return { start = { line = line1 - 1, character = 0 }, ['end'] = { line = line2, character = 0 } }, table.concat(lines, '\n') .. '\n'
end

--- preview_selection shows the first rows of the query text on lines
--- line1..line2 of the current buffer (a visual selection: :'<,'>EfmeshPreview)
--- as the environment would serve them: @ref read through its views. A
--- file of the project is read by the server from its buffer, so its errors
--- come back at their place in the file; another buffer sends its text.
function M.preview_selection(line1, line2, limit)
  local buf = vim.api.nvim_get_current_buf()
  local range, text = selection(buf, line1, line2)
  local args = { env = M.config.environment, limit = limit, range = range }
  local _, root = M.client(buf)
  if not root or not is_project_file(root, normalize(vim.api.nvim_buf_get_name(buf))) then
    args.range, args.text = nil, text
  end
  M.execute('efmesh.preview', args, function(r)
    local lines = M.preview_lines(vim.tbl_extend('force', r, { model = 'selection' .. (r.model and (' of ' .. r.model) or ''), preview = false }))
    scratch(string.format('efmesh://preview/selection (%s)', r.env), lines, nil)
  end, buf)
end

--- test runs the project's unit tests (`efmesh test`) and shows the output.
function M.test(names)
  local _, root = M.client(0)
  if not root then
    notify('this buffer is not in an efmesh project', vim.log.levels.ERROR)
    return
  end
  local cmd = { M.config.cmd[1], '-C', root, 'test' }
  vim.list_extend(cmd, names or {})
  local output = {}
  local function collect(_, data)
    for _, l in ipairs(data or {}) do
      table.insert(output, l)
    end
  end
  local job = vim.fn.jobstart(cmd, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = collect,
    on_stderr = collect,
    on_exit = function(_, code)
      while output[#output] == '' do
        table.remove(output)
      end
      scratch('efmesh://test', output, nil)
      notify(code == 0 and 'tests passed' or 'tests failed', code == 0 and vim.log.levels.INFO or vim.log.levels.ERROR)
    end,
  })
  if job <= 0 then
    notify('cannot run ' .. cmd[1], vim.log.levels.ERROR)
  end
end

--- set_environment changes the environment of code lenses and commands.
function M.set_environment(env)
  env = vim.trim(env or '')
  if env == '' then
    notify('environment: ' .. M.config.environment)
    return
  end
  if not env:match('^[a-z][a-z0-9_]*$') then
    notify('not an environment name: ' .. env, vim.log.levels.ERROR)
    return
  end
  M.config.environment = env
  for _, client in ipairs(all_clients()) do
    client.config.settings = { efmesh = { environment = env } }
    local params = { settings = client.config.settings }
    if has_011 then
      client:notify('workspace/didChangeConfiguration', params)
    else
      client.notify('workspace/didChangeConfiguration', params)
    end
  end
  notify('environment: ' .. env)
end

--- statusline returns "efmesh: <env>" in a project buffer, "" elsewhere.
function M.statusline()
  if vim.bo.buftype == '' and M.root(vim.api.nvim_buf_get_name(0)) then
    return 'efmesh: ' .. M.config.environment
  end
  return ''
end

local function complete_env()
  local envs = { M.config.environment, 'dev', PROD }
  local out, seen = {}, {}
  for _, e in ipairs(envs) do
    if not seen[e] then
      seen[e] = true
      table.insert(out, e)
    end
  end
  return out
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  local cmd = vim.api.nvim_create_user_command
  cmd('EfmeshRender', function(a)
    M.render(a.args)
  end, { nargs = '?', complete = complete_env, desc = 'efmesh: show the rendered SQL of this model' })
  cmd('EfmeshPlan', function(a)
    M.plan(a.args)
  end, { nargs = '?', complete = complete_env, desc = 'efmesh: plan an environment' })
  cmd('EfmeshApply', function(a)
    M.apply(a.args)
  end, { nargs = '?', complete = complete_env, desc = 'efmesh: apply to an environment' })
  cmd('EfmeshLineage', function(a)
    M.lineage(a.args)
  end, { nargs = '?', desc = 'efmesh: lineage of this model, or of one of its columns' })
  cmd('EfmeshPreview', function(a)
    if a.range > 0 then
      M.preview_selection(a.line1, a.line2)
    else
      M.preview(a.args)
    end
  end, { nargs = '?', range = true, desc = 'efmesh: the first rows of this model (or of the model named, or of the selected query) in the environment' })
  cmd('EfmeshTest', function(a)
    M.test(a.fargs)
  end, { nargs = '*', desc = 'efmesh: run the unit tests' })
  cmd('EfmeshEnv', function(a)
    M.set_environment(a.args)
  end, { nargs = '?', complete = complete_env, desc = 'efmesh: show or set the environment' })

  local group = vim.api.nvim_create_augroup('efmesh', { clear = true })
  if M.config.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      pattern = { '*.sql', '*.yaml', '*.yml' },
      callback = function(ev)
        M.attach(ev.buf)
      end,
    })
    -- Buffers opened before setup.
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.attach(b)
      end
    end
  end
end

return M
