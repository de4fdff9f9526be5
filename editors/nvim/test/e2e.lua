-- End-to-end test of the Neovim plugin against the real `efmesh lsp`:
--
--   EFMESH_BIN=/path/to/efmesh EFMESH_PROJECT=/tmp/copy-of-hospital \
--     nvim --headless -u NONE -c 'luafile editors/nvim/test/e2e.lua'
--
-- EFMESH_PROJECT must be a scratch copy of examples/hospital: the test edits
-- and saves a model and applies to dev there, then writes a macro file
-- (macros/time.sql) and two models calling it. Prints one line per assertion;
-- exits with :cquit when one fails, :qa! when all pass.
local script = debug.getinfo(1, 'S').source:sub(2)
local plugin_dir = vim.fn.fnamemodify(script, ':p:h:h')
vim.opt.runtimepath:prepend(plugin_dir)

local bin = os.getenv('EFMESH_BIN') or 'efmesh'
local project = os.getenv('EFMESH_PROJECT')
local TIMEOUT = 20000

local passed, failed = 0, 0
local function out(s)
  io.stdout:write(s .. '\n')
end
local function check(ok, what, detail)
  if ok then
    passed = passed + 1
    out('ok   ' .. what)
  else
    failed = failed + 1
    out('FAIL ' .. what)
    if detail ~= nil then
      out('     ' .. tostring(type(detail) == 'string' and detail or vim.inspect(detail)):gsub('\n', '\n     '))
    end
  end
  return ok
end

-- Messages the plugin shows, and answers to its questions.
local notes = {}
vim.notify = function(msg)
  table.insert(notes, msg)
end
local asked = {}
local answers = {}
vim.fn.confirm = function(msg)
  table.insert(asked, msg)
  return table.remove(answers, 1) or 2
end
local function noted(pattern)
  for _, n in ipairs(notes) do
    if n:find(pattern) then
      return n
    end
  end
end

local function buffer_named(pattern)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find(pattern) then
      return b
    end
  end
end
local function text_of(b)
  return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
end

local function find(buf, needle)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(needle, 1, true)
    if col then
      return i - 1, col - 1
    end
  end
end

-- Macros: a project macro in macros/time.sql and two models calling it,
-- written in Neovim buffers and saved, then the editor features on the
-- calls through the client's own requests and handlers.
local MACRO_LINES = {
  "-- Whole hours from a to b; b is the stay's end unless given.",
  "MACRO hours_between(a, b := ended_at) AS date_diff('hour', @a, @b);",
}
local STAY_LINES = {
  'MODEL (',
  '  name mart.stay_hours,',
  '  kind VIEW,',
  "  description 'Whole hours of every stay'",
  ');',
  '',
  'SELECT stay_id, dept, @hours_between(started_at, ended_at) AS whole_hours',
  'FROM @ref(med.stays)',
}
-- med.cases has no ended_at: the macro's default names an unknown column.
local CASE_LINES = {
  'MODEL (',
  '  name mart.case_hours,',
  '  kind VIEW,',
  "  description 'Whole hours since each case moved last'",
  ');',
  '',
  'SELECT case_id, @hours_between(since) AS hours_here',
  'FROM @ref(med.cases)',
}

