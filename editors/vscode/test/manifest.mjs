// Consistency of the extension's manifest with its code, without VS Code:
// every contributed command is registered in extension.ts (and compiled),
// every registered command is contributed, menus name real commands, the
// settings the code reads are contributed, activation is on the project
// only, and the packaging metadata holds together.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const read = (p) => (fs.existsSync(path.join(dir, p)) ? fs.readFileSync(path.join(dir, p), 'utf8') : '');

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? `\n     ${detail}` : ''}`);
}

// The commands the server executes: vscode-languageclient registers them
// under their own ids, so ours must differ, and the extension intercepts
// them (the server's code lenses run them) in its middleware.
const SERVER_COMMANDS = ['efmesh.render', 'efmesh.plan', 'efmesh.apply', 'efmesh.lineage', 'efmesh.preview'];

const src = read('src/extension.ts');
const out = read('out/extension.js');
const allSrc = fs.readdirSync(path.join(dir, 'src')).map((f) => read(`src/${f}`)).join('\n');
const registered = (text) => new Set([...text.matchAll(/registerCommand\(\s*['"]([\w.]+)['"]/g)].map((m) => m[1]));
const inSrc = registered(src);
const inOut = registered(out);

const contributed = (pkg.contributes?.commands ?? []).map((c) => c.command);
check(contributed.length > 0, 'package.json contributes commands');
check(new Set(contributed).size === contributed.length, 'no command is contributed twice');
for (const c of contributed) {
  check(inSrc.has(c), `${c} is registered in src/extension.ts`);
  check(inOut.has(c), `${c} is registered in the compiled out/extension.js`, out ? '' : 'out/extension.js is missing: npm run compile');
  check(!SERVER_COMMANDS.includes(c), `${c} does not take a server command's id`);
}
for (const c of inSrc) check(contributed.includes(c), `registered ${c} is contributed in package.json`);
for (const c of SERVER_COMMANDS) {
  check(src.includes(`case '${c}':`), `the middleware routes the server's ${c} (code lenses) to the extension's UI`);
}
for (const c of ['efmesh.renderModel', 'efmesh.planEnvironment', 'efmesh.applyEnvironment', 'efmesh.showLineage', 'efmesh.runTests']) {
  check(contributed.includes(c), `the issue's command ${c} is contributed`);
}
for (const [menu, items] of Object.entries(pkg.contributes?.menus ?? {})) {
  for (const item of items) check(contributed.includes(item.command), `menu ${menu} names the contributed ${item.command}`);
}

