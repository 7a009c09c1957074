/**
 * The console's page: a small HTML shell, its script and its style. The script and style are plain
 * files next to this one, imported as text, so `bun build --compile` puts them inside the binary
 * and nothing is read from disk at run time. No framework: the page draws one SVG graph, one list
 * and one panel from two JSON shapes (FlowView, HopEvent), so a framework would add a build step
 * and a dependency without removing much code (docs/architecture.md "The console").
 */
import script from "./console.page.js" with { type: "text" };
import style from "./console.page.css" with { type: "text" };

/** The page's script (served as `/console.js`). */
export const CONSOLE_JS: string = script;
/** The page's style (served as `/console.css`). */
export const CONSOLE_CSS: string = style;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page's HTML for module `module`. */
export function pageHtml(module: string): string {
  const m = escapeHtml(module);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tinyhost console · ${m}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console.css">
</head>
<body>
<header>
  <h1>tinyhost console</h1>
  <span class="module">module <b>${m}</b> · local mode</span>
  <span id="filter" class="filter" hidden></span>
  <span id="conn" class="conn" data-state="connecting">connecting…</span>
</header>
<main>
  <section id="graph-pane" aria-label="flow">
    <svg id="graph" role="img" aria-label="the flow's nodes and edges"></svg>
  </section>
  <aside id="panel" aria-label="node">
    <p class="hint">Click a node to see its ports, press its buttons or send it a message; click an edge to see only its hops.</p>
  </aside>
  <section id="stream-pane" aria-label="messages">
    <div class="stream-head">
      <h2>Messages</h2>
      <span id="stream-count" class="count"></span>
      <span id="skipped" class="skipped" hidden></span>
      <label><input type="checkbox" id="pause"> pause</label>
      <button type="button" id="clear">clear</button>
    </div>
    <table id="stream">
      <thead><tr><th>time</th><th>from</th><th>to</th><th>payload</th><th>result</th><th class="num">ms</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
</main>
<script src="/console.js" defer></script>
</body>
</html>
`;
}
