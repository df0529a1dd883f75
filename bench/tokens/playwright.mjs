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
import net from 'node:net';
import { chromium } from 'playwright-core';

const base = process.argv[2];
// With "webmcp", Chromium runs with WebMCP on and the agent uses the tools
// the store's pages register (webmcp_*) instead of typing and clicking.
const webmcp = process.argv[3] === 'webmcp';
const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'playwright-mcp-'));
const args = [path.join(here, 'node_modules/@playwright/mcp/cli.js'),
  '--headless', '--isolated', '--no-sandbox', '--executable-path', '/usr/bin/chromium', '--output-dir', outDir];
// With WebMCP, the browser also opens a DevTools port on loopback: the
// person's, who presses the button of a form the agent's tool filled in.
let devtools = 0;
if (webmcp) {
  devtools = await new Promise((ok) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => { const p = srv.address().port; srv.close(() => ok(p)); });
  });
  const config = path.join(outDir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ browser: { launchOptions: { args: ['--enable-features=WebMCP,WebMCPTesting', '--remote-debugging-port=' + devtools] } } }));
  // Where the browser offers the agent's side only through its testing
  // API, the host reads it through webmcp-agent-side.js.
  args.push('--config', config, '--init-script', path.join(here, 'webmcp-agent-side.js'));
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
  // The sign-in, buy and order forms change something, so their tools
  // only fill them in: nothing is sent until the person presses the
  // button, which the browser marks (:tool-submit-active). The person
  // does so over the DevTools port, beside Playwright MCP: what they do
  // costs the agent nothing, and it reads only its tool's result.
  let person; // the browser starts with the agent's first navigation
  const withPress = async (name, input) => {
    person = person || await chromium.connectOverCDP('http://127.0.0.1:' + devtools);
    const page = person.contexts().flatMap((c) => c.pages()).find((p) => p.url().startsWith(base));
    if (!page) throw new Error('the person sees no page of the site');
    const [r] = await Promise.all([tool(name, input, true), page.click('button:tool-submit-active', { timeout: 30000 })]);
    return r;
  };
  await go('/login');
  await withPress('webmcp_signIn', { email: 'demo@example.com', password: 'demo' });
  await tool('browser_wait_for', { text: 'Your account' }, true);
  await go('/products/heavyweight-tee');
  await withPress('webmcp_addToCart', { sku: 'TEE-BLK-M' });
  await go('/checkout');
  // placeOrder's press is the person's confirmation: it sends the page's
  // own form, and the order page shows.
  await withPress('webmcp_placeOrder', {});
  const done = await tool('browser_wait_for', { text: 'Order' }, true);
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