// Settings read by the code are contributed, and the other way round.
const props = pkg.contributes?.configuration?.properties ?? {};
const read_ = new Set([
  ...[...allSrc.matchAll(/getConfiguration\('efmesh'\)\s*\.get<\w+>\('([\w.]+)'/g)].map((m) => `efmesh.${m[1]}`),
  ...[...read('src/settings.ts').matchAll(/\bc\.get<[\w<>, ]+>\('([\w.]+)'/g)].map((m) => `efmesh.${m[1]}`),
  ...[...allSrc.matchAll(/affectsConfiguration\('(efmesh\.[\w.]+)'\)/g)].map((m) => m[1]),
]);
for (const key of read_) check(key in props, `setting ${key} read by the code is contributed`);
for (const key of ['efmesh.path', 'efmesh.environment']) check(key in props, `setting ${key} is contributed`);
check(props['efmesh.path']?.default === '', 'efmesh.path defaults to "": the bundled binary, else PATH');
for (const key of ['efmesh.formatOnSave', 'efmesh.preview.limit', 'efmesh.lint.enabled', 'efmesh.lint.rules', 'efmesh.bindInServer']) {
  check(key in props && read_.has(key), `setting ${key} is contributed and read by the code`);
}
check(/sendRequest\(DocumentFormattingRequest\.type/.test(src) && /onWillSaveTextDocument/.test(src), 'format on save asks the server to format in onWillSaveTextDocument');
check(/lint: lintSettings\(\)/.test(read('src/settings.ts')) && /bindInServer: bindInServer\(\)/.test(read('src/settings.ts')),
  'the server starts with the lint and bindInServer settings (initializationOptions)');
check(!/^\s*transport:/m.test(read('src/server.ts')), 'the server is started without --stdio (TransportKind.stdio adds it; efmesh lsp does not take it)');
check(props['efmesh.environment']?.default === 'dev', 'efmesh.environment defaults to "dev"');
check(
  (pkg.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? []).includes('efmesh.path'),
  'a workspace cannot pick the binary in Restricted Mode',
);

// Activation on the project, never on every .sql file.
const events = pkg.activationEvents ?? [];
check(events.includes('workspaceContains:**/efmesh.yaml'), 'activates on workspaceContains:**/efmesh.yaml');
check(!events.some((e) => e === '*' || e.startsWith('onLanguage:')), 'does not activate on a language or on startup', events.join(', '));
check(!(pkg.contributes?.languages ?? []).some((l) => (l.extensions ?? []).includes('.sql')), 'claims no language for .sql files');
check(/RelativePattern\(root, glob\)/.test(read('src/server.ts')) && read('src/server.ts').includes("'**/*.sql'"),
  'the document selector is .sql below each project root');

// The grammar, snippets, icon and views.
const grammars = pkg.contributes?.grammars ?? [];
const main = grammars.find((g) => g.scopeName === 'source.efmesh');
const injection = grammars.find((g) => g.scopeName === 'efmesh.injection');
const json = (p) => {
  try {
    return JSON.parse(read(p));
  } catch {
    return undefined;
  }
};
check(main && json(main.path)?.scopeName === 'source.efmesh', 'the efmesh grammar is contributed with its scope name', main?.path);
check(JSON.stringify(json(main?.path ?? '')?.patterns ?? []).includes('"source.sql"'), 'the model body is embedded SQL (includes source.sql)');
check(injection && (injection.injectTo ?? []).includes('source.sql') && json(injection.path)?.injectionSelector?.includes('source.sql'),
  'the header and macros are injected into VS Code\'s SQL grammar', injection?.path);
check((pkg.contributes?.languages ?? []).some((l) => l.id === main?.language && !(l.extensions ?? []).length), 'the efmesh language claims no file extension');
const snippets = pkg.contributes?.snippets ?? [];
check(snippets.some((sn) => sn.language === 'sql'), 'snippets are offered in .sql files');
const sn = json(snippets[0]?.path ?? '') ?? {};
for (const kind of ['FULL', 'VIEW', 'INCREMENTAL_BY_TIME_RANGE', 'INCREMENTAL_BY_UNIQUE_KEY', 'SCD_TYPE_2', 'SEED', 'EXTERNAL', 'EMBEDDED']) {
  check(Object.values(sn).some((x) => x.body.join('\n').includes(`kind ${kind}`)), `a snippet makes a ${kind} model`);
}
check(Object.values(sn).every((x) => /^MODEL \(/.test(x.body[0]) && x.body.includes(');') && /name \$\{1:/.test(x.body[1])),
  'every snippet is a MODEL header whose name comes first');
const icon = fs.existsSync(path.join(dir, pkg.icon ?? '-')) ? fs.readFileSync(path.join(dir, pkg.icon)) : Buffer.alloc(0);
check(icon.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) && icon.readUInt32BE(16) >= 128,
  'the icon is a PNG of at least 128 px', pkg.icon);
const container = (pkg.contributes?.viewsContainers?.activitybar ?? []).find((c) => c.id === 'efmesh');
check(container && fs.existsSync(path.join(dir, container.icon)), 'an efmesh side bar with its own icon');
const views = (pkg.contributes?.views?.efmesh ?? []).map((v) => v.id);
for (const v of ['efmesh.models', 'efmesh.environments']) {
  check(views.includes(v), `view ${v} is contributed`);
  check(allSrc.includes(`registerTreeDataProvider('${v}'`), `view ${v} has a tree data provider`);
}
check(allSrc.includes("createTestController('efmesh'"), 'unit tests go to the Test Explorer');
check(read('src/testing.ts').includes("'efmesh.test'"), 'the Test Explorer runs the server\'s efmesh.test');
check(read('src/planview.ts').includes("'efmesh.plan'") && read('media/plan.js').includes("type: 'apply'"), 'the plan view plans and applies');

// Packaging.
check(pkg.main === './dist/extension.js', 'main is the bundle dist/extension.js', pkg.main);
check(/--bundle\b/.test(pkg.scripts?.bundle ?? '') && /--outfile=dist\/extension\.js\b/.test(pkg.scripts.bundle) && /--external:vscode\b/.test(pkg.scripts.bundle),
  'npm run bundle writes one file, dist/extension.js, with everything but vscode inside', pkg.scripts?.bundle);
check(/\bbundle\b/.test(pkg.scripts?.['vscode:prepublish'] ?? ''), 'vsce package bundles first (vscode:prepublish)');
check(/^\^?9\./.test(pkg.devDependencies?.['vscode-languageclient'] ?? ''), 'built with vscode-languageclient@9');
check(Object.keys(pkg.dependencies ?? {}).length === 0, 'no runtime dependency: the bundle holds them');
for (const d of ['typescript', '@vscode/vsce', '@types/vscode', '@types/node', 'vscode-languageserver-protocol', 'esbuild', 'playwright-core']) {
  check(d in (pkg.devDependencies ?? {}), `${d} is a devDependency`);
}
const engine = (pkg.engines?.vscode ?? '').replace(/^\^/, '');
const types = (pkg.devDependencies?.['@types/vscode'] ?? '').replace(/^[\^~]/, '');
const cmp = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};
check(engine && types && cmp(types, engine) <= 0, `@types/vscode ${types} is not newer than engines.vscode ${engine}`);
for (const f of ['media/lineage.js', 'media/lineage.css']) {
  check(fs.existsSync(path.join(dir, f)) && read('src/lineage.ts').includes(path.basename(f)), `${f} exists and the webview loads it`);
}
check(!/https?:\/\//.test((read('media/lineage.js') + read('media/lineage.css')).replaceAll('http://www.w3.org/2000/svg', '')), 'the lineage view loads nothing from the network');
const ignore = read('.vscodeignore');
for (const p of ['src/**', 'test/**', 'out/**', 'node_modules/**']) check(ignore.includes(p), `.vscodeignore leaves out ${p}`);

// The compiled modules load outside VS Code (a stand-in answers for the
// vscode module) and export what package.json and the tests expect.
{
  const require = createRequire(import.meta.url);
  const Module = require('node:module');
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (request === 'vscode') return new Proxy({}, { get: () => class {} });
    return load.call(this, request, ...rest);
  };
  try {
    const ext = require(path.join(dir, 'out/extension.js'));
    check(typeof ext.activate === 'function' && typeof ext.deactivate === 'function', 'out/extension.js exports activate and deactivate');
    const { modelName } = require(path.join(dir, 'out/deploy.js'));
    const model = (rel) => modelName(fs.readFileSync(path.join(dir, '../../examples/hospital/models', rel), 'utf8'));
    check(model('med/cases.sql') === 'med.cases' && model('mart/daily_census.sql') === 'mart.daily_census',
      'Run model tests reads the model name from the header');
    check(modelName('model(\n  kind VIEW,\n  NAME A.B\n);\nSELECT 1') === 'a.b', 'the header is read case-insensitively, name anywhere');
  } catch (err) {
    check(false, 'the compiled modules load', err.stack);
  } finally {
    Module._load = load;
  }
}

console.log(`\nextension manifest: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
