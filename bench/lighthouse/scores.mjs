// Runs Lighthouse's accessibility, best-practices and SEO categories
// (lighthouse@13.5.0, its default config) on pages of a running site with
// Debian's Chromium, prints each page's scores and the audits that failed,
// and exits 1 when accessibility or best practices score below 1 or SEO
// below 0.9.
//
//   node scores.mjs http://localhost:8080 / /products/heavyweight-tee /login
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [base, ...pages] = process.argv.slice(2);
const cli = join(here, 'node_modules', 'lighthouse', 'cli', 'index.js');
const out = mkdtempSync(join(tmpdir(), 'lighthouse-scores-'));
const least = { accessibility: 1, 'best-practices': 1, seo: 0.9 };
let failed = false;
for (const page of pages) {
  const file = join(out, encodeURIComponent(page) + '.json');
  execFileSync(process.execPath, [cli, base + page, '--only-categories=' + Object.keys(least).join(','),
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-background-networking',
    '--output=json', '--output-path=' + file, '--quiet'],
  { env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH || '/usr/bin/chromium' }, stdio: ['ignore', 'ignore', 'inherit'], timeout: 180000 });
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const parts = [];
  for (const [id, min] of Object.entries(least)) {
    const cat = r.categories[id];
    parts.push(`${id} ${cat.score}`);
    if (cat.score < min) failed = true;
    for (const ref of cat.auditRefs) {
      const a = r.audits[ref.id];
      if (ref.weight > 0 && a.score !== null && a.score < 1) parts.push(`  ${id}: ${ref.id} ${a.score}${a.displayValue ? ' (' + a.displayValue + ')' : ''}`);
    }
  }
  console.log(`lighthouse ${page}: ${parts.join('; ')}`);
}
process.exit(failed ? 1 : 0);
