// WebMCP tools from a page's Affordances graph, served by the Go library
// github.com/affordances-go/affordances (site.Options.WebMCP).
//
// When the browser offers WebMCP (document.modelContext or
// navigator.modelContext), this script reads the page's graph with the
// person's own session and registers one tool per action that is
// available to them now, with the action's input schema. A tool call is
// the same call an agent makes by POST, with the person's cookie and this
// site's Origin, through the same pipeline; its result is the delta as
// Markdown (what happened, what changed, what became possible, where to
// go), so the agent sees the outcome without reading the page again.
// After each call the graph is read again: tools that became available
// are registered, tools that did not stay available are removed. One
// more tool, readPage, reads the page itself as Markdown (what it shows,
// its actions, its links): a few hundred tokens instead of a snapshot.
//
// A confirm action never runs from here: the script never sends
// "confirm": true, so the call answers confirm_required and nothing runs;
// the result tells the agent that the person must confirm on the page (or
// on the approval page the site names). Forms that declare a tool
// themselves (toolname) are left to the browser.
//
// The browser's API is young and moving; what differs between versions
// is feature-detected, never read from the version number:
//   - registerTool returns nothing, a promise (Chromium 156; a name
//     registered twice rejects it), or a Tool object with unregister
//     (announced for 160): each is handled, and the AbortSignal that
//     unregisters works with all of them;
//   - a tool's input arrives as an object (executeTool takes one since
//     Chromium 155), or as JSON text from an older caller, which is
//     parsed;
//   - an action that needs the person's confirmation or approval carries
//     consequentialHint; an action whose delta has a declared output
//     carries its outputSchema (read since Chromium 159, ignored before)
//     and answers its output as structuredContent beside the Markdown.
(function () {
  "use strict";
  var mc = document.modelContext || navigator.modelContext;
  if (!mc || typeof mc.registerTool !== "function") {
    return;
  }
  var mediaType = "application/vnd.affordances+json";
  var page = location.pathname + location.search;
  var registered = {}; // action name -> what unregisters its tool
  var outputs = {}; // action name -> output schema, from the page's tools
  var taken = {}; // action name -> true: the page registered a tool of that name itself

  function key() {
    if (window.crypto && crypto.randomUUID) {
      return crypto.randomUUID();
    }
    return String(Date.now()) + "-" + Math.random().toString(36).slice(2);
  }

  function declared(name) {
    var forms = document.querySelectorAll("form[toolname]");
    for (var i = 0; i < forms.length; i++) {
      if (forms[i].getAttribute("toolname") === name) {
        return true;
      }
    }
    return false;
  }

  // result is a call's answer for the agent: the delta's Markdown, which
  // the site writes. A success is the text itself, not an object around
  // it: a browser hands the agent a result as JSON, and Markdown inside a
  // JSON string is longer to read. A failure is marked an error (isError)
  // with the text, which a thrown error would lose (Chromium tells the
  // agent only that the tool failed). A confirm action's refusal says who
  // must act.
  function result(res, text, name) {
    if (/^Not done \(confirm_required\)/.test(text)) {
      text = "Nothing ran: the person must confirm this themselves, with the button on this page or on the approval page below.\n\n" + text;
    }
    if (!res.ok) {
      return { content: [{ type: "text", text: text }], isError: true };
    }
    // A tool with an output schema answers its output as structured
    // content, which the schema describes: the delta's Markdown carries
    // it on one line, "Output: `{...}`" (JSON, its backticks escaped).
    var out = name && outputs[name] && /^Output: `(.*)`$/m.exec(text);
    if (out) {
      try {
        return { content: [{ type: "text", text: text }], structuredContent: JSON.parse(out[1]) };
      } catch (e) { /* the text alone */ }
    }
    return text;
  }

  // textOf is a result's text, for a form's submission, which answers
  // with text alone.
  function textOf(r) {
    return typeof r === "string" ? r : r.content[0].text;
  }

  // inputOf is a tool's input as an object: an older caller hands it
  // over as JSON text.
  function inputOf(input) {
    if (typeof input === "string") {
      try { return JSON.parse(input); } catch (e) { return {}; }
    }
    return input || {};
  }

  // add registers a tool and returns what unregisters it, whichever
  // shape the browser's registerTool has (see the top of this file). A
  // refusal (a name the page registered itself) leaves the tool out.
  function add(tool, signal, refused) {
    var handle = { tool: null };
    var r;
    try {
      r = mc.registerTool(tool, signal ? { signal: signal } : undefined);
    } catch (e) {
      return null;
    }
    var keep = function (t) {
      if (t && typeof t.unregister === "function") {
        handle.tool = t;
      }
    };
    if (r && typeof r.then === "function") {
      r.then(keep, function () { if (refused) { refused(handle); } });
    } else {
      keep(r);
    }
    return handle;
  }

  // call runs an action and answers with its result. asForm: the call
  // stands for a form's submission, so the page then goes where the form
  // would have led, the delta's next page, once the agent has its answer;
  // a call that stays on the page only refreshes its tools.
  function call(name, input, asForm) {
    return fetch(page, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": mediaType, "Accept": "text/markdown; actions=tools", "Idempotency-Key": key() },
      body: JSON.stringify({ action: name, input: input || {} })
    }).then(function (res) {
      return res.text().then(function (text) {
        var next = asForm && res.ok && /<([^>]*)>;\s*rel="next"/.exec(res.headers.get("Link") || "");
        if (next && next[1] !== location.pathname + location.search) {
          setTimeout(function () { location.assign(next[1]); }, 50); // once the agent has its answer
        } else if (asForm && res.ok) {
          // The page's forms show the state before the call (a cart's
          // lines, a quantity): show the new one, as a submission would.
          showAgain();
        } else {
          refresh();
        }
        return result(res, text, name);
      });
    });
  }

  // showAgain puts the page's new state in place of the old, from the
  // page's HTML read again, without a navigation: the agent may go
  // elsewhere at once, and a reload would cut its navigation short.
  // Scripts of the new body do not run again (this one stays), and the
  // tools follow the new state.
  function showAgain() {
    fetch(page, { headers: { "Accept": "text/html" }, credentials: "same-origin" })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (html) {
        if (html === null) {
          return;
        }
        var doc = new DOMParser().parseFromString(html, "text/html");
        document.title = doc.title;
        document.body.replaceWith(document.adoptNode(doc.body));
        return refresh();
      })
      .catch(function () { /* the page stays as it was */ });
  }

  // readPage returns the page as Markdown, read with the person's session.
  function readPage() {
    return fetch(page, { headers: { "Accept": "text/markdown; actions=tools" }, credentials: "same-origin" })
      .then(function (res) {
        return res.text().then(function (text) { return result(res, text); });
      });
  }

  function register(a) {
    var ac = new AbortController();
    var description = a.description || a.name;
    if (a.guard) {
      description += " (when " + a.guard + ")";
    }
    if (a.expose === "confirm") {
      description += " The person must confirm it on the page: this tool only asks.";
    }
    // The result carries what people wrote (names, notes, reviews):
    // text to read, never instructions. An action the person must
    // confirm or approve is consequential.
    var annotations = { readOnlyHint: !!a.readOnly, untrustedContentHint: true };
    if (a.expose === "confirm" || a.approval) {
      annotations.consequentialHint = true;
    }
    var tool = {
      name: a.name,
      title: a.name,
      description: description,
      inputSchema: a.input || { type: "object" },
      annotations: annotations,
      execute: function (input) { return call(a.name, inputOf(input)); }
    };
    if (outputs[a.name]) {
      tool.outputSchema = outputs[a.name];
    }
    var handle = add(tool, ac.signal, function (h) {
      if (registered[a.name] === h) {
        delete registered[a.name];
        taken[a.name] = true;
        mark();
      }
    });
    if (handle) {
      handle.ac = ac;
      registered[a.name] = handle;
    }
  }

  // unregister removes a tool this script registered.
  function unregister(name) {
    var h = registered[name];
    delete registered[name];
    h.ac.abort();
    if (h.tool) {
      try { h.tool.unregister(); } catch (e) { /* gone with the signal */ }
    }
  }

  function refresh() {
    return fetch(page, { headers: { "Accept": mediaType }, credentials: "same-origin" })
      .then(function (res) { return res.ok ? res.json() : { actions: [] }; })
      .then(function (graph) { apply(graph.actions || []); })
      .catch(function () { /* the page keeps the tools it had */ });
  }

  // apply makes the registered tools those of the available actions.
  function apply(actions) {
    var now = {};
    actions.forEach(function (a) {
      schemas[a.name] = a.input;
      if (a.output) {
        outputs[a.name] = a.output;
      }
      if (a.available && !declared(a.name) && !taken[a.name]) {
        now[a.name] = a;
      }
    });
    Object.keys(registered).forEach(function (name) {
      if (!now[name]) {
        unregister(name);
      }
    });
    Object.keys(now).forEach(function (name) {
      if (!registered[name]) {
        register(now[name]);
      }
    });
    mark();
  }

  // mark writes what this script registered on the page's root element,
  // for tests and for a curious reader.
  function mark() {
    document.documentElement.setAttribute("data-webmcp-tools", Object.keys(registered).sort().join(" ") || "-");
  }

  if (!declared("readPage")) {
    // A page that registered its own readPage keeps it: add leaves ours
    // out when the browser refuses the name.
    add({
      name: "readPage",
      title: "Read this page",
      description: "What this page shows, the actions here (available now, or why not) and its links, as Markdown: read it instead of a snapshot.",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true, untrustedContentHint: true },
      execute: readPage
    });
  }

  // A form that declares its tool (toolname) is the browser's: the agent
  // calls it, the browser fills it in and submits it, at once for a
  // read-only action (toolautosubmit), when the person presses the button
  // for any other. That submission is answered here, not by a page load: the same
  // call through fetch, whose result is the delta's Markdown (a GET form,
  // such as a search, answers the page it leads to, as Markdown). A
  // person's own submission goes on as ever, and so does the press that
  // confirms a confirm action (a form with _confirm): that is the person's
  // decision on what the form shows, sent as the page's own form, never a
  // call this script makes.
  var schemas = {}; // action name -> input schema, from the page's tools
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!e.agentInvoked || typeof e.respondWith !== "function" || !form.hasAttribute("toolname") ||
        form.querySelector('input[name="_confirm"]')) {
      return;
    }
    e.preventDefault();
    if ((form.method || "get").toLowerCase() === "get") {
      var url = new URL(form.action || location.href, location.href);
      url.search = new URLSearchParams(new FormData(form)).toString();
      e.respondWith(fetch(url.pathname + url.search, { headers: { "Accept": "text/markdown" }, credentials: "same-origin" })
        .then(function (res) { return res.text(); }));
      return;
    }
    var fields = new FormData(form);
    var name = fields.get("_action");
    e.respondWith(call(name, formInput(fields, schemas[name]), true).then(textOf));
  }, true);

  // formInput turns a form's fields into the action's input, typed as
  // its schema says (numbers, booleans, lists).
  function formInput(fields, schema) {
    var input = {};
    fields.forEach(function (value, key) {
      if (key.charAt(0) === "_" || typeof value !== "string") {
        return;
      }
      // A dotted name is a field of an object (address.city): walk to it,
      // in the input and in the schema.
      var path = key.split("."), at = input, props = (schema && schema.properties) || {};
      for (var i = 0; i < path.length - 1; i++) {
        at = at[path[i]] = at[path[i]] || {};
        props = (props[path[i]] || {}).properties || {};
      }
      var last = path[path.length - 1], p = props[last] || {}, v = value;
      if (p.type === "integer" || p.type === "number") {
        if (value === "") { return; }
        v = Number(value);
      } else if (p.type === "boolean") {
        v = value === "true" || value === "on";
      }
      if (p.type === "array") {
        (at[last] = at[last] || []).push(v);
      } else {
        at[last] = v;
      }
    });
    return input;
  }

  // The site puts the tools the person can run now in the page itself:
  // register them at once. Without them (a page the application renders),
  // read the graph.
  var inline = document.getElementById("affordances-webmcp");
  if (inline) {
    try {
      apply(JSON.parse(inline.textContent));
      return;
    } catch (e) { /* read the graph instead */ }
  }
  refresh();
})();
