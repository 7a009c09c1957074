/**
 * Test helpers for the CRD manifests in crds/: load them, validate objects against their
 * openAPIV3Schema with Ajv (as a model of the API server's validation), and list the fields the
 * API server would prune as unknown (structural-schema pruning,
 * https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#field-pruning).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";

/** Repository root. */
export const ROOT = join(import.meta.dir, "..", "..", "..");

/** An OpenAPI v3 schema node as it appears in a CRD (only what the helpers walk). */
export interface SchemaNode {
  type?: string;
  format?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  required?: string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  [k: string]: unknown;
}

/** The parts of a CustomResourceDefinition the tests read. */
export interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string };
    scope: string;
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status?: Record<string, never> };
      additionalPrinterColumns?: { name: string; type: string; jsonPath: string }[];
      schema: { openAPIV3Schema: SchemaNode };
    }[];
  };
}

/** Path of the manifest of a plural, named like the Go repo's config/crd/bases. */
export function crdPath(plural: string): string {
  return join(ROOT, "crds", `operator.tinysystems.io_${plural}.yaml`);
}

/**
 * Parse crds/operator.tinysystems.io_<plural>.yaml.
 * @throws Error when the file has YAML errors or not exactly one document.
 */
export function loadCrd(plural: string): Crd {
  const docs = parseAllDocuments(readFileSync(crdPath(plural), "utf8"));
  if (!Array.isArray(docs) || docs.length !== 1) throw new Error(`${plural}: expected exactly one YAML document`);
  const doc = docs[0]!;
  if (doc.errors.length > 0) throw new Error(`${plural}: ${doc.errors[0]!.message}`);
  return doc.toJS() as Crd;
}

/** The v1alpha1 openAPIV3Schema of a plural. */
export function schemaOf(plural: string): SchemaNode {
  const v = loadCrd(plural).spec.versions.find((x) => x.name === "v1alpha1");
  if (!v) throw new Error(`${plural}: no v1alpha1 version`);
  return v.schema.openAPIV3Schema;
}

/** Follow a dotted path through `properties` and `items` (`[]` steps into array items). */
export function at(schema: SchemaNode, path: string): SchemaNode {
  let node: SchemaNode | undefined = schema;
  for (const step of path.split(".")) {
    if (!node) break;
    node = step === "[]" ? node.items : node.properties?.[step];
  }
  if (!node) throw new Error(`no schema at ${path}`);
  return node;
}

const K8S_KEYWORDS = [
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-int-or-string",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
];

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Compile a CRD schema with Ajv. `format: byte` accepts only canonical padded base64 (the API
 * server's check), `date-time` RFC 3339, `int64` integers. `useDefaults` applies CRD defaults.
 */
export function compileCrdSchema(schema: SchemaNode, opts: { useDefaults?: boolean } = {}): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true, useDefaults: opts.useDefaults ?? false });
  for (const k of K8S_KEYWORDS) ajv.addKeyword(k);
  ajv.addFormat("byte", {
    type: "string",
    validate: (s: string) => /^[A-Za-z0-9+/=]*$/.test(s) && Buffer.from(s, "base64").toString("base64") === s,
  });
  ajv.addFormat("date-time", { type: "string", validate: (s: string) => RFC3339.test(s) });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
  return ajv.compile(schema);
}

/**
 * Paths of the fields of `value` that the API server would drop as unknown under `schema`.
 * Root `metadata` is ObjectMeta and never pruned; `x-kubernetes-preserve-unknown-fields` stops the walk.
 */
export function prunedPaths(schema: SchemaNode, value: unknown, path = ""): string[] {
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) return [];
  if (Array.isArray(value)) {
    return schema.items ? value.flatMap((v, i) => prunedPaths(schema.items!, v, `${path}[${i}]`)) : [];
  }
  if (value === null || typeof value !== "object") return [];
  const out: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === "" ? key : `${path}.${key}`;
    if (path === "" && key === "metadata") continue;
    const declared = schema.properties?.[key];
    if (declared) out.push(...prunedPaths(declared, child, childPath));
    else if (typeof schema.additionalProperties === "object") out.push(...prunedPaths(schema.additionalProperties, child, childPath));
    else out.push(childPath);
  }
  return out;
}
