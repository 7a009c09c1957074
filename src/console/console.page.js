// The tinyhost console page (served by src/console/api.ts). Plain browser JavaScript, no build step:
// it reads GET /api/flow and /api/hops, follows GET /api/events (Server-Sent Events: `flow`, `hops`,
// `skipped`) and sends with POST /api/send. Shapes: FlowView (src/console/flow-view.ts) and HopEvent
// (src/console/history.ts).
"use strict";

const MAX_ROWS = 500; // the server keeps 500 hops too (HOP_HISTORY)
const NODE_W = 200;
const SVG_NS = "http://www.w3.org/2000/svg";

const state = {
  flow: { module: "", nodes: [], edges: [] },
  byName: new Map(),
  filter: { node: "", edge: "" },
  selected: "",
  events: undefined,
  rows: 0,
  skipped: 0,
  lastAnswer: new Map(), // node → {text, bad}
};

const $ = (sel) => document.querySelector(sel);

function el(tag, attrs = {}, ...children) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = String(v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== undefined && c !== null) e.append(c);
  return e;
}

function short(text, n) {
  const s = String(text);
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function valueText(v) {
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** A node's display name without the quotes the terminal puts around labels. */
function nodeShown(name) {
  const n = state.byName.get(name);
  if (!n) return name;
  return n.shown.replace(/^"(.*)"( \(.*\))?$/, (_, label, sfx) => `${JSON.parse(`"${label}"`)}${sfx ?? ""}`);
}

/** `node:port` with the node's display name, for a hop's sender or receiver. */
function endpoint(address) {
  if (address === "signal") return "signal (outside)";
  if (address === "") return "runtime";
  const i = address.lastIndexOf(":");
  const node = i > 0 ? address.slice(0, i) : address;
  const port = i > 0 ? address.slice(i + 1) : "";
  return `${nodeShown(node)}${port ? ` : ${port}` : ""}`;
}

// ----- graph -------------------------------------------------------------------------------

/** Nodes without an editor position are laid out in columns by their distance from a source. */
function layout(nodes, edges) {
  const pos = new Map();
  const missing = nodes.filter((n) => n.x === undefined || n.y === undefined);
  for (const n of nodes) if (n.x !== undefined && n.y !== undefined) pos.set(n.name, { x: n.x, y: n.y });
  if (missing.length) {
    const depth = new Map(missing.map((n) => [n.name, 0]));
    for (let i = 0; i < missing.length; i++) for (const e of edges) if (depth.has(e.to) && depth.has(e.from)) depth.set(e.to, Math.max(depth.get(e.to), depth.get(e.from) + 1));
    const rows = new Map();
    const maxY = Math.max(0, ...[...pos.values()].map((p) => p.y + 140));
    for (const n of missing) {
      const d = depth.get(n.name);
      const r = rows.get(d) ?? 0;
      rows.set(d, r + 1);
      pos.set(n.name, { x: 40 + d * 280, y: maxY + 40 + r * 140 });
    }
  }
  return pos;
}

function controlPort(n) {
  return n.ports.find((p) => p.name === "_control");
}

/** Fields of the `_control` configuration shown on the node (not its buttons). */
function controlFields(n) {
  const c = controlPort(n);
  if (!c || typeof c.configuration !== "object" || c.configuration === null || Array.isArray(c.configuration)) return [];
  return Object.entries(c.configuration).filter(([k]) => !c.buttons.includes(k));
}

/** The error a node's box shows: its status error, else its last hop error. */
function nodeError(n) {
  return n.error ? n.status : n.lastError ? n.lastError.message : "";
}

/** `text` in lines of at most `width` characters, at most `max` lines (the last one cut with …). */
function wrap(text, width, max) {
  const lines = [];
  for (let rest = text; rest && lines.length < max; rest = rest.slice(width)) lines.push(rest.slice(0, width));
  if (text.length > width * max) lines[max - 1] = `${lines[max - 1].slice(0, width - 1)}…`;
  return lines;
}

function nodeHeight(n) {
  return 52 + Math.min(3, controlFields(n).length) * 15 + wrap(nodeError(n), 32, 2).length * 14;
}

function drawGraph() {
  const svg = $("#graph");
  svg.replaceChildren();
  const { nodes, edges } = state.flow;
  const pos = layout(nodes, edges);
  let w = 400;
  let h = 200;
  for (const n of nodes) {
    const p = pos.get(n.name);
    w = Math.max(w, p.x + NODE_W + 40);
    h = Math.max(h, p.y + nodeHeight(n) + 40);
  }
  const pairs = new Map(); // edges between the same two nodes get their labels spread apart
  let below = 0; // backward edges loop under the graph, one lane each
  const bottom = Math.max(0, ...nodes.map((n) => pos.get(n.name).y + nodeHeight(n)));
  for (const e of edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    const na = state.byName.get(e.from);
    const nb = state.byName.get(e.to);
    if (!a || !na) continue;
    const x1 = a.x + NODE_W;
    const y1 = a.y + nodeHeight(na) / 2;
    const x2 = b ? b.x : x1 + 120;
    const y2 = b && nb ? b.y + nodeHeight(nb) / 2 : y1;
    const pair = `${e.from} ${e.to}`;
    const k = pairs.get(pair) ?? 0;
    pairs.set(pair, k + 1);
    let d;
    let lx;
    let ly;
    if (x2 >= x1 + 20) {
      const dx = Math.max(40, Math.abs(x2 - x1) / 2);
      d = `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
      lx = (x1 + x2) / 2;
      ly = (y1 + y2) / 2 - 6 + k * 12;
    } else {
      const yb = bottom + 28 + below++ * 22;
      w = Math.max(w, x1 + 90);
      d = `M${x1},${y1} C${x1 + 70},${y1} ${x1 + 70},${yb} ${x1 - 40},${yb} L${x2 + 40},${yb} C${x2 - 70},${yb} ${x2 - 70},${y2} ${x2},${y2}`;
      lx = (x1 + x2) / 2;
      ly = yb - 4;
    }
    h = Math.max(h, (ly ?? 0) + 40);
    const g = el("svg:g", { class: `edge${state.filter.edge === e.id ? " selected" : ""}`, "data-edge": e.id, onclick: () => setFilter({ node: "", edge: state.filter.edge === e.id ? "" : e.id }) });
    g.append(el("svg:path", { class: "line", d }), el("svg:path", { class: "hit", d }));
    g.append(el("svg:text", { x: lx, y: ly, "text-anchor": "middle", text: `${e.fromPort} → ${e.toPort}${b ? "" : " (missing node)"}` }));
    g.append(el("svg:title", { text: `edge ${e.id}: click to see only its hops` }));
    svg.append(g);
  }
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "xMinYMin meet");
  for (const n of nodes) {
    const p = pos.get(n.name);
    const bad = n.error || n.lastError;
    const g = el("svg:g", {
      class: `node${n.name === state.selected ? " selected" : ""}${bad ? " error" : ""}`,
      "data-node": n.name,
      transform: `translate(${p.x},${p.y})`,
      onclick: () => select(n.name),
    });
    g.append(el("svg:rect", { width: NODE_W, height: nodeHeight(n) }));
    g.append(el("svg:circle", { class: `dot ${n.error ? "bad" : n.running ? "ok" : "idle"}`, cx: NODE_W - 14, cy: 16, r: 5 }));
    g.append(el("svg:text", { class: "title node-label", x: 10, y: 20, text: short(n.label ?? n.name.slice(n.name.lastIndexOf(".") + 1), 24) }));
    g.append(el("svg:text", { class: "sub", x: 10, y: 37, text: `${n.component} · ${n.status ? short(n.error ? "error" : n.status, 20) : "starting"}` }));
    let y = 54;
    for (const [k, v] of controlFields(n).slice(0, 3)) {
      g.append(el("svg:text", { class: "field", x: 10, y, "data-field": k, text: short(`${k}: ${valueText(v)}`, 30) }));
      y += 15;
    }
    if (bad) {
      const t = el("svg:text", { class: "err node-error", x: 10, y: y + 1 });
      wrap(nodeError(n), 32, 2).forEach((line, i) => t.append(el("svg:tspan", { x: 10, dy: i === 0 ? 0 : 14, text: line })));
      t.append(el("svg:title", { text: nodeError(n) }));
      g.append(t);
    }
    g.append(el("svg:title", { text: `${n.name}\n${n.component}: ${n.status || "starting"}` }));
    svg.append(g);
  }
}

function flash(selector) {
  const g = document.querySelector(selector);
  if (!g) return;
  g.classList.add("flash");
  setTimeout(() => g.classList.remove("flash"), 300);
}

// ----- panel -------------------------------------------------------------------------------

function select(name) {
  state.selected = state.selected === name ? "" : name;
  setFilter({ node: state.selected, edge: "" });
}

async function send(node, port, data, answerKey) {
  state.lastAnswer.set(answerKey, { text: "sending…", bad: false });
  drawPanel();
  let text;
  let bad = false;
  try {
    const res = await fetch("/api/send", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ node, port, data, wait: true, timeoutMs: 10000 }) });
    const a = await res.json();
    if (!res.ok && a.result === undefined) {
      text = a.error;
      bad = true;
    } else if (a.result === "ok") text = `ok: ${a.value}`;
    else if (a.result === "empty") text = "ok (no result)";
    else if (a.result === "timeout") text = a.error;
    else {
      text = `failed: ${a.error}`;
      bad = true;
    }
  } catch (err) {
    text = `could not send: ${err.message}`;
    bad = true;
  }
  state.lastAnswer.set(answerKey, { text, bad });
  drawPanel();
}

function drawPanel() {
  const panel = $("#panel");
  const n = state.byName.get(state.selected);
  if (!n) {
    panel.replaceChildren(el("p", { class: "hint", text: "Click a node to see its ports, press its buttons or send it a message; click an edge to see only its hops." }));
    return;
  }
  const keep = panel.querySelector("textarea")?.value;
  const keepPort = panel.querySelector("select")?.value;
  const parts = [el("h2", { text: n.label ?? n.name }), el("div", { class: "name", text: n.name }), el("div", { class: "sub", text: `${n.component}${n.flow ? ` · flow ${n.flow}` : ""}` })];
  parts.push(el("div", { class: `status ${n.error ? "bad" : "ok"}`, "data-status": "", text: n.status ? (n.error ? `error: ${n.status}` : `status: ${n.status}`) : "starting" }));
  if (n.lastError) {
    parts.push(el("div", { class: "last-error", "data-last-error": "", text: `last error ${new Date(n.lastError.at).toLocaleTimeString()} at port ${n.lastError.port}: ${n.lastError.message}` }));
  }
  const c = controlPort(n);
  if (c) {
    parts.push(el("h3", { text: "Control" }));
    const fields = controlFields(n);
    if (fields.length) parts.push(el("dl", {}, ...fields.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { "data-control": k, text: short(valueText(v), 400) })])));
    if (c.buttons.length) {
      const buttons = c.buttons.map((b) =>
        el("button", {
          type: "button",
          "data-button": b,
          text: b.charAt(0).toUpperCase() + b.slice(1),
          onclick: () => {
            const data = { ...(typeof c.configuration === "object" && c.configuration ? c.configuration : {}) };
            for (const other of c.buttons) data[other] = false;
            data[b] = true;
            void send(n.name, "_control", data, `${n.name}\u0000_control`);
          },
        }),
      );
      parts.push(el("div", { class: "buttons" }, ...buttons));
    }
    const a = state.lastAnswer.get(`${n.name}\u0000_control`);
    if (a) parts.push(el("div", { class: `answer${a.bad ? " bad" : ""}`, "data-answer": "_control", text: a.text }));
  }
  const inputs = n.ports.filter((p) => !p.source || p.name === "_control");
  if (inputs.length) {
    parts.push(el("h3", { text: "Send a message" }));
    const select = el("select", { "data-send-port": "" }, ...inputs.map((p) => el("option", { value: p.name, text: `${p.name}${p.label && p.label !== p.name ? ` (${p.label})` : ""}` })));
    const chosen = inputs.find((p) => p.name === keepPort) ?? inputs.find((p) => !p.name.startsWith("_")) ?? inputs[0];
    select.value = chosen.name;
    const area = el("textarea", { spellcheck: "false", "data-send-data": "" });
    area.value = keep ?? JSON.stringify(chosen.configuration ?? null, null, 2);
    select.addEventListener("change", () => {
      const p = inputs.find((q) => q.name === select.value);
      area.value = JSON.stringify(p?.configuration ?? null, null, 2);
    });
    const go = el("button", {
      type: "button",
      class: "primary",
      "data-send": "",
      text: "Send",
      onclick: () => {
        let data;
        try {
          data = JSON.parse(area.value);
        } catch (err) {
          state.lastAnswer.set(`${n.name}\u0000send`, { text: `not JSON: ${err.message}`, bad: true });
          drawPanel();
          return;
        }
        void send(n.name, select.value, data, `${n.name}\u0000send`);
      },
    });
    parts.push(select, area, go);
    const a = state.lastAnswer.get(`${n.name}\u0000send`);
    if (a) parts.push(el("div", { class: `answer${a.bad ? " bad" : ""}`, "data-answer": "send", text: a.text }));
  }
  parts.push(el("h3", { text: "Send from a terminal" }));
  parts.push(el("div", { class: "name", text: `tinyhost send --local <dir> ${JSON.stringify(n.label ?? n.name)} <port> '<json>'` }));
  panel.replaceChildren(...parts);
}

// ----- stream ------------------------------------------------------------------------------

function row(e) {
  const payload = e.data ?? "";
  const result = e.result === "fail" ? e.error : e.result === "ok" ? e.value : "—";
  const tr = el(
    "tr",
    { class: `hop new${e.result === "fail" ? " fail" : ""}`, "data-seq": e.seq, "data-to": e.node, "data-port": e.port, "data-result": e.result },
    el("td", { text: new Date(e.at).toLocaleTimeString([], { hour12: false }) + `.${String(e.at % 1000).padStart(3, "0")}` }),
    el("td", { text: endpoint(e.from) }),
    el("td", { class: "to", text: endpoint(`${e.node}:${e.port}`) }),
    el("td", { class: "payload", title: payload, text: payload }),
    el("td", { class: "result payload", title: result, text: result + (e.expressionErrors ? ` · expression errors: ${e.expressionErrors.join("; ")}` : "") }),
    el("td", { class: "num", text: e.ms.toFixed(e.ms < 10 ? 2 : 0) }),
  );
  tr.addEventListener("click", () => tr.classList.toggle("open"));
  return tr;
}

function addHops(hops) {
  if ($("#pause").checked) return;
  const body = $("#stream tbody");
  for (const e of hops) {
    body.prepend(row(e));
    state.rows++;
    if (e.edge) flash(`g.edge[data-edge="${CSS.escape(e.edge)}"]`);
    flash(`g.node[data-node="${CSS.escape(e.node)}"]`);
  }
  while (body.rows.length > MAX_ROWS) body.lastElementChild.remove();
  $("#stream-count").textContent = `${body.rows.length} shown${state.rows > body.rows.length ? ` of ${state.rows}` : ""}`;
}

function showSkipped(count) {
  state.skipped += count;
  const s = $("#skipped");
  s.hidden = false;
  s.textContent = `${state.skipped} hop${state.skipped === 1 ? "" : "s"} not shown (the page fell behind)`;
}

// ----- data --------------------------------------------------------------------------------

function setFlow(flow) {
  state.flow = flow;
  state.byName = new Map(flow.nodes.map((n) => [n.name, n]));
  if (state.selected && !state.byName.has(state.selected)) state.selected = "";
  drawGraph();
  drawPanel();
}

function describeFilter() {
  const f = $("#filter");
  const { node, edge } = state.filter;
  if (!node && !edge) {
    f.hidden = true;
    return;
  }
  f.hidden = false;
  const e = state.flow.edges.find((x) => x.id === edge);
  f.textContent = node ? `only ${nodeShown(node)} ✕` : e ? `only ${endpoint(`${e.from}:${e.fromPort}`)} → ${endpoint(`${e.to}:${e.toPort}`)} ✕` : `only edge ${edge} ✕`;
  f.title = "show every hop";
}

async function connect() {
  state.events?.close();
  const q = new URLSearchParams();
  if (state.filter.node) q.set("node", state.filter.node);
  if (state.filter.edge) q.set("edge", state.filter.edge);
  const conn = $("#conn");
  conn.dataset.state = "connecting";
  conn.textContent = "connecting…";
  let after = 0;
  try {
    const [flow, hops] = await Promise.all([fetch("/api/flow").then((r) => r.json()), fetch(`/api/hops?${q}`).then((r) => r.json())]);
    setFlow(flow);
    $("#stream tbody").replaceChildren();
    state.rows = 0;
    addHops(hops.hops);
    after = hops.seq;
  } catch (err) {
    conn.dataset.state = "lost";
    conn.textContent = `cannot reach the host: ${err.message}`;
  }
  q.set("after", String(after));
  const es = new EventSource(`/api/events?${q}`);
  state.events = es;
  es.addEventListener("open", () => {
    conn.dataset.state = "live";
    conn.textContent = "live";
  });
  es.addEventListener("error", () => {
    conn.dataset.state = "lost";
    conn.textContent = "reconnecting…";
  });
  es.addEventListener("flow", (m) => setFlow(JSON.parse(m.data)));
  es.addEventListener("hops", (m) => addHops(JSON.parse(m.data)));
  es.addEventListener("skipped", (m) => showSkipped(JSON.parse(m.data).count));
}

function setFilter(f) {
  state.filter = f;
  if (!f.node) state.selected = "";
  describeFilter();
  drawGraph();
  drawPanel();
  void connect();
}

$("#filter").addEventListener("click", () => setFilter({ node: "", edge: "" }));
$("#clear").addEventListener("click", () => {
  $("#stream tbody").replaceChildren();
  state.rows = 0;
  $("#stream-count").textContent = "";
});
void connect();
