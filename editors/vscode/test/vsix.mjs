// Checks the packaged .vsix: it holds the compiled extension, its media and
// its production dependencies (vscode-languageclient and what that needs),
// and none of the tooling (typescript, vsce, type packages), sources or tests.
//
//   node test/vsix.mjs [efmesh.vsix]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.resolve(dir, process.argv[2] ?? 'efmesh.vsix');

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? `\n     ${detail}` : ''}`);
}

// zipEntries reads the names in a zip's central directory.
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
  const names = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory');
    const n = buf.readUInt16LE(p + 28);
    const m = buf.readUInt16LE(p + 30);
    const k = buf.readUInt16LE(p + 32);
    names.push(buf.toString('utf8', p + 46, p + 46 + n));
    p += 46 + n + m + k;
  }
  return names;
}

// packagesIn lists the packages below node_modules paths ("a", "@s/b", "a/node_modules/c").
function packagesIn(paths) {
  const out = new Set();
  for (const p of paths) {
    const m = /^(?:.*?\/)?node_modules\/((?:@[^/]+\/)?[^/]+)(?:\/|$)/.exec(p);
    if (!m) continue;
    // The innermost node_modules names the package.
    const parts = p.split('node_modules/').slice(1);
    const last = parts[parts.length - 1].split('/');
    out.add(last[0].startsWith('@') ? `${last[0]}/${last[1]}` : last[0]);
  }
  return out;
}

check(fs.existsSync(file), `${path.basename(file)} exists`);
if (fs.existsSync(file)) {
  const names = zipEntries(fs.readFileSync(file));
  const ext = names.filter((n) => n.startsWith('extension/')).map((n) => n.slice('extension/'.length));
  for (const f of ['package.json', 'out/extension.js', 'out/server.js', 'media/lineage.js', 'media/lineage.css', 'readme.md', 'license.txt',
    'out/planview.js', 'out/planpage.js', 'out/trees.js', 'out/testing.js', 'media/plan.js', 'media/plan.css', 'media/icon.png', 'media/efmesh.svg',
    'syntaxes/efmesh.tmlanguage.json', 'syntaxes/efmesh-injection.tmlanguage.json', 'snippets/efmesh.code-snippets', 'language-configuration.json']) {
    check(ext.some((n) => n.toLowerCase() === f), `the .vsix holds ${f}`);
  }
  check(!ext.some((n) => /^(src|test)\//.test(n) || n.endsWith('.ts') || n === 'tsconfig.json'), 'no sources, tests or tsconfig');
  check(!ext.some((n) => n.endsWith('.vsix')), 'no .vsix inside the .vsix');

  const packaged = packagesIn(ext.filter((n) => n.startsWith('node_modules/')));
  const prod = packagesIn(
    execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: dir, encoding: 'utf8' })
      .split('\n')
      .map((l) => path.relative(dir, l.trim()).split(path.sep).join('/'))
      .filter(Boolean),
  );
  check(packaged.has('vscode-languageclient'), 'vscode-languageclient is bundled');
  for (const p of prod) check(packaged.has(p), `production dependency ${p} is bundled`);
  const extra = [...packaged].filter((p) => !prod.has(p));
  check(extra.length === 0, 'nothing but production dependencies is bundled', extra.join(', '));
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  for (const d of Object.keys(pkg.devDependencies ?? {})) {
    if (!prod.has(d)) check(!packaged.has(d), `devDependency ${d} is not bundled`);
  }
  console.log(`     ${names.length} files, ${(fs.statSync(file).size / 1024).toFixed(0)} KiB, bundled: ${[...packaged].sort().join(', ')}`);
}
console.log(`\nvsix: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
