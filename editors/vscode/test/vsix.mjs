// Checks the packaged .vsix: the extension bundled into one file
// (dist/extension.js, vscode-languageclient inside), its media, grammars
// and snippets, no node_modules, sources, tests or compiled out/ files; a
// platform package (efmesh-<target>.vsix) also ships an executable
// bin/efmesh and names its target in the manifest.
//
//   node test/vsix.mjs [efmesh-linux-x64.vsix]
import zlib from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.resolve(dir, process.argv[2] ?? 'efmesh-linux-x64.vsix');
const target = /efmesh-([a-z0-9]+-[a-z0-9]+)\.vsix$/.exec(file)?.[1];

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? `\n     ${detail}` : ''}`);
}

// zipEntries reads the central directory of a zip: each entry's name, its
// Unix mode and where its local header is.
function zipEntries(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory');
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const n = buf.readUInt16LE(p + 28);
    const m = buf.readUInt16LE(p + 30);
    const k = buf.readUInt16LE(p + 32);
    const mode = buf.readUInt32LE(p + 38) >>> 16;
    const local = buf.readUInt32LE(p + 42);
    entries.push({ name: buf.toString('utf8', p + 46, p + 46 + n), mode, method, size, local });
    p += 46 + n + m + k;
  }
  return entries;
}

// entryText reads one entry's contents (stored or deflated).
function entryText(buf, e) {
  const start = e.local + 30 + buf.readUInt16LE(e.local + 26) + buf.readUInt16LE(e.local + 28);
  const data = buf.subarray(start, start + e.size);
  return (e.method === 8 ? zlib.inflateRawSync(data) : data).toString('utf8');
}

check(fs.existsSync(file), `${path.basename(file)} exists`);
if (fs.existsSync(file)) {
  const buf = fs.readFileSync(file);
  const entries = zipEntries(buf);
  const ext = entries.filter((e) => e.name.startsWith('extension/')).map((e) => ({ ...e, name: e.name.slice('extension/'.length) }));
  const names = ext.map((e) => e.name);
  const has = (f) => names.some((n) => n.toLowerCase() === f.toLowerCase());
  for (const f of ['package.json', 'dist/extension.js', 'media/lineage.js', 'media/lineage.css', 'readme.md', 'license.txt',
    'media/plan.js', 'media/plan.css', 'media/icon.png', 'media/efmesh.svg',
    'syntaxes/efmesh.tmLanguage.json', 'syntaxes/efmesh-injection.tmLanguage.json', 'snippets/efmesh.code-snippets', 'language-configuration.json']) {
    check(has(f), `the .vsix holds ${f}`);
  }
  const js = names.filter((n) => n.endsWith('.js') && !n.startsWith('media/'));
  check(js.length === 1 && js[0] === 'dist/extension.js', 'the extension is one bundled file, dist/extension.js', js.join(', '));
  const bundle = ext.find((e) => e.name === 'dist/extension.js');
  const code = bundle ? entryText(buf, bundle) : '';
  check(/\bLanguageClient\b/.test(code) && /require\("vscode"\)/.test(code) && !/require\("vscode-languageclient/.test(code),
    'the bundle holds vscode-languageclient and requires only vscode from outside');
  check(!names.some((n) => n.startsWith('node_modules/')), 'no node_modules', names.filter((n) => n.startsWith('node_modules/')).slice(0, 5).join(', '));
  check(!names.some((n) => /^(src|test|out|scripts)\//.test(n) || n.endsWith('.ts') || n.endsWith('.map') || n === 'tsconfig.json'),
    'no sources, tests, compiled out/, scripts, source maps or tsconfig');
  check(!names.some((n) => n.endsWith('.vsix')), 'no .vsix inside the .vsix');
  const manifest = entries.find((e) => e.name === 'extension.vsixmanifest');
  const xml = manifest ? entryText(buf, manifest) : '';
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  check(Object.keys(pkg.dependencies ?? {}).length === 0, 'package.json has no runtime dependency to ship');
  if (target) {
    check(new RegExp(`TargetPlatform="${target}"`).test(xml), `the manifest names the target ${target}`, xml.slice(0, 400));
    const bin = ext.find((e) => e.name === (target.startsWith('win32') ? 'bin/efmesh.exe' : 'bin/efmesh'));
    check(bin !== undefined, `the ${target} package ships bin/efmesh`);
    if (bin && !target.startsWith('win32')) check((bin.mode & 0o111) !== 0, `bin/efmesh is executable in the package (mode ${bin.mode.toString(8)})`);
  } else {
    check(!/TargetPlatform=/.test(xml), 'the universal package names no target');
    check(!names.some((n) => n.startsWith('bin/')), 'the universal package ships no binary');
  }
  console.log(`     ${entries.length} files, ${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MiB`);
}
console.log(`\nvsix: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
