// Runs the client snippets of docs/clients.md against a live endpoint, exactly as the doc shows
// them, so a snippet that breaks (an API renamed in a pinned SDK, an option misspelt, a flag the
// Inspector dropped) fails the build instead of a reader.
//
//   node snippets.mjs http://127.0.0.1:PORT/mcp TOKEN
//
// The endpoint must be a fresh sandbox instance with inbound auth on (tokens mode) and TOKEN one
// of its tokens, so the Authorization header each snippet sends is part of what is tested; the
// purchase snippet spends the demo wallet's USDC, so no other script may share the instance.
//
// A snippet is the fenced block that follows a `<!-- snippet: NAME -->` line. Every snippet the
// doc marks must be one this file knows (SNIPPETS below, with what its output must contain), and
// every one it knows must be in the doc: a renamed or dropped marker fails too. The go-sdk snippet
// is checked by the Go test in test/clients, which compiles and runs it.
//
// Prints "PASS NAME" or "FAIL NAME: why" per snippet; exits 1 if any failed.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const DOC = resolve(HERE, '../../docs/clients.md');
const WORK = join(HERE, 'results', 'snippets');
const WALL_MS = 60_000;

// The snippets in the order they run: the dry runs before the purchase, which would otherwise
// turn them into ALREADY_PURCHASED refusals.
const SNIPPETS = [
  { name: 'ts-v1', kind: 'node', want: [/\d+ tools/, 'Rust Ownership Field Guide 1.5000000 USDC', 'Dry run: would pay 1.5000000 USDC'] },
  { name: 'inspector-cli', kind: 'sh', want: ['"title": "Rust Ownership Field Guide"', 'Dry run: would pay 1.5000000 USDC'] },
  // Declined first (nothing paid), then accepted: the question reaches the terminal both times.
  { name: 'ts-v2', kind: 'node', stdin: 'n\n', want: ['protocol 2026-07-28', 'Pay 1.5 USDC to', 'Code: CONFIRMATION_DECLINED'] },
  { name: 'ts-v2', kind: 'node', stdin: 'y\n', want: ['protocol 2026-07-28', 'Pay 1.5 USDC to', 'paid 1.5000000 USDC, settlement confirmed'] },
  { name: 'go-sdk', kind: 'go' },
];

// snippets returns the doc's marked blocks by name.
function snippets(text) {
  const found = new Map();
  const marker = /^<!-- snippet: ([a-z0-9-]+) -->\n```[a-z]*\n([\s\S]*?)^```$/gm;
  for (const m of text.matchAll(marker)) {
    if (found.has(m[1])) throw new Error(`docs/clients.md marks two snippets ${m[1]}`);
    found.set(m[1], m[2]);
  }
  return found;
}

// npxShim makes `npx -y @modelcontextprotocol/inspector@V` run the Inspector that package.json
// pins, on this Node, without the registry; any other package, or another version, is refused.
function npxShim(bin) {
  const pkg = JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8'));
  const version = pkg.dependencies['@modelcontextprotocol/inspector'];
  const inspector = join(HERE, 'node_modules', '@modelcontextprotocol', 'inspector');
  const launcher = join(inspector, JSON.parse(readFileSync(join(inspector, 'package.json'), 'utf8')).bin.inspector);
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'npx'),
    `#!/usr/bin/env bash
if [[ "$1" != -y || "$2" != "@modelcontextprotocol/inspector@${version}" ]]; then
  echo "npx stand-in: the doc runs npx $1 $2; the tests pin @modelcontextprotocol/inspector@${version} (test/conformance/package.json)" >&2
  exit 2
fi
shift 2
exec ${JSON.stringify(process.execPath)} ${JSON.stringify(launcher)} "$@"
`,
  );
  chmodSync(join(bin, 'npx'), 0o755);
}

function main() {
  const [url, token] = process.argv.slice(2);
  if (!url || !token) {
    console.error('usage: node snippets.mjs http://127.0.0.1:PORT/mcp TOKEN');
    process.exit(2);
  }
  const doc = snippets(readFileSync(DOC, 'utf8'));
  const known = new Set(SNIPPETS.map((s) => s.name));
  let failed = 0;
  const fail = (name, why) => {
    failed++;
    console.log(`FAIL ${name}: ${why}`);
  };
  for (const name of doc.keys()) if (!known.has(name)) fail(name, 'marked in docs/clients.md but unknown to snippets.mjs');

  rmSync(WORK, { recursive: true, force: true });
  const bin = join(WORK, 'bin');
  const home = join(WORK, 'home'); // the Inspector writes its state under $HOME
  mkdirSync(home, { recursive: true });
  npxShim(bin);
  const env = { ...process.env, MINDVAULT_URL: url, MINDVAULT_TOKEN: token, HOME: home, PATH: `${bin}:${process.env.PATH}` };

  for (const [i, s] of SNIPPETS.entries()) {
    const body = doc.get(s.name);
    if (body === undefined) {
      fail(s.name, 'missing from docs/clients.md (no <!-- snippet: NAME --> block)');
      continue;
    }
    if (s.kind === 'go') continue; // test/clients compiles and runs it
    const file = join(WORK, `${i}-${s.name}.${s.kind === 'node' ? 'mjs' : 'sh'}`);
    writeFileSync(file, body);
    const cmd = s.kind === 'node' ? [process.execPath, [file]] : ['bash', ['-euo', 'pipefail', file]];
    const r = spawnSync(cmd[0], cmd[1], { env, input: s.stdin ?? '', encoding: 'utf8', timeout: WALL_MS });
    const out = `${r.stdout}${r.stderr}`;
    writeFileSync(`${file}.log`, out);
    const label = s.stdin ? `${s.name} (answering ${JSON.stringify(s.stdin.trim())})` : s.name;
    if (r.status !== 0) {
      fail(label, `exit ${r.status ?? r.signal}: ${out.slice(-1500)}`);
      continue;
    }
    const missing = s.want.filter((w) => !(w instanceof RegExp ? w.test(out) : out.includes(w)));
    if (missing.length > 0) {
      fail(label, `output lacks ${missing.map(String).join(', ')}: ${out.slice(-1500)}`);
      continue;
    }
    console.log(`PASS ${label}`);
  }
  process.exit(failed > 0 ? 1 : 0);
}

main();
