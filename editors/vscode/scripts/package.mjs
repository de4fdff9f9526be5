// npm run package [-- --target linux-x64]: the .vsix, compiled, bundled into
// one file (dist/extension.js) and without node_modules. With a target, a
// platform package that ships the efmesh binary in bin/: bin/efmesh when it
// is there (scripts/test-editors puts the binary it built), else built from
// this clone with `go build` for that target.
//
// Writes efmesh.vsix (no target) or efmesh-<target>.vsix.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const at = args.indexOf('--target');
const target = at >= 0 ? args[at + 1] : process.env.EFMESH_VSCODE_TARGET;
const run = (cmd, argv, opts = {}) => execFileSync(cmd, argv, { cwd: dir, stdio: 'inherit', ...opts });

fs.copyFileSync(path.join(dir, '../../LICENSE'), path.join(dir, 'LICENSE'));
const bin = path.join(dir, 'bin');
let out = 'efmesh.vsix';
const vsce = ['package', '--no-dependencies', '--baseContentUrl', 'https://github.com/efmesh/efmesh/blob/HEAD/editors/vscode',
  '--baseImagesUrl', 'https://github.com/efmesh/efmesh/raw/HEAD/editors/vscode'];
if (target) {
  const m = /^(linux|darwin|win32|alpine)-(x64|arm64|armhf)$/.exec(target);
  if (!m) throw new Error(`package: unknown target ${target} (linux-x64, linux-arm64, darwin-arm64, win32-x64, …)`);
  const exe = path.join(bin, m[1] === 'win32' ? 'efmesh.exe' : 'efmesh');
  if (!fs.existsSync(exe)) {
    const goos = { linux: 'linux', alpine: 'linux', darwin: 'darwin', win32: 'windows' }[m[1]];
    const goarch = { x64: 'amd64', arm64: 'arm64', armhf: 'arm' }[m[2]];
    console.log(`package: building ${path.relative(dir, exe)} (GOOS=${goos} GOARCH=${goarch})`);
    run('go', ['build', '-o', exe, './cmd/efmesh'], { cwd: path.join(dir, '../..'), env: { ...process.env, GOOS: goos, GOARCH: goarch } });
  }
  fs.chmodSync(exe, 0o755);
  out = `efmesh-${target}.vsix`;
  vsce.push('--target', target);
} else if (fs.existsSync(bin)) {
  // The universal package ships no binary: it runs efmesh.path or PATH's.
  fs.rmSync(bin, { recursive: true, force: true });
}
vsce.push('--out', out);
run(path.join(dir, 'node_modules/.bin/vsce'), vsce);
console.log(`package: wrote ${out}`);