local function macros(efmesh)
  -- new_file writes lines into a new buffer for rel and saves it.
  local function new_file(rel, lines)
    local path = project .. '/' .. rel
    vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
    vim.cmd('silent edit ' .. vim.fn.fnameescape(path))
    local b = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
    vim.cmd('silent write')
    check(vim.wait(TIMEOUT, function()
      local c = efmesh.client(b)
      return c ~= nil and vim.lsp.buf_is_attached(b, c.id)
    end, 50), 'macros: ' .. rel .. ' is written and attached')
    return b
  end
  local macrobuf = new_file('macros/time.sql', MACRO_LINES)
  local staybuf = new_file('models/mart/stay_hours.sql', STAY_LINES)
  local casebuf = new_file('models/mart/case_hours.sql', CASE_LINES)
  local def_l, def_c = find(macrobuf, 'hours_between(')
  local dflt_l, dflt_c = find(macrobuf, 'ended_at')

  -- 1. The unknown column the macro's default brings in: an error at the
  -- call, with the definition in its related information.
  local call_l, call_c = find(casebuf, '@hours_between(since)')
  local diag
  check(vim.wait(TIMEOUT, function()
    for _, d in ipairs(vim.diagnostic.get(casebuf)) do
      if d.message:find('ended_at', 1, true) then
        diag = d
        return true
      end
    end
    return false
  end, 50), 'macros: case_hours.sql gets a diagnostic naming the unknown column ended_at', vim.diagnostic.get(casebuf))
  if diag then
    out(string.format('     models/mart/case_hours.sql:%d:%d: %s', diag.lnum + 1, diag.col + 1, diag.message))
    check(diag.severity == vim.diagnostic.severity.ERROR, 'macros: the diagnostic is an error')
    check(diag.lnum == call_l and diag.col == call_c and diag.end_lnum == call_l and diag.end_col == call_c + #'@hours_between(since)',
      string.format('macros: the diagnostic spans the call @hours_between(since) at line %d, column %d', call_l + 1, call_c + 1),
      string.format('got %d:%d-%s:%s', diag.lnum + 1, diag.col + 1, tostring((diag.end_lnum or -1) + 1), tostring((diag.end_col or -1) + 1)))
    local related = ((diag.user_data or {}).lsp or {}).relatedInformation or {}
    local rel
    for _, r in ipairs(related) do
      if vim.uri_to_fname(r.location.uri):find('/macros/time%.sql$') then
        rel = r
      end
    end
    check(rel ~= nil, 'macros: its related information points at macros/time.sql', related)
    if rel then
      local s = rel.location.range.start
      out(string.format('     related: macros/time.sql:%d:%d: %s', s.line + 1, s.character + 1, rel.message))
      check(s.line == dflt_l and s.character == dflt_c,
        string.format('macros: at ended_at in the definition (line %d, column %d)', dflt_l + 1, dflt_c + 1), rel.location.range)
    end
  end
  local function errors(b)
    return vim.diagnostic.get(b, { severity = vim.diagnostic.severity.ERROR })
  end
  check(#errors(staybuf) == 0, 'macros: stay_hours.sql has no errors', errors(staybuf))

  -- 2. A typo in the macro's name: did you mean, and its quick fix picked
  -- from vim.lsp.buf.code_action's menu.
  vim.cmd('buffer ' .. staybuf)
  local sl, sc = find(staybuf, '@hours_between(')
  vim.api.nvim_buf_set_text(staybuf, sl, sc + 1, sl, sc + #'@hours_between', { 'hours_betwen' })
  local typo
  check(vim.wait(TIMEOUT, function()
    for _, d in ipairs(vim.diagnostic.get(staybuf)) do
      if d.message:find('@hours_betwen', 1, true) then
        typo = d
        return true
      end
    end
    return false
  end, 50), 'macros: @hours_betwen gets a diagnostic', vim.diagnostic.get(staybuf))
  if typo then
    out(string.format('     models/mart/stay_hours.sql:%d:%d: %s', typo.lnum + 1, typo.col + 1, typo.message))
    check(typo.lnum == sl and typo.col == sc, string.format('macros: the unknown macro is reported at the call (line %d, column %d)', sl + 1, sc + 1),
      string.format('got %d:%d', typo.lnum + 1, typo.col + 1))
    check(typo.message:find('did you mean @hours_between', 1, true) ~= nil, 'macros: it says did you mean @hours_between', typo.message)
    local offered = {}
    local select = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      local pick
      for _, it in ipairs(items) do
        local title = opts.format_item and opts.format_item(it) or vim.inspect(it)
        table.insert(offered, title)
        if title:find('@hours_between', 1, true) then
          pick = it
        end
      end
      on_choice(pick)
    end
    vim.api.nvim_win_set_cursor(0, { sl + 1, sc + 2 })
    vim.lsp.buf.code_action()
    local fixed = vim.wait(TIMEOUT, function()
      return find(staybuf, '@hours_between(started_at, ended_at)') ~= nil
    end, 50)
    vim.ui.select = select
    check(vim.tbl_contains(offered, 'Change to @hours_between'), 'macros: the code actions offer "Change to @hours_between"', offered)
    check(fixed, 'macros: the quick fix rewrites the call to @hours_between(', text_of(staybuf))
  end
  if not find(staybuf, '@hours_between(') then
    vim.api.nvim_buf_set_lines(staybuf, 0, -1, false, STAY_LINES)
  end
  check(vim.wait(TIMEOUT, function()
    return #errors(staybuf) == 0
  end, 50), 'macros: the diagnostic clears once fixed', errors(staybuf))

  -- 3. Hover on the call: the doc and what it expands to.
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(staybuf) },
    position = { line = sl, character = sc + #'@hours_be' },
  }
  local hover = ''
  for _, r in pairs(vim.lsp.buf_request_sync(staybuf, 'textDocument/hover', params, TIMEOUT) or {}) do
    if r.result and r.result.contents then
      local c = r.result.contents
      hover = type(c) == 'string' and c or (c.value or vim.inspect(c))
    end
  end
  check(hover:find('expands to', 1, true) ~= nil, 'macros: hover on the call says what it expands to', hover)
  check(hover:find("date_diff('hour', started_at, ended_at)", 1, true) ~= nil, "macros: hover shows date_diff('hour', started_at, ended_at)", hover)
  check(hover:find(MACRO_LINES[1]:sub(4), 1, true) ~= nil, "macros: hover shows the macro's doc comment", hover)
  for _, l in ipairs(vim.split(hover, '\n', { plain = true })) do
    out('     ' .. l)
  end

  -- 4. vim.lsp.buf.definition jumps to the macro's name in its file.
  vim.api.nvim_win_set_cursor(0, { sl + 1, sc + #'@hours_be' })
  vim.lsp.buf.definition()
  local jumped = vim.wait(TIMEOUT, function()
    return vim.api.nvim_get_current_buf() == macrobuf
  end, 50)
  local cur = vim.api.nvim_win_get_cursor(0)
  check(jumped and cur[1] == def_l + 1 and cur[2] == def_c,
    string.format('macros: definition jumps to macros/time.sql line %d, column %d', def_l + 1, def_c + 1),
    { buffer = vim.api.nvim_buf_get_name(0), cursor = cur })
  vim.cmd('buffer ' .. staybuf)

  -- 5. Completion after typing @hou.
  vim.api.nvim_buf_set_text(staybuf, sl, sc + #'@hou', sl, sc + #'@hours_between', { '' })
  local cparams = {
    textDocument = { uri = vim.uri_from_bufnr(staybuf) },
    position = { line = sl, character = sc + #'@hou' },
  }
  local labels = {}
  for _, r in pairs(vim.lsp.buf_request_sync(staybuf, 'textDocument/completion', cparams, TIMEOUT) or {}) do
    for _, it in ipairs(r.result and (r.result.items or r.result) or {}) do
      table.insert(labels, it.label)
    end
  end
  check(vim.tbl_contains(labels, 'hours_between'), 'macros: completion after @hou offers hours_between', labels)
  vim.api.nvim_buf_set_text(staybuf, sl, sc + #'@hou', sl, sc + #'@hou', { 'rs_between' })
  check(find(staybuf, '@hours_between(started_at, ended_at)') ~= nil, 'macros: the call is whole again', text_of(staybuf))

  -- 6. vim.lsp.buf.references lists the definition and both calls in the
  -- quickfix list; vim.lsp.buf.rename renames them all.
  vim.fn.setqflist({}, 'r')
  vim.api.nvim_win_set_cursor(0, { sl + 1, sc + #'@hours_be' })
  vim.lsp.buf.references()
  local refs = {}
  vim.wait(TIMEOUT, function()
    refs = vim.fn.getqflist()
    return #refs > 0
  end, 50)
  local got = {}
  for _, it in ipairs(refs) do
    table.insert(got, string.format('%s:%d:%d', vim.fn.fnamemodify(vim.fn.bufname(it.bufnr), ':t'), it.lnum, it.col))
  end
  table.sort(got)
  local want = {
    string.format('case_hours.sql:%d:%d', call_l + 1, call_c + 2),
    string.format('stay_hours.sql:%d:%d', sl + 1, sc + 2),
    string.format('time.sql:%d:%d', def_l + 1, def_c + 1),
  }
  check(table.concat(got, ', ') == table.concat(want, ', '), 'macros: references are the definition and both calls (' .. table.concat(want, ', ') .. ')', got)
  vim.cmd('cclose')
  vim.cmd('buffer ' .. staybuf)
  vim.api.nvim_win_set_cursor(0, { sl + 1, sc + #'@hours_be' })
  vim.lsp.buf.rename('hours_from')
  -- One workspace edit, applied at once: wait for its last file.
  vim.wait(TIMEOUT, function()
    return find(staybuf, '@hours_from(') ~= nil and find(casebuf, '@hours_from(') ~= nil and find(macrobuf, 'MACRO hours_from(') ~= nil
  end, 50)
  check(find(staybuf, '@hours_from(started_at, ended_at)') ~= nil, 'macros: rename renames the call under the cursor', text_of(staybuf))
  check(find(casebuf, '@hours_from(since)') ~= nil, 'macros: rename renames the other model\'s call', text_of(casebuf))
  check(find(macrobuf, 'MACRO hours_from(a, b := ended_at)') ~= nil, 'macros: rename renames the definition', text_of(macrobuf))
  check(not text_of(staybuf):find('hours_between', 1, true) and not text_of(casebuf):find('hours_between', 1, true)
    and not text_of(macrobuf):find('hours_between', 1, true), 'macros: no hours_between is left')
end

local function run()
  check(project ~= nil and (vim.uv or vim.loop).fs_stat(project .. '/efmesh.yaml') ~= nil, 'EFMESH_PROJECT is an efmesh project', project)
  out('# Neovim ' .. tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch
    .. ', efmesh lsp (' .. bin .. ') on ' .. tostring(project))
  -- Neovim 0.8 and later attach with vim.lsp.start, 0.7 with
  -- vim.lsp.start_client and vim.lsp.buf_attach_client.
  out('# attach path: ' .. (vim.lsp.start and 'vim.lsp.start (0.8+)' or 'vim.lsp.start_client + vim.lsp.buf_attach_client (0.7)'))

  local efmesh = require('efmesh')

  -- A missing binary: one message that says how to fix it, no client.
  efmesh.setup({ cmd = { '/nonexistent/efmesh', 'lsp' } })
  vim.cmd('edit ' .. vim.fn.fnameescape(project .. '/models/med/stays.sql'))
  local msg = noted('cannot run')
  check(msg ~= nil and msg:find('go install', 1, true) ~= nil and msg:find("setup { cmd", 1, true) ~= nil,
    'a missing binary gets a message with the fix', notes)
  check(efmesh.client(0) == nil, 'a missing binary starts no client')
  vim.cmd('bwipeout!')

  efmesh.setup({ cmd = { bin, 'lsp' }, environment = 'dev' })
  check(vim.fn.exists(':EfmeshRender') == 2 and vim.fn.exists(':EfmeshPlan') == 2 and vim.fn.exists(':EfmeshApply') == 2
    and vim.fn.exists(':EfmeshLineage') == 2 and vim.fn.exists(':EfmeshPreview') == 2, 'setup defines :EfmeshRender, :EfmeshPlan, :EfmeshApply, :EfmeshLineage, :EfmeshPreview')

  -- A file outside any project gets no client.
  local outside = vim.fn.tempname() .. '.sql'
  vim.fn.writefile({ 'SELECT 1' }, outside)
  vim.cmd('edit ' .. vim.fn.fnameescape(outside))
  local function clients_of(b)
    if vim.lsp.get_clients then
      return vim.lsp.get_clients({ bufnr = b })
    end
    return vim.tbl_values(vim.lsp.buf_get_clients(b))
  end
  check(#clients_of(0) == 0, 'a .sql file outside a project gets no client')

  -- Open a model: the plugin starts the server and attaches.
  local rel = 'models/med/stays_by_dept.sql'
  vim.cmd('edit ' .. vim.fn.fnameescape(project .. '/' .. rel))
  local buf = vim.api.nvim_get_current_buf()
  local client
  local attached = vim.wait(TIMEOUT, function()
    client = efmesh.client(buf)
    return client ~= nil and client.initialized and vim.lsp.buf_is_attached(buf, client.id)
  end, 50)
  check(attached, 'opening ' .. rel .. ' starts efmesh lsp and attaches the buffer')
  if not attached then
    return
  end
  check(client.config.root_dir == vim.fn.resolve(project) or client.config.root_dir == project, 'the client runs at the project root', client.config.root_dir)

  -- Inject an unknown column; wait for its diagnostic at the right place.
  local lnum, col = find(buf, 'avg(s.hours)')
  col = col + #'avg('
  local typo = 'hourz'
  vim.api.nvim_buf_set_text(buf, lnum, col, lnum, col + #'s.hours', { typo })
  local diag
  local got = vim.wait(TIMEOUT, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find(typo, 1, true) then
        diag = d
        return true
      end
    end
    return false
  end, 50)
  check(got, 'a diagnostic names the injected unknown column ' .. typo, vim.diagnostic.get(buf))
  if diag then
    out(string.format('     %s:%d:%d: %s: %s', rel, diag.lnum + 1, diag.col + 1, diag.code or '', diag.message))
    check(diag.lnum == lnum and diag.col == col, string.format('the diagnostic is at line %d, column %d', lnum + 1, col + 1),
      string.format('got line %d, column %d', diag.lnum + 1, diag.col + 1))
    check(diag.end_lnum == lnum and diag.end_col == col + #typo, 'the diagnostic spans ' .. typo,
      string.format('ends at line %s, column %s', tostring((diag.end_lnum or -1) + 1), tostring((diag.end_col or -1) + 1)))
    check(diag.severity == vim.diagnostic.severity.ERROR, 'the diagnostic is an error')
    check(diag.message:find('did you mean "hours"', 1, true) ~= nil, 'the diagnostic suggests hours', diag.message)
  end

  -- Hover on @ref(med.stays) names the referenced model's columns.
  local rl, rc = find(buf, '@ref(med.stays)')
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = rl, character = rc + #'@ref(med.' + 1 },
  }
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, TIMEOUT) or {}
  local hover = ''
  for _, r in pairs(responses) do
    if r.result and r.result.contents then
      local c = r.result.contents
      hover = type(c) == 'string' and c or (c.value or vim.inspect(c))
    end
  end
  check(hover:find('med.stays', 1, true) ~= nil, 'hover on @ref(med.stays) names the model', hover)
  local missing = {}
  for _, column in ipairs({ 'stay_id', 'case_id', 'dept', 'started_at', 'ended_at', 'hours' }) do
    if not hover:find(column, 1, true) then
      table.insert(missing, column)
    end
  end
  check(#missing == 0, 'hover lists the columns of med.stays', 'missing: ' .. table.concat(missing, ', '))
  for _, l in ipairs(vim.split(hover, '\n', { plain = true })) do
    out('     ' .. l)
  end

  -- Fix the typo again (the buffer stays modified).
  vim.api.nvim_buf_set_text(buf, lnum, col, lnum, col + #typo, { 's.hours' })
  check(vim.wait(TIMEOUT, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find(typo, 1, true) then
        return false
      end
    end
    return true
  end, 50), 'the diagnostic clears when the column is fixed')

  -- :EfmeshRender shows the rendered SQL (of the buffer, unsaved edits included).
  vim.cmd('EfmeshRender')
  local rendered
  check(vim.wait(TIMEOUT, function()
    rendered = buffer_named('^efmesh://render/stays_by_dept %(dev%)%.sql$')
    return rendered ~= nil and text_of(rendered):find('SELECT', 1, true) ~= nil
  end, 50), ':EfmeshRender opens a scratch buffer with the rendered SQL', notes)
  if rendered then
    local sql = text_of(rendered)
    check(sql:find('"dev__med"."stays"', 1, true) ~= nil and sql:find('@ref', 1, true) == nil,
      'the rendered SQL reads the dev views instead of @ref', sql)
    check(vim.bo[rendered].buftype == 'nofile' and not vim.bo[rendered].modifiable and vim.bo[rendered].filetype == 'sql',
      'the render buffer is a read-only SQL scratch buffer')
    check(vim.fn.bufwinid(rendered) ~= -1, 'the render buffer is shown in a window')
    check(vim.api.nvim_get_current_buf() == buf, 'the model keeps the cursor')
    for _, l in ipairs(vim.split(sql, '\n', { plain = true })) do
      out('     | ' .. l)
    end
  end

  -- :EfmeshLineage draws the model's sources and consumers.
  vim.cmd('EfmeshLineage')
  local lineage
  check(vim.wait(TIMEOUT, function()
    lineage = buffer_named('^efmesh://lineage/med%.stays_by_dept$')
    return lineage ~= nil
  end, 50), ':EfmeshLineage opens the lineage of the model', notes)
  if lineage then
    local t = text_of(lineage)
    check(t:find('<- med.stays', 1, true) ~= nil and t:find('<- ref.departments', 1, true) ~= nil,
      'the lineage lists the sources of the model', t)
  end

  -- :EfmeshPlan dev.
  vim.cmd('EfmeshPlan dev')
  local planbuf
  check(vim.wait(TIMEOUT, function()
    planbuf = buffer_named('^efmesh://plan/dev$')
    return planbuf ~= nil
  end, 50), ':EfmeshPlan dev shows the plan', notes)
  if planbuf then
    check(text_of(planbuf):find('Plan for environment dev', 1, true) ~= nil, 'the plan names its environment', text_of(planbuf))
  end

  -- :EfmeshEnv changes the environment of commands and the statusline.
  vim.cmd('EfmeshEnv staging')
  check(efmesh.config.environment == 'staging' and efmesh.statusline() == 'efmesh: staging', ':EfmeshEnv staging switches the environment', efmesh.statusline())
  vim.cmd('EfmeshEnv dev')

  -- :EfmeshApply dev: asks to save the modified model, saves, applies.
  answers = { 1 }
  vim.cmd('EfmeshApply dev')
  check(#asked == 1 and asked[1]:find('stays_by_dept.sql', 1, true) ~= nil, ':EfmeshApply asks to save the modified model', asked)
  check(not vim.bo[buf].modified, 'the model was saved')
  check(vim.wait(60000, function()
    return noted('applied to dev') ~= nil
  end, 100), ':EfmeshApply dev applies', notes)

  -- Render, plan and apply are code actions too (Neovim shows no lenses
  -- by default): vim.lsp.buf.code_action's request, kinds source.efmesh.*.
  local aparams = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
    context = { diagnostics = {}, only = { 'source' } },
  }
  local kinds = {}
  for _, r in pairs(vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', aparams, TIMEOUT) or {}) do
    for _, a in ipairs(r.result or {}) do
      table.insert(kinds, a.kind .. ' -> ' .. (a.command and a.command.command or '?'))
    end
  end
  check(table.concat(kinds, ', ') == 'source.efmesh.render -> efmesh.render, source.efmesh.plan -> efmesh.plan, source.efmesh.apply -> efmesh.apply',
    'render, plan and apply are offered as source code actions', kinds)

  -- :EfmeshPreview: the first rows of the model as dev serves it, in a
  -- scratch buffer laid out as a table.
  vim.cmd('EfmeshPreview')
  local preview
  check(vim.wait(TIMEOUT, function()
    preview = buffer_named('^efmesh://preview/med%.stays_by_dept %(dev%)$')
    return preview ~= nil
  end, 50), ':EfmeshPreview opens the rows of the model in a scratch buffer', notes)
  if preview then
    local lines = vim.api.nvim_buf_get_lines(preview, 0, -1, false)
    check(lines[1] ~= nil and lines[1]:find('^%-%- med%.stays_by_dept in dev: %d+ rows?') ~= nil, 'the preview names the model, the environment and the row count', lines[1])
    check(lines[2] ~= nil and lines[2]:find('dept', 1, true) ~= nil and lines[4] ~= nil and lines[4]:find('^%-+%-%+%-') ~= nil,
      'the preview has a header of column names and a rule', lines)
    check(#lines > 4, 'the preview shows rows', lines)
    check(vim.bo[preview].buftype == 'nofile' and not vim.bo[preview].modifiable, 'the preview buffer is a read-only scratch buffer')
    for _, l in ipairs(lines) do
      out('     | ' .. l)
    end
  end

  -- :'<,'>EfmeshPreview on a linewise visual selection: the rows of the
  -- selected query (here the model's whole SELECT), refs through dev's views.
  vim.fn.win_gotoid(vim.fn.bufwinid(buf))
  check(vim.api.nvim_get_current_buf() == buf, 'back in the model')
  local sel = find(buf, 'SELECT s.dept') + 1
  local group = find(buf, 'GROUP BY ALL') + 1
  vim.cmd('normal! ' .. sel .. 'GV' .. group .. 'G\27')
  vim.cmd("'<,'>EfmeshPreview")
  local selbuf
  check(vim.wait(TIMEOUT, function()
    selbuf = buffer_named('^efmesh://preview/selection %(dev%)$')
    return selbuf ~= nil
  end, 50), ":'<,'>EfmeshPreview opens the rows of the selected query in a scratch buffer", notes)
  if selbuf then
    local lines = vim.api.nvim_buf_get_lines(selbuf, 0, -1, false)
    check(lines[1] ~= nil and lines[1]:find('^%-%- selection of med%.stays_by_dept in dev: %d+ rows?') ~= nil, 'the selection preview says what it shows', lines[1])
    check(lines[2] ~= nil and lines[2]:find('department', 1, true) ~= nil and #lines > 4, 'the selection preview has the columns and rows', lines)
    for _, l in ipairs(lines) do
      out('     | ' .. l)
    end
  end
  -- A characterwise selection that leaves the join out: the engine's
  -- error comes back at d.name's place in the file, not in the selection.
  vim.fn.win_gotoid(vim.fn.bufwinid(buf))
  local from = find(buf, 'FROM @ref(med.stays) AS s') + 1
  vim.cmd('normal! ' .. sel .. 'G0v' .. from .. 'G$\27')
  vim.cmd("'<,'>EfmeshPreview")
  local _, dcol = find(buf, 'd.name')
  local want = 'stays_by_dept%.sql:' .. sel .. ':' .. (dcol + 1) .. ': error: Binder Error'
  check(vim.wait(TIMEOUT, function()
    return noted(want) ~= nil
  end, 50), "a bad selection's error is positioned in the file (" .. want .. ')', notes)

  vim.cmd('EfmeshPreview med.nope')
  check(vim.wait(TIMEOUT, function()
    return noted('efmesh.preview: .*med%.nope') ~= nil
  end, 50), ':EfmeshPreview of an unknown model says so', notes)

  -- :EfmeshApply prod: shows the plan and asks; "Cancel" applies nothing.
  asked, answers = {}, { 2 }
  vim.cmd('EfmeshApply prod')
  check(vim.wait(TIMEOUT, function()
    return #asked > 0
  end, 50), ':EfmeshApply prod asks for confirmation', notes)
  check(asked[1] ~= nil and asked[1]:find('Plan for environment prod', 1, true) ~= nil and asked[1]:find('Apply this plan to prod?', 1, true) ~= nil,
    'the prod confirmation shows the plan', asked)
  check(vim.wait(TIMEOUT, function()
    return noted('apply prod cancelled') ~= nil
  end, 50) and noted('applied to prod') == nil, 'declining applies nothing to prod', notes)

  macros(efmesh)
end

local ok, err = pcall(run)
if not ok then
  check(false, 'the test ran to its end', err)
end
out(string.format('\nneovim e2e: %d passed, %d failed', passed, failed))
local function all_clients()
  return vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
end
for _, c in ipairs(all_clients()) do
  vim.lsp.stop_client(c.id)
end
vim.wait(2000, function()
  return #all_clients() == 0
end, 50)
if failed > 0 then
  vim.cmd('cquit')
else
  vim.cmd('qa!')
end
