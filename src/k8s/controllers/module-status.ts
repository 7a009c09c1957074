/**
 * The TinyModule status the module leader writes (runtime-spec §5.2): `addr`, `name` (unsanitized),
 * `version`, `sdkVersion` (the Go SDK version whose behaviour we implement, src/core/version.ts
 * `SDK_VERSION`, as a Go module writes its own SDK version — runtime-spec §17), and one entry per registry component with its ports (system ports
 * `_reconcile`, `_client`, `_identity` left out) and each port's schema as base64 JSON.
 */
import { base64Json, type TinyModuleComponentStatus, type TinyModuleStatus } from "../../core/api/index.ts";
import type { ComponentDefinition } from "../../core/component.ts";
import { describeComponent } from "../../runtime/registry/describe.ts";

/**
 * `status.components` for `definitions`, in the given order. Schemas are the registry's published
 * platform schemas (a port's `rawSchema` when set — docs/compatibility.md "schemas").
 * @throws whatever a component's `ports()` throws.
 */
export function componentStatuses(definitions: readonly ComponentDefinition[]): TinyModuleComponentStatus[] {
  return definitions.map((def) => {
    const d = describeComponent(def);
    return {
      name: d.name,
      description: d.description,
      info: d.info,
      tags: d.tags,
      ports: d.ports.map((p, i) => ({
        name: p.name,
        label: p.label,
        source: p.source,
        position: p.position as 0 | 1 | 2 | 3,
        schema: base64Json(p.schema, `status.components[${d.name}].ports[${i}].schema`),
      })),
    };
  });
}

/** The full TinyModule status (all five fields; `components` never null — the CRD requires it). */
export function moduleStatus(fields: {
  addr: string;
  name: string;
  version: string;
  sdkVersion: string;
  components: TinyModuleComponentStatus[];
}): TinyModuleStatus {
  return { addr: fields.addr, name: fields.name, version: fields.version, sdkVersion: fields.sdkVersion, components: fields.components };
}
