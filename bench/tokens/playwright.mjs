// Drives Playwright MCP (with Debian's Chromium) as an agent would, and
// prints what the agent reads: the tool list, the snapshot of each page,
// and every tool result along the shortest path that buys one black M
// heavyweight tee. Usage: node playwright.mjs BASE_URL
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';

const base = process.argv[2];
// With "webmcp", Chromium runs with WebMCP on and the agent uses the tools
// the store's pages register (webmcp_*) instead of typing and clicking.
const webmcp = process.argv[3] === 'webmcp';
const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'playwright-mcp-'));
const args = [path.join(here, 'node_modules/@playwright/mcp/cli.js'),
  '--headless', '--isolated', '--no-sandbox', '--executable-path', '/usr/bin/chromium', '--output-dir', outDir];
if (webmcp) {
  const config = path.join(outDir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ browser: { launchOptions: { args: ['--enable-features=WebMCP'] } } }));
  args.push('--config', config);
} else {
  args.push('--no-webmcp');
}
const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
const client = new Client({ name: 'affordances-bench', version: '0' });
await client.connect(transport);

const out = { tools: '', pages: {}, task: [] };
const tools = await client.listTools();
out.tools = JSON.stringify(tools.tools);

const text = (res) => (res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
async function tool(name, args, record) {
  const res = await client.callTool({ name, arguments: args });
  const t = text(res);
  if (res.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${t.slice(0, 500)}`);
  if (record) out.task.push({ tool: name, args, text: t });
  return t;
}
// call runs a tool and returns the page snapshot the agent then reads:
// inline when the tool gave one, else from browser_snapshot (this version
// of Playwright MCP writes the snapshot of a navigation to a file).
async function call(name, args, record) {
  let t = await tool(name, args, record);
  if (!t.includes('```yaml')) t += '\n' + await tool('browser_snapshot', {}, record);
  return t;
}
// ref finds the snapshot reference of an element by its role and name.
function ref(snapshot, role, name) {
  for (const line of snapshot.split('\n')) {
    const m = line.match(/- (\w+) "([^"]*)"[^\n]*\[ref=([^\]]+)\]/);
    if (m && m[1] === role && m[2].startsWith(name)) return m[3];
  }
  throw new Error(`no ${role} "${name}" in the snapshot:\n${snapshot.slice(0, 2000)}`);
}

if (webmcp) {
  // The new tools a page registered, as the host hands them to the model
  // after tools/list_changed: each definition counted once, when it first
  // appears.
  const seen = new Set((await client.listTools()).tools.map((t) => t.name));
  const newTools = async () => {
    const fresh = (await client.listTools()).tools.filter((t) => !seen.has(t.name));
    fresh.forEach((t) => seen.add(t.name));
    if (fresh.length) out.task.push({ tool: 'tools/list', args: {}, text: JSON.stringify(fresh) });
  };
  const go = async (p) => { await tool('browser_navigate', { url: base + p }, true); await newTools(); };
  // The sign-in and buy forms change something, so their tools only fill
  // them: nothing is sent until someone presses the button. This agent
  // presses it itself, so it works those forms as on the snapshot path.
  await go('/login');
  let s = await tool('browser_snapshot', {}, true);
  s = await call('browser_type', { element: 'Email', target: ref(s, 'textbox', 'Email'), text: 'demo@example.com' }, true);
  await tool('browser_type', { element: 'Password', target: ref(s, 'textbox', 'Password'), text: 'demo', submit: true }, true);
  await tool('browser_wait_for', { text: 'Your account' }, true);
  await go('/products/heavyweight-tee');
  s = await tool('browser_snapshot', {}, true);
  s = await call('browser_select_option', { element: 'Colour and size', target: ref(s, 'combobox', 'Colour and size'), values: ['TEE-BLK-M'] }, true);
  await tool('browser_click', { element: 'Add to cart', target: ref(s, 'button', 'Add to cart') }, true);
  await go('/checkout');
  // placeOrder through its tool runs nothing: the person confirms with
  // the page's button, which the agent finds in a snapshot.
  let r;
  try { r = await tool('webmcp_placeOrder', {}, true); } catch (e) { r = String(e); out.task.push({ tool: 'webmcp_placeOrder', args: {}, text: r }); }
  if (!/must confirm/.test(r)) throw new Error('placeOrder through WebMCP did not ask for the person: ' + r.slice(0, 500));
  s = await tool('browser_snapshot', {}, true);
  const done = await tool('browser_click', { element: 'Place order', target: ref(s, 'button', 'Place order') }, true);
  if (!/Page Title: Order \d+/.test(done)) throw new Error('the order page did not show: ' + done.slice(0, 1000));
  await client.close();
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

for (const [name, p] of [['catalog', '/'], ['product', '/products/heavyweight-tee'], ['cart', '/cart']]) {
  out.pages[name] = await call('browser_navigate', { url: base + p }, false);
}

// The task, signed in as the demo shopper, as an agent with only the
// browser would do it.
let s = await call('browser_navigate', { url: base + '/login' }, true);
s = await call('browser_type', { element: 'Email', target: ref(s, 'textbox', 'Email'), text: 'demo@example.com' }, true);
s = await call('browser_type', { element: 'Password', target: ref(s, 'textbox', 'Password'), text: 'demo', submit: true }, true);
s = await call('browser_navigate', { url: base + '/products/heavyweight-tee' }, true);
s = await call('browser_select_option', { element: 'Colour and size', target: ref(s, 'combobox', 'Colour and size'), values: ['TEE-BLK-M'] }, true);
s = await call('browser_click', { element: 'Add to cart', target: ref(s, 'button', 'Add to cart') }, true);
s = await call('browser_navigate', { url: base + '/checkout' }, true);
// The checkout's button is the confirmation of the order it shows: one step.
s = await call('browser_click', { element: 'Place order', target: ref(s, 'button', 'Place order') }, true);
if (!/Order \d+/.test(s)) throw new Error('the order page did not show: ' + s.slice(0, 1000));

await client.close();
process.stdout.write(JSON.stringify(out));
