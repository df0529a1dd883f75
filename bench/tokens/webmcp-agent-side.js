// The agent's side of WebMCP for a Chromium that has only its testing
// API (Chromium 148: navigator.modelContextTesting, behind
// --enable-features=WebMCPTesting), in the shape Playwright MCP reads
// (getTools and executeTool on the page's model context, as Chromium 156
// has them). Playwright MCP runs it in every page before the page's own
// scripts (--init-script). It adds nothing where the browser has
// getTools already, and changes nothing the page's side does: a page
// still registers its tools with the browser's own registerTool.
//
// The testing API lists no annotations, where getTools gives each tool
// the ones its page declared; so this keeps what each registerTool call
// declared (readOnlyHint, consequentialHint, ...) and lists it with the
// tool, as getTools would. A form's tool (toolname) declares none.
(() => {
  const testing = navigator.modelContextTesting;
  const mc = document.modelContext || navigator.modelContext;
  if (!testing || !mc || typeof mc.getTools === 'function') return;
  const declared = new Map();
  if (typeof mc.registerTool === 'function') {
    const register = mc.registerTool.bind(mc);
    mc.registerTool = (tool, ...rest) => {
      const r = register(tool, ...rest);
      if (tool && tool.name && tool.annotations) declared.set(tool.name, tool.annotations);
      return r;
    };
  }
  const schema = (s) => {
    if (typeof s !== 'string') return s;
    try { return JSON.parse(s); } catch { return undefined; }
  };
  mc.getTools = async () => (await testing.listTools()).map((t) => ({
    name: t.name, description: t.description, inputSchema: schema(t.inputSchema),
    annotations: t.annotations || declared.get(t.name),
  }));
  mc.executeTool = (tool, input) => testing.executeTool(typeof tool === 'string' ? tool : tool.name,
    typeof input === 'string' ? input : JSON.stringify(input ?? {}));
})();
