// The agent's side of WebMCP for a Chromium that has only its testing
// API (Chromium 148: navigator.modelContextTesting, behind
// --enable-features=WebMCPTesting), in the shape Playwright MCP reads
// (getTools and executeTool on the page's model context, as Chromium 156
// has them). Playwright MCP runs it in every page before the page's own
// scripts (--init-script). It adds nothing where the browser has
// getTools already, and nothing the page's side uses: a page still
// registers its tools with the browser's own registerTool.
(() => {
  const testing = navigator.modelContextTesting;
  const mc = document.modelContext || navigator.modelContext;
  if (!testing || !mc || typeof mc.getTools === 'function') return;
  const schema = (s) => {
    if (typeof s !== 'string') return s;
    try { return JSON.parse(s); } catch { return undefined; }
  };
  mc.getTools = async () => (await testing.listTools()).map((t) => ({
    name: t.name, description: t.description, inputSchema: schema(t.inputSchema),
  }));
  mc.executeTool = (tool, input) => testing.executeTool(typeof tool === 'string' ? tool : tool.name,
    typeof input === 'string' ? input : JSON.stringify(input ?? {}));
})();
