/**
 * What a runner publishes in `TinyNode.status` (runtime-spec §2.6 `ReadStatus`): every port except
 * `_reconcile`, `_client`, `_identity`, sorted by name, with base64 JSON schema and configuration;
 * credential-looking configuration values masked; and the component info.
 */
import type { ComponentInfo } from "../../sdk/component.ts";
import type { TinyNodePortStatus } from "../../sdk/node.ts";
import { POSITION_WIRE, SystemPort, type AnyPort } from "../../sdk/ports.ts";
import { portPlatformSchema, schemaToBase64 } from "../schema/index.ts";

const HIDDEN = new Set<string>([SystemPort.reconcile, SystemPort.client, SystemPort.identity]);

/** Keys whose string values are masked in published configurations (runtime-spec §2.8 redaction rule 3). */
export const CREDENTIAL_KEY = /(api[_-]?key|secret|token|passw|authorization|bearer|credential|private[_-]?key|access[_-]?key)/i;

/** The mask written instead of a credential value (runtime-spec §2.6). */
export const REDACTED = "<redacted>";

/** Copy of `value` with credential-looking string values (non-empty, not `{{…}}`) replaced by {@link REDACTED}. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = typeof v === "string" && v !== "" && !v.startsWith("{{") && CREDENTIAL_KEY.test(k) ? REDACTED : redact(v);
  }
  return out;
}

function b64(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}

/** The `status.ports` list for `ports` (runtime-spec §2.6). Never emits null schema/configuration (§16 item 27). */
export function statusPorts(ports: readonly AnyPort[]): TinyNodePortStatus[] {
  return ports
    .filter((p) => !HIDDEN.has(p.name))
    .slice()
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((p) => ({
      name: p.name,
      label: p.label,
      position: POSITION_WIRE[p.position],
      source: p.source,
      schema: schemaToBase64(portPlatformSchema(p)),
      configuration: b64(JSON.stringify(redact(p.configuration ?? null))),
    }));
}

/** `status.component` from component info (runtime-spec §2.6). */
export function statusComponent(info: ComponentInfo): { description: string; info: string; tags: string[] } {
  return { description: info.description, info: info.info, tags: [...(info.tags ?? [])] };
}
