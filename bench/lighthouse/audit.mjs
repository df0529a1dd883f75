// Runs Lighthouse's Agentic Browsing category (lighthouse@13.5.0, its
// agentic-browsing-config.js) on pages of a running site with Debian's
// Chromium, WebMCP turned on, and prints each page's audits. It exits 1
// when an audit that applies does not score 1, or a form lacks its
// WebMCP annotations.
//
//   node audit.mjs http://127.0.0.1:8080 / /products/heavyweight-tee /cart /checkout
//
// With LIGHTHOUSE_COOKIE (a Cookie header, as signin.mjs prints it), the
// pages are audited as that session sees them.
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [base, ...pages] = process.argv.slice(2);
const cli = join(here, 'node_modules', 'lighthouse', 'cli', 'index.js');
const config = join(here, 'node_modules', 'lighthouse', 'core', 'config', 'agentic-browsing-config.js');
const out = mkdtempSync(join(tmpdir(), 'lighthouse-'));
let failed = false;
for (const page of pages) {
  const file = join(out, encodeURIComponent(page) + '.json');
  execFileSync(process.execPath, [cli, base + page, '--config-path=' + config, '--only-categories=agentic-browsing',
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-background-networking --enable-features=WebMCP',
    '--output=json', '--output-path=' + file, '--quiet',
    ...(process.env.LIGHTHOUSE_COOKIE ? ['--extra-headers=' + JSON.stringify({ Cookie: process.env.LIGHTHOUSE_COOKIE })] : [])],
  { env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH || '/usr/bin/chromium' }, stdio: ['ignore', 'ignore', 'inherit'], timeout: 180000 });
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const cat = r.categories['agentic-browsing'];
  const parts = [];
  for (const ref of cat.auditRefs) {
    const a = r.audits[ref.id];
    const na = a.scoreDisplayMode === 'notApplicable';
    parts.push(`${ref.id} ${na ? 'n/a' : a.score}${a.displayValue ? ' (' + a.displayValue + ')' : ''}`);
    if (!na && a.score !== 1) failed = true;
    // "N forms missing annotations": a failure, but on the pages listed in
    // LIGHTHOUSE_FORMS_WITHOUT_TOOL, whose forms are deliberately no tools
    // (the sign-in with a passkey, which only the person's finger can
    // answer; the cart's per-line forms beside its one tool per action).
    const allowed = (process.env.LIGHTHOUSE_FORMS_WITHOUT_TOOL || '').split(' ').includes(page);
    if (ref.id === 'webmcp-form-coverage' && a.displayValue && !allowed) failed = true;
    if ((ref.id === 'llms-txt' || ref.id === 'ard-schema') && na) failed = true; // must apply, not be skipped
  }
  // The tools the page registered, declared by forms or by script.
  const tools = [];
  for (const section of r.audits['webmcp-registered-tools'].details?.items || []) {
    for (const item of section.value?.items || []) tools.push(item.tool);
  }
  parts.push('tools: ' + (tools.sort().join(' ') || 'none'));
  const who = process.env.LIGHTHOUSE_COOKIE ? ' (signed in)' : '';
  console.log(`lighthouse ${page}${who}: score ${cat.score}; ${parts.join(', ')}`);
}
process.exit(failed ? 1 : 0);
