/**
 * The host's apt sources for one Debian release, as one-line `deb` entries for mmdebstrap: the
 * local Debian base is built from the same mirror the machine installs its packages from (the
 * only one reachable on the test machines). Reads both formats apt reads (sources.list(5)):
 * one-line `deb [options] uri suite components…` and deb822 stanzas (`Types`, `URIs`, `Suites`,
 * `Components`, `Signed-By`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** True for `suite` itself and its pockets (`bookworm-updates`, `bookworm-security`, …), not other suites. */
function isPocketOf(name: string, suite: string): boolean {
  return name === suite || name.startsWith(`${suite}-`);
}

/**
 * `deb` entries of one sources file for `suite` and its pockets; `deb-src`, disabled stanzas
 * (`Enabled: no`) and other suites are dropped.
 * @param text - the file's content. @param deb822 - true for a `.sources` file.
 */
export function debEntries(text: string, suite: string, deb822: boolean): string[] {
  const out: string[] = [];
  if (!deb822) {
    for (const raw of text.split("\n")) {
      const line = raw.replace(/#.*/, "").trim();
      const m = /^deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.+)$/.exec(line);
      if (m && isPocketOf(m[3]!, suite)) out.push(`deb ${m[1] ?? ""}${m[2]} ${m[3]} ${m[4]!.trim()}`);
    }
    return out;
  }
  for (const stanza of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    let last = "";
    for (const raw of stanza.split("\n")) {
      if (raw.trimStart().startsWith("#")) continue;
      if (/^\s/.test(raw) && last) fields.set(last, `${fields.get(last)} ${raw.trim()}`);
      else {
        const m = /^([A-Za-z-]+):\s*(.*)$/.exec(raw);
        if (m) fields.set((last = m[1]!.toLowerCase()), m[2]!.trim());
      }
    }
    if (!(fields.get("types") ?? "").split(/\s+/).includes("deb")) continue;
    if ((fields.get("enabled") ?? "yes").toLowerCase() === "no") continue;
    const signedBy = fields.get("signed-by");
    // An inline key (a multi-line value) cannot go on one line; the keyring of the release signs it anyway.
    const options = signedBy && !signedBy.includes(" ") ? `[signed-by=${signedBy}] ` : "";
    for (const uri of (fields.get("uris") ?? "").split(/\s+/).filter(Boolean)) {
      for (const s of (fields.get("suites") ?? "").split(/\s+/).filter((x) => isPocketOf(x, suite))) {
        out.push(`deb ${options}${uri} ${s} ${fields.get("components") ?? "main"}`);
      }
    }
  }
  return out;
}

/**
 * The host's `deb` entries for `suite` from `/etc/apt/sources.list` and
 * `/etc/apt/sources.list.d/*.{list,sources}` (or under `etcApt`), in apt's order, without
 * duplicates. Empty when the host has none (mmdebstrap then uses its default mirror).
 */
export function hostDebEntries(suite: string, etcApt = "/etc/apt"): string[] {
  const files: [string, boolean][] = [];
  if (existsSync(join(etcApt, "sources.list"))) files.push([join(etcApt, "sources.list"), false]);
  const dir = join(etcApt, "sources.list.d");
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).sort()) {
      if (name.endsWith(".list")) files.push([join(dir, name), false]);
      else if (name.endsWith(".sources")) files.push([join(dir, name), true]);
    }
  }
  const entries = files.flatMap(([path, deb822]) => debEntries(readFileSync(path, "utf8"), suite, deb822));
  return [...new Set(entries)];
}
